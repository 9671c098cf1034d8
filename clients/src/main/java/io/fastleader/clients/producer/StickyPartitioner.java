package io.fastleader.clients.producer;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

import org.apache.kafka.common.utils.Utils;

/**
 * The Java client's built-in partitioning (KIP-794), so records land where {@code KafkaProducer}
 * puts them: a keyed record goes to {@code murmur2(key) % partitions}; unkeyed records stick to one
 * partition for a stint, then move to another chosen at random among the partitions that have a
 * leader (all of them if none has).
 *
 * <p>A stint ends, as in {@code KafkaProducer}, at a batch boundary once {@code batch.size} bytes
 * were appended to its partition: when the batch a record went into is full, or else at the next
 * record that would start a new batch there. Ending it as soon as {@code batch.size} bytes were
 * appended would leave a small batch behind at every stint (a 16 KiB batch holds a little less than
 * 16 KiB of records, the rest starting a second batch), so nearly every other batch would carry a
 * handful of records. At twice {@code batch.size} the stint ends whatever the batches, as a cap.
 *
 * <p>Adaptive partitioning ({@code partitioner.adaptive.partitioning.enable}, on by default), as
 * {@code KafkaProducer} does it: once every partition of the topic has had a batch, a new stint's
 * partition is drawn with a weight of the longest queue's length plus one, less the partition's own
 * queue length ({@link PartitionLoads}), so partitions whose brokers take batches slowly get fewer
 * records; partitions whose leader has had batches ready for {@code partitioner.availability.timeout.ms}
 * without taking any are left out. Without it, or before, the draw is uniform.
 *
 * <p>Thread-safe: each topic's stint is replaced atomically, and a record whose stint another thread
 * has ended meanwhile still goes to that stint's partition.
 */
public final class StickyPartitioner {

    private final int batchSize;
    private final IntUnaryOperator random;
    private final PartitionLoads loads;
    private final Map<String, AtomicReference<Stint>> stintByTopic = new ConcurrentHashMap<>();

    /** A partitioner whose draw is uniform: no partition loads are known. */
    public StickyPartitioner(int batchSize, IntUnaryOperator random) {
        this(batchSize, random, PartitionLoads.NONE);
    }

    /**
     * @param batchSize {@code batch.size}: bytes appended to a sticky partition before its stint may end
     * @param random    given a bound n, a uniform int in [0, n)
     * @param loads     what the adaptive draw weighs partitions by; {@link PartitionLoads#NONE} for a uniform draw
     */
    public StickyPartitioner(int batchSize, IntUnaryOperator random, PartitionLoads loads) {
        this.batchSize = batchSize;
        this.random = random;
        this.loads = loads;
    }

    /** What the adaptive draw reads of a topic's partitions (KIP-794). */
    public interface PartitionLoads {

        /** No loads: every draw is uniform, as with {@code partitioner.adaptive.partitioning.enable=false}. */
        PartitionLoads NONE = new PartitionLoads() {
            @Override
            public int queueLength(String topic, int partition) {
                return -1;
            }

            @Override
            public boolean leaderAvailable(String topic, int partition) {
                return true;
            }
        };

        /** The batches queued for the partition when the sender last looked; -1 if it never had one, which makes the draw uniform. */
        int queueLength(String topic, int partition);

        /** False when the partition's leader has had batches ready for {@code partitioner.availability.timeout.ms} without taking any. */
        boolean leaderAvailable(String topic, int partition);
    }

    /** A partition that unkeyed records of a topic go to, and the bytes appended to it so far. */
    public static final class Stint {
        private final int partition;
        private final AtomicLong appendedBytes = new AtomicLong();
        /** {@code batch.size} bytes were appended: the stint ends at the next batch boundary. */
        private volatile boolean endsAtNextBatch;

        private Stint(int partition) {
            this.partition = partition;
        }

        /** The partition the stint's records go to. */
        public int partition() {
            return partition;
        }
    }

    /** The partition of a keyed record: the Java client's {@code murmur2(key) % partitions}. */
    public static int partitionForKey(byte[] keyBytes, int partitions) {
        return Utils.toPositive(Utils.murmur2(keyBytes)) % partitions;
    }

    /**
     * The stint an unkeyed record of the topic joins: the current one, or a new one when there is
     * none, its partition is beyond {@code partitions}, or it ends at the next batch and the record
     * would start one. Tell {@link #appended} once the record is appended.
     *
     * @param hasLeader       whether a partition index currently has a known leader
     * @param leaderInRack    whether a partition index's leader is in the producer's rack ({@code partitioner.rack.aware}):
     *                        a new stint takes such a partition when there is one
     * @param startsNewBatch  whether the record, appended to a partition index now, would start a new batch there
     */
    public Stint stintForUnkeyed(String topic, int partitions, IntPredicate hasLeader, IntPredicate leaderInRack,
                                 IntPredicate startsNewBatch) {
        AtomicReference<Stint> current = stintByTopic.computeIfAbsent(topic, name -> new AtomicReference<>());
        while (true) {
            Stint stint = current.get();
            if (stint != null && stint.partition < partitions
                    && !(stint.endsAtNextBatch && startsNewBatch.test(stint.partition))) {
                return stint;
            }
            Stint next = new Stint(nextPartition(topic, partitions, hasLeader, leaderInRack));
            if (current.compareAndSet(stint, next)) {
                return next;
            }
        }
    }

    /**
     * Counts a record appended to the stint's partition, and ends the stint when that is due: the
     * next unkeyed record of the topic then starts a new one.
     *
     * @param bytes          what the record added to its batch's size, the batch's header included for a new batch
     * @param lastBatchFull  whether the batch the record went into is now full
     */
    public void appended(String topic, Stint stint, int bytes, boolean lastBatchFull) {
        long appended = stint.appendedBytes.addAndGet(bytes);
        if (appended >= 2L * batchSize || appended >= batchSize && lastBatchFull) {
            stintByTopic.get(topic).compareAndSet(stint, null);
        } else if (appended >= batchSize) {
            stint.endsAtNextBatch = true;
        }
    }

    /**
     * A new stint's partition, as kafka-clients 4.4's built-in partitioner draws it: by load
     * ({@link #drawWeighted}) among the partitions with an available leader when every partition of
     * the topic has a queue length, else uniformly among those with a leader, else among all; in
     * either draw, among those led in the rack if there are any.
     */
    private int nextPartition(String topic, int partitions, IntPredicate hasLeader, IntPredicate leaderInRack) {
        int[] lengths = queueLengths(topic, partitions);
        if (lengths != null) {
            int[] available = candidates(partitions, index -> hasLeader.test(index) && loads.leaderAvailable(topic, index),
                    leaderInRack);
            if (available.length > 0) {
                return drawWeighted(available, lengths);
            }
        }
        int[] led = candidates(partitions, hasLeader, leaderInRack);
        return led.length == 0 ? random.applyAsInt(partitions) : led[random.applyAsInt(led.length)];
    }

    /** Each partition's queue length, or null when one has none yet: the draw is uniform until each has had a batch. */
    private int[] queueLengths(String topic, int partitions) {
        int[] lengths = new int[partitions];
        for (int index = 0; index < partitions; index++) {
            lengths[index] = loads.queueLength(topic, index);
            if (lengths[index] < 0) {
                return null;
            }
        }
        return lengths;
    }

    /** The partitions {@code eligible}, or only those of them led in the rack if there are any. */
    private static int[] candidates(int partitions, IntPredicate eligible, IntPredicate leaderInRack) {
        int[] all = new int[partitions];
        int count = 0;
        int[] inRack = new int[partitions];
        int countInRack = 0;
        for (int index = 0; index < partitions; index++) {
            if (eligible.test(index)) {
                all[count++] = index;
                if (leaderInRack.test(index)) {
                    inRack[countInRack++] = index;
                }
            }
        }
        return countInRack > 0 ? Arrays.copyOf(inRack, countInRack) : Arrays.copyOf(all, count);
    }

    /** A draw among {@code candidates}, each weighing the longest of their queues plus one, less its own queue's length. */
    private int drawWeighted(int[] candidates, int[] lengths) {
        int longest = 0;
        for (int candidate : candidates) {
            longest = Math.max(longest, lengths[candidate]);
        }
        int total = 0;
        for (int candidate : candidates) {
            total += longest + 1 - lengths[candidate];
        }
        int drawn = random.applyAsInt(total);
        for (int candidate : candidates) {
            drawn -= longest + 1 - lengths[candidate];
            if (drawn < 0) {
                return candidate;
            }
        }
        throw new IllegalStateException("A weighted draw fell past its candidates");
    }
}
