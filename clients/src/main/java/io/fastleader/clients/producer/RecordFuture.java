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
 */
final class RecordFuture implements Future<RecordMetadata> {

    private final BatchOutcome outcome;
    private final int indexInBatch;
    private final long createTimeMs;
    private final int serializedKeySize;
    private final int serializedValueSize;

    RecordFuture(BatchOutcome outcome, int indexInBatch, long createTimeMs, int serializedKeySize,
                 int serializedValueSize) {
        this.outcome = outcome;
        this.indexInBatch = indexInBatch;
        this.createTimeMs = createTimeMs;
        this.serializedKeySize = serializedKeySize;
        this.serializedValueSize = serializedValueSize;
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
        return outcome.isKnown();
    }

    @Override
    public RecordMetadata get() throws InterruptedException, ExecutionException {
        outcome.await();
        return valueOrThrow();
    }

    @Override
    public RecordMetadata get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!outcome.await(timeout, unit)) {
            throw new TimeoutException("Timed out after " + unit.toMillis(timeout) + " ms waiting for the record to be acknowledged");
        }
        return valueOrThrow();
    }

    /** The record's metadata once its batch was written; only called after the outcome is known. */
    RecordMetadata metadata() {
        // With LogAppendTime the broker's clock replaces the producer's timestamp.
        long timestamp = outcome.logAppendTimeMs() == RecordBatch.NO_TIMESTAMP ? createTimeMs : outcome.logAppendTimeMs();
        return new RecordMetadata(outcome.topicPartition(), outcome.baseOffset(), indexInBatch, timestamp,
                serializedKeySize, serializedValueSize);
    }

    private RecordMetadata valueOrThrow() throws ExecutionException {
        if (outcome.error() != null) {
            throw new ExecutionException(outcome.error());
        }
        return metadata();
    }
}
