package io.fastleader.clients.producer;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * The idempotent producer's next sequence number per partition, under one producer id and epoch.
 * A batch takes its base sequence when it is first sent and keeps it on every retry, so a broker
 * that already wrote it answers DUPLICATE_SEQUENCE_NUMBER instead of writing it twice. After an
 * epoch bump every partition starts again at 0. Sequences wrap from {@link Integer#MAX_VALUE} to 0,
 * as the record-batch format defines. Not thread-safe: the sender owns it.
 */
public final class SequenceNumbers {

    private final Map<TopicPartition, Integer> next = new HashMap<>();

    /**
     * Assigns the base sequence of a batch of {@code records} records for the partition.
     *
     * @return the batch's base sequence
     */
    public int take(TopicPartition partition, int records) {
        int base = next.getOrDefault(partition, 0);
        next.put(partition, increment(base, records));
        return base;
    }

    /** Starts every partition again at 0, for a new producer epoch. */
    public void reset() {
        next.clear();
    }

    /** {@code sequence + increment}, wrapping past {@link Integer#MAX_VALUE} to 0. */
    static int increment(int sequence, int increment) {
        return sequence > Integer.MAX_VALUE - increment ? increment - (Integer.MAX_VALUE - sequence) - 1 : sequence + increment;
    }
}
