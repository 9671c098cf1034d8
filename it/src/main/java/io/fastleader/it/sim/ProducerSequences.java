package io.fastleader.it.sim;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

import io.fastleader.protocol.ErrorCode;

/**
 * One partition's idempotent-producer state, as a broker keeps it (and replicates it, so it
 * survives a leader move): per producer id, its epoch and the sequence and offset ranges of its
 * last five batches. An idempotent producer with several requests in flight keeps its records in
 * order only because the broker refuses a batch whose first sequence does not follow the last
 * one appended (OUT_OF_ORDER_SEQUENCE_NUMBER) and answers a batch it already holds with the
 * offset it was first appended at, appending nothing. Batches without a producer id are not
 * checked. Not thread-safe: {@link ClusterState} guards it.
 */
final class ProducerSequences {

    /** Batches remembered per producer for duplicate detection, as a broker remembers them. */
    static final int BATCHES_REMEMBERED = 5;

    /** A batch remembered: its sequences and where it went in the log. */
    record BatchRange(int firstSequence, int lastSequence, long firstOffset) {
    }

    /** What a batch's sequence check came to: append, a duplicate of {@code duplicateOf}, or an error. */
    record Verdict(ErrorCode error, BatchRange duplicateOf) {
        static final Verdict APPEND = new Verdict(ErrorCode.NONE, null);

        boolean isDuplicate() {
            return duplicateOf != null;
        }
    }

    /** One producer's state: its epoch and its last batches, oldest first. */
    static final class Entry {
        private short epoch;
        private final Deque<BatchRange> batches;

        private Entry(short epoch, Deque<BatchRange> batches) {
            this.epoch = epoch;
            this.batches = batches;
        }

        Entry copy() {
            return new Entry(epoch, new ArrayDeque<>(batches));
        }

        /** Checks a batch of producer epoch {@code batchEpoch} holding sequences {@code first} to {@code last}. */
        Verdict check(short batchEpoch, int first, int last) {
            if (batches.isEmpty() || batchEpoch > epoch) {
                // a producer new to this partition, or one that bumped its epoch, starts at sequence 0
                return first == 0 ? Verdict.APPEND : new Verdict(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, null);
            }
            if (batchEpoch < epoch) {
                return new Verdict(ErrorCode.INVALID_PRODUCER_EPOCH, null);
            }
            for (BatchRange batch : batches) {
                if (batch.firstSequence() == first && batch.lastSequence() == last) {
                    return new Verdict(ErrorCode.NONE, batch);
                }
            }
            int expected = batches.peekLast().lastSequence() == Integer.MAX_VALUE ? 0 : batches.peekLast().lastSequence() + 1;
            return first == expected ? Verdict.APPEND : new Verdict(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, null);
        }

        /** Records a batch appended under {@code batchEpoch}. */
        void appended(short batchEpoch, BatchRange batch) {
            if (batchEpoch != epoch) {
                batches.clear();
                epoch = batchEpoch;
            }
            batches.addLast(batch);
            while (batches.size() > BATCHES_REMEMBERED) {
                batches.removeFirst();
            }
        }
    }

    private final Map<Long, Entry> producers = new HashMap<>();

    /** A copy of {@code producerId}'s state (empty for a producer not seen here), to check batches against before committing. */
    Entry copyOf(long producerId) {
        Entry entry = producers.get(producerId);
        return entry == null ? new Entry((short) -1, new ArrayDeque<>()) : entry.copy();
    }

    /** Replaces {@code producerId}'s state with one checked and updated on a copy. */
    void commit(long producerId, Entry entry) {
        producers.put(producerId, entry);
    }
}
