package io.fastleader.clients.producer;

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
 * <p>Adaptive partitioning (weighting partitions by their queue sizes) is not done: unkeyed records
 * are spread uniformly. Thread-safe: each topic's stint is replaced atomically, and a record whose
 * stint another thread has ended meanwhile still goes to that stint's partition.
 */
public final class StickyPartitioner {

    private final int batchSize;
    private final IntUnaryOperator random;
    private final Map<String, AtomicReference<Stint>> stintByTopic = new ConcurrentHashMap<>();

    /**
     * @param batchSize {@code batch.size}: bytes appended to a sticky partition before its stint may end
     * @param random    given a bound n, a uniform int in [0, n)
     */
    public StickyPartitioner(int batchSize, IntUnaryOperator random) {
        this.batchSize = batchSize;
        this.random = random;
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
            Stint next = new Stint(nextPartition(partitions, hasLeader, leaderInRack));
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

    /** A partition led in the rack if there is one, else one with a leader, else any: as kafka-clients 4.4's built-in partitioner picks. */
    private int nextPartition(int partitions, IntPredicate hasLeader, IntPredicate leaderInRack) {
        int[] led = new int[partitions];
        int count = 0;
        int[] ledInRack = new int[partitions];
        int inRack = 0;
        for (int index = 0; index < partitions; index++) {
            if (hasLeader.test(index)) {
                led[count++] = index;
                if (leaderInRack.test(index)) {
                    ledInRack[inRack++] = index;
                }
            }
        }
        if (inRack > 0) {
            return ledInRack[random.applyAsInt(inRack)];
        }
        return count == 0 ? random.applyAsInt(partitions) : led[random.applyAsInt(count)];
    }
}
