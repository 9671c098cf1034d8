package io.fastleader.clients.producer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records of one partition that travel together in one Produce request, written in
 * kafka-clients' record-batch format (v2) with the configured compression.
 *
 * <p>Life of a batch: records are appended while it is open ({@link #tryAppend}); the sender
 * takes it and stamps it ({@link #markSent}, and for idempotence {@link #setProducerState});
 * {@link #records()} closes it into the bytes of the request; a retry keeps those bytes and the
 * same sequence numbers. It ends once, by {@link #complete} or {@link #fail}: every record's
 * callback then runs in the order the records were appended, and every future is done.
 *
 * <p>Appends are serialised by the caller (the accumulator's lock on the partition's queue);
 * the sender's stamps come from its single thread; ending is safe from any thread.
 */
public final class ProducerBatch {

    private static final Logger LOG = LoggerFactory.getLogger(ProducerBatch.class);

    private final TopicPartition topicPartition;
    private final MemoryRecordsBuilder builder;
    private final long createdMs;
    private final int reservedBytes;
    private final Consumer<ProducerBatch> onEnded;
    private final BatchOutcome outcome;
    private final List<PendingRecord> records = new ArrayList<>();
    private final AtomicBoolean ending = new AtomicBoolean();
    // Opens after the callbacks ran and the batch's memory went back: what flush waits for.
    private final CountDownLatch ended = new CountDownLatch(1);

    private volatile int attempts;
    private volatile int lastSentLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private volatile long retryAtMs;

    /**
     * An empty batch.
     *
     * @param capacityBytes the buffer to write into; also where the batch counts as full
     *                      ({@code batch.size}), except that the first record always fits
     * @param createdMs     when it was created: the start of its linger and of its delivery timeout
     */
    public ProducerBatch(TopicPartition topicPartition, Compression compression, int capacityBytes, long createdMs) {
        this(topicPartition, compression, capacityBytes, createdMs, batch -> { });
    }

    /** As above; {@code onEnded} runs once after the callbacks, to give the batch's memory back. */
    ProducerBatch(TopicPartition topicPartition, Compression compression, int capacityBytes, long createdMs,
                  Consumer<ProducerBatch> onEnded) {
        this.topicPartition = topicPartition;
        this.builder = MemoryRecords.builder(ByteBuffer.allocate(capacityBytes), compression,
                TimestampType.CREATE_TIME, 0L);
        this.createdMs = createdMs;
        this.reservedBytes = capacityBytes;
        this.onEnded = onEnded;
        this.outcome = new BatchOutcome(topicPartition);
    }

    /**
     * Appends a record if it fits.
     *
     * @param callback may be null
     * @return the record's future, or null when the batch is full or closed for appends
     */
    public Future<RecordMetadata> tryAppend(long timestampMs, byte[] key, byte[] value, Header[] headers,
                                            Callback callback) {
        if (!builder.hasRoomFor(timestampMs, key, value, headers)) {
            return null;
        }
        builder.append(timestampMs, key, value, headers);
        RecordFuture future = new RecordFuture(outcome, records.size(), timestampMs,
                key == null ? -1 : key.length, value == null ? -1 : value.length);
        records.add(new PendingRecord(callback, future));
        return future;
    }

    /** Stops appends: once a batch leaves its queue no later record may join it. */
    void closeForAppends() {
        builder.closeForRecordAppends();
    }

    /**
     * Sets the idempotent producer's identity and this batch's first sequence number. Allowed
     * again after {@link #records()}, when the producer epoch is bumped: the header is rewritten.
     */
    public void setProducerState(long producerId, short producerEpoch, int baseSequence) {
        if (builder.isClosed()) {
            builder.reopenAndRewriteProducerState(producerId, producerEpoch, baseSequence, false);
        } else {
            builder.setProducerState(producerId, producerEpoch, baseSequence, false);
        }
    }

    /** The closed batch, ready for a Produce request; the same bytes on every call until the producer state changes. */
    public MemoryRecords records() {
        return builder.build();
    }

    /**
     * Records that an attempt is going out.
     *
     * @param leaderEpoch the partition's leader epoch it is sent at, so a retry can tell whether the epoch advanced
     */
    public void markSent(int leaderEpoch) {
        attempts++;
        lastSentLeaderEpoch = leaderEpoch;
    }

    /** Holds a retried batch back until {@code retryAtMs}, the end of the backoff the retry policy chose. */
    public void retryAt(long retryAtMs) {
        this.retryAtMs = retryAtMs;
    }

    /** Whether this batch was sent before and its retry backoff has not run out. */
    public boolean isBackingOff(long nowMs) {
        return attempts > 0 && nowMs < retryAtMs;
    }

    /** Whether {@code delivery.timeout.ms} has passed since the batch was created. */
    public boolean hasReachedDeliveryTimeout(long deliveryTimeoutMs, long nowMs) {
        return nowMs - createdMs >= deliveryTimeoutMs;
    }

    /** Whether no further record fits. */
    public boolean isFull() {
        return builder.isFull();
    }

    /**
     * Ends the batch as written: futures succeed, then callbacks run in append order.
     *
     * @param baseOffset      the offset of the first record, -1 when unknown ({@code acks=0})
     * @param logAppendTimeMs the broker's append time under LogAppendTime, else -1
     * @return false, doing nothing, when the batch had already ended (for example it expired meanwhile)
     */
    public boolean complete(long baseOffset, long logAppendTimeMs) {
        if (!ending.compareAndSet(false, true)) {
            return false;
        }
        outcome.written(baseOffset, logAppendTimeMs);
        for (PendingRecord record : records) {
            runCallback(record.callback(), record.future().metadata(), null);
        }
        end();
        return true;
    }

    /**
     * Ends the batch as failed: futures throw {@code error}, then callbacks run in append order.
     *
     * @return false, doing nothing, when the batch had already ended
     */
    public boolean fail(RuntimeException error) {
        if (!ending.compareAndSet(false, true)) {
            return false;
        }
        outcome.failed(error);
        // As in the Java client: on failure every field but the partition is unknown.
        RecordMetadata unknown = new RecordMetadata(topicPartition, -1, -1, RecordBatch.NO_TIMESTAMP, -1, -1);
        for (PendingRecord record : records) {
            runCallback(record.callback(), unknown, error);
        }
        end();
        return true;
    }

    private void runCallback(Callback callback, RecordMetadata metadata, Exception error) {
        if (callback == null) {
            return;
        }
        try {
            callback.onCompletion(metadata, error);
        } catch (RuntimeException e) {
            // One application callback throwing must not keep the others from running.
            LOG.error("A send callback for {} threw; the remaining callbacks still run", topicPartition, e);
        }
    }

    private void end() {
        onEnded.accept(this);
        ended.countDown();
    }

    /** Whether the batch has ended and its callbacks have run. */
    public boolean isDone() {
        return ended.getCount() == 0;
    }

    void awaitDone() throws InterruptedException {
        ended.await();
    }

    /** The partition this batch goes to. */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** How many records it holds. */
    public int recordCount() {
        return builder.numRecords();
    }

    /** Its size on the wire, estimated until {@link #records()} closes it. */
    public int estimatedSizeBytes() {
        return builder.estimatedSizeInBytes();
    }

    /** The buffer memory it holds until it ends. */
    int reservedBytes() {
        return reservedBytes;
    }

    /** When it was created. */
    public long createdMs() {
        return createdMs;
    }

    /** How many times it has been sent. */
    public int attempts() {
        return attempts;
    }

    /** The leader epoch of its last attempt, -1 before the first. */
    public int lastSentLeaderEpoch() {
        return lastSentLeaderEpoch;
    }

    /** When its retry backoff ends; meaningful once it was sent. */
    public long retryAtMs() {
        return retryAtMs;
    }

    /** The producer id stamped by {@link #setProducerState}, -1 without idempotence. */
    public long producerId() {
        return builder.producerId();
    }

    /** The producer epoch stamped by {@link #setProducerState}, -1 without idempotence. */
    public short producerEpoch() {
        return builder.producerEpoch();
    }

    /** The sequence number of its first record, -1 until one is assigned. */
    public int baseSequence() {
        return builder.baseSequence();
    }

    /** Whether a sequence number was assigned, which fixes its place among its partition's batches. */
    public boolean hasSequence() {
        return builder.baseSequence() != RecordBatch.NO_SEQUENCE;
    }

    @Override
    public String toString() {
        return "ProducerBatch(" + topicPartition + ", records=" + recordCount() + ", createdMs=" + createdMs
                + ", attempts=" + attempts + ", baseSequence=" + baseSequence() + ")";
    }

    private record PendingRecord(Callback callback, RecordFuture future) {
    }
}
