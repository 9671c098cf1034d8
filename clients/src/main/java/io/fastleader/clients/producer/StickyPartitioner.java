package io.fastleader.clients.producer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

import org.apache.kafka.common.utils.Utils;

/**
 * The Java client's built-in partitioning (KIP-794), so records land where {@code KafkaProducer}
 * puts them: a keyed record goes to {@code murmur2(key) % partitions}; unkeyed records stick to one
 * partition until {@code batch.size} bytes have gone to it, then move to another chosen at random
 * among the partitions that have a leader (all of them if none has).
 *
 * <p>Adaptive partitioning (weighting partitions by their queue sizes) is not done: unkeyed records
 * are spread uniformly. Thread-safe: each topic's sticky state is replaced atomically.
 */
public final class StickyPartitioner {

    private final int batchSize;
    private final IntUnaryOperator random;
    private final Map<String, Sticky> stickyByTopic = new ConcurrentHashMap<>();

    /**
     * @param batchSize {@code batch.size}: bytes sent to a sticky partition before moving on
     * @param random    given a bound n, a uniform int in [0, n)
     */
    public StickyPartitioner(int batchSize, IntUnaryOperator random) {
        this.batchSize = batchSize;
        this.random = random;
    }

    /** The partition of a keyed record: the Java client's {@code murmur2(key) % partitions}. */
    public static int partitionForKey(byte[] keyBytes, int partitions) {
        return Utils.toPositive(Utils.murmur2(keyBytes)) % partitions;
    }

    /**
     * The partition for an unkeyed record of {@code bytes} bytes; counts the bytes against it.
     *
     * @param hasLeader whether a partition index currently has a known leader
     */
    public int partitionForUnkeyed(String topic, int partitions, IntPredicate hasLeader, int bytes) {
        Sticky sticky = stickyByTopic.compute(topic, (name, current) -> {
            if (current == null || current.partition >= partitions || current.bytes >= batchSize) {
                return new Sticky(nextPartition(partitions, hasLeader), bytes);
            }
            return new Sticky(current.partition, current.bytes + bytes);
        });
        return sticky.partition;
    }

    private int nextPartition(int partitions, IntPredicate hasLeader) {
        int[] led = new int[partitions];
        int count = 0;
        for (int index = 0; index < partitions; index++) {
            if (hasLeader.test(index)) {
                led[count++] = index;
            }
        }
        return count == 0 ? random.applyAsInt(partitions) : led[random.applyAsInt(count)];
    }

    /** The partition unkeyed records of a topic go to, and how many bytes went there so far. */
    private record Sticky(int partition, int bytes) {
    }
}
