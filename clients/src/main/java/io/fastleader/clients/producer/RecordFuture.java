package io.fastleader.clients.producer;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The future {@code send} returns for one record, and the callback to run for it: done when its
 * batch is written or failed. It cannot be cancelled, as with the Java client: a record handed to
 * the accumulator may already be on the wire.
 *
 * <p>A record stays with one future for its whole life, even when the broker refuses its batch
 * as too large and the batch is split: the future then {@link #moveTo moves} to the record's new
 * batch, and a thread waiting on the old batch wakes and waits on the new one.
 */
final class RecordFuture implements Future<RecordMetadata> {

    private final Callback callback;
    private final long createTimeMs;
    private final int serializedKeySize;
    private final int serializedValueSize;
    /** Where the record was appended: its batch's outcome and its index in that batch, unless it {@link #moved}. */
    private final BatchOutcome appendedTo;
    private final int appendedAt;
    // Null until a split moves the record: replaced, never mutated, so a reader sees a batch and an index that belong together.
    private volatile Slot moved;

    /** @param callback the application's, run when the record's batch ends; may be null */
    RecordFuture(BatchOutcome outcome, int indexInBatch, Callback callback, long createTimeMs, int serializedKeySize,
                 int serializedValueSize) {
        this.appendedTo = outcome;
        this.appendedAt = indexInBatch;
        this.callback = callback;
        this.createTimeMs = createTimeMs;
        this.serializedKeySize = serializedKeySize;
        this.serializedValueSize = serializedValueSize;
    }

    /** Where the record is: its batch's outcome and its index in that batch. */
    private record Slot(BatchOutcome outcome, int indexInBatch) {
    }

    /** The record moved to another batch; called before its old batch's outcome is marked split. */
    void moveTo(BatchOutcome outcome, int indexInBatch) {
        moved = new Slot(outcome, indexInBatch);
    }

    /** The callback to run when the record's batch ends, or null. */
    Callback callback() {
        return callback;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public boolean isDone() {
        return settledSlot() != null;
    }

    @Override
    public RecordMetadata get() throws InterruptedException, ExecutionException {
        while (true) {
            Slot current = slot();
            current.outcome().await();
            if (!current.outcome().wasSplit()) {
                return valueOrThrow(current);
            }
        }
    }

    @Override
    public RecordMetadata get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadlineNanos = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            Slot current = slot();
            if (!current.outcome().await(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("Timed out after " + unit.toMillis(timeout)
                        + " ms waiting for the record to be acknowledged");
            }
            if (!current.outcome().wasSplit()) {
                return valueOrThrow(current);
            }
        }
    }

    /**
     * The record's metadata once its batch, of {@code partition}, was written at {@code baseOffset}
     * with the record at {@code indexInBatch}: what the batch ending it hands its callback.
     *
     * @param logAppendTimeMs the broker's append time under LogAppendTime, else -1
     */
    RecordMetadata metadata(TopicPartition partition, long baseOffset, int indexInBatch, long logAppendTimeMs) {
        // With LogAppendTime the broker's clock replaces the producer's timestamp.
        long timestamp = logAppendTimeMs == RecordBatch.NO_TIMESTAMP ? createTimeMs : logAppendTimeMs;
        return new RecordMetadata(partition, baseOffset, indexInBatch, timestamp, serializedKeySize, serializedValueSize);
    }

    /** Where the record is now; a slot made on each call until a split moved it. */
    private Slot slot() {
        Slot current = moved;
        return current != null ? current : new Slot(appendedTo, appendedAt);
    }

    /** The slot whose outcome settles the record, or null while it is not known. */
    private Slot settledSlot() {
        while (true) {
            Slot current = slot();
            if (!current.outcome().isKnown()) {
                return null;
            }
            if (!current.outcome().wasSplit()) {
                return current;
            }
            // Split: the slot was moved before the outcome became known, so reading it again finds the new batch.
        }
    }

    private RecordMetadata valueOrThrow(Slot settled) throws ExecutionException {
        BatchOutcome outcome = settled.outcome();
        if (outcome.error() != null) {
            throw new ExecutionException(outcome.error());
        }
        return metadata(outcome.topicPartition(), outcome.baseOffset(), settled.indexInBatch(), outcome.logAppendTimeMs());
    }
}
