package io.fastleader.clients.producer;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The future {@code send} returns for one record: done when its batch is written or failed.
 * It cannot be cancelled, as with the Java client: a record handed to the accumulator may
 * already be on the wire.
 *
 * <p>A record stays with one future for its whole life, even when the broker refuses its batch
 * as too large and the batch is split: the future then {@link #moveTo moves} to the record's new
 * batch, and a thread waiting on the old batch wakes and waits on the new one.
 */
final class RecordFuture implements Future<RecordMetadata> {

    private final long createTimeMs;
    private final int serializedKeySize;
    private final int serializedValueSize;
    // Replaced, never mutated, so a reader sees a batch and an index that belong together.
    private volatile Slot slot;

    RecordFuture(BatchOutcome outcome, int indexInBatch, long createTimeMs, int serializedKeySize,
                 int serializedValueSize) {
        this.slot = new Slot(outcome, indexInBatch);
        this.createTimeMs = createTimeMs;
        this.serializedKeySize = serializedKeySize;
        this.serializedValueSize = serializedValueSize;
    }

    /** Where the record is: its batch's outcome and its index in that batch. */
    private record Slot(BatchOutcome outcome, int indexInBatch) {
    }

    /** The record moved to another batch; called before its old batch's outcome is marked split. */
    void moveTo(BatchOutcome outcome, int indexInBatch) {
        slot = new Slot(outcome, indexInBatch);
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
            Slot current = slot;
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
            Slot current = slot;
            if (!current.outcome().await(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("Timed out after " + unit.toMillis(timeout)
                        + " ms waiting for the record to be acknowledged");
            }
            if (!current.outcome().wasSplit()) {
                return valueOrThrow(current);
            }
        }
    }

    /** The record's metadata once its batch was written; only called after the outcome is known. */
    RecordMetadata metadata() {
        return metadata(slot);
    }

    /** The slot whose outcome settles the record, or null while it is not known. */
    private Slot settledSlot() {
        while (true) {
            Slot current = slot;
            if (!current.outcome().isKnown()) {
                return null;
            }
            if (!current.outcome().wasSplit()) {
                return current;
            }
            // Split: the slot was moved before the outcome became known, so reading it again finds the new batch.
        }
    }

    private RecordMetadata metadata(Slot settled) {
        BatchOutcome outcome = settled.outcome();
        // With LogAppendTime the broker's clock replaces the producer's timestamp.
        long timestamp = outcome.logAppendTimeMs() == RecordBatch.NO_TIMESTAMP ? createTimeMs : outcome.logAppendTimeMs();
        return new RecordMetadata(outcome.topicPartition(), outcome.baseOffset(), settled.indexInBatch(), timestamp,
                serializedKeySize, serializedValueSize);
    }

    private RecordMetadata valueOrThrow(Slot settled) throws ExecutionException {
        if (settled.outcome().error() != null) {
            throw new ExecutionException(settled.outcome().error());
        }
        return metadata(settled);
    }
}
