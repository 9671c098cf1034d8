package io.fastleader.clients.producer;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * The idempotent producer's sequence numbers per partition, under one producer id and epoch: the
 * next one to assign, and the next one the broker expects, just past the last batch it wrote.
 * A batch takes its base sequence when it is first sent and keeps it on every retry, so a broker
 * that already wrote it answers DUPLICATE_SEQUENCE_NUMBER instead of writing it twice. After an
 * epoch bump every partition starts again at 0. Sequences wrap from {@link Integer#MAX_VALUE} to 0,
 * as the record-batch format defines. Not thread-safe: the sender owns it.
 */
public final class SequenceNumbers {

    /** Sequences live in [0, 2^31): differences are taken modulo 2^31. */
    private static final int SEQUENCE_MASK = Integer.MAX_VALUE;

    private final Map<TopicPartition, Integer> next = new HashMap<>();
    private final Map<TopicPartition, Integer> expected = new HashMap<>();

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

    /**
     * Records that the broker wrote the batch of {@code records} records at {@code baseSequence}.
     * The expected sequence only moves forward: a retry that the broker found already written
     * (DUPLICATE_SEQUENCE_NUMBER) may be answered after batches that followed it.
     */
    public void written(TopicPartition partition, int baseSequence, int records) {
        int end = increment(baseSequence, records);
        Integer known = expected.get(partition);
        if (known == null || isAhead(end, known)) {
            expected.put(partition, end);
        }
    }

    /**
     * Whether the broker wrote a batch of the partition under this identity: from then on it holds
     * the producer's state there and refuses any sequence but the next. Before, a broker accepts
     * whatever sequence comes first.
     */
    public boolean anyWritten(TopicPartition partition) {
        return expected.containsKey(partition);
    }

    /**
     * Whether {@code sequence} lies beyond the one the broker expects next for the partition (just
     * past the last batch known to be written, 0 before any): a batch there waits for an earlier
     * one that the broker has not written yet.
     */
    public boolean isAheadOfExpected(TopicPartition partition, int sequence) {
        return isAhead(sequence, expected.getOrDefault(partition, 0));
    }

    /**
     * Whether {@code sequence} comes after {@code reference}. Only a few batches (the broker keeps
     * 5 per producer) are ever outstanding: a step forward is far shorter than half the sequence
     * space, a step back wraps past it.
     */
    private static boolean isAhead(int sequence, int reference) {
        int distance = (sequence - reference) & SEQUENCE_MASK;
        return distance != 0 && distance < (SEQUENCE_MASK >> 1);
    }

    /** Starts every partition again at 0, for a new producer epoch. */
    public void reset() {
        next.clear();
        expected.clear();
    }

    /** {@code sequence + increment}, wrapping past {@link Integer#MAX_VALUE} to 0. */
    static int increment(int sequence, int increment) {
        return sequence > Integer.MAX_VALUE - increment ? increment - (Integer.MAX_VALUE - sequence) - 1 : sequence + increment;
    }
}
