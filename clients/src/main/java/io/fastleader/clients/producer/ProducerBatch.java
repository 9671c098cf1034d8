package io.fastleader.clients.producer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.EpochBackoff;

/**
 * The records of one partition that travel together in one Produce request, written in
 * kafka-clients' record-batch format (v2) with the configured compression ({@link RecordBatchWriter}).
 *
 * <p>Life of a batch: records are appended while it is open ({@link #tryAppend}); the sender
 * takes it and stamps it ({@link #markSent}, and for idempotence {@link #setProducerState});
 * {@link #records()} closes it into the bytes of the request; a retry keeps those bytes and the
 * same sequence numbers. It ends once, by {@link #complete} or {@link #fail}: every record's
 * callback then runs in the order the records were appended, and every future is done. A batch
 * the broker refuses as too large may instead be {@link #split} in two; its records then end with
 * the halves, and it ends (giving its memory back) once both have.
 *
 * <p>Appends are serialised by the caller (the accumulator's lock on the partition's queue);
 * the sender's stamps come from its single thread; ending is safe from any thread.
 */
public final class ProducerBatch {

    private static final Logger LOG = LoggerFactory.getLogger(ProducerBatch.class);
    private static final AtomicLong CREATED = new AtomicLong();

    private final TopicPartition topicPartition;
    private final Compression compression;
    private final RecordBatchWriter writer;
    private final long createdMs;
    /** Increases with every batch made by appends; the halves of a split share their batch's. */
    private final long creationOrder;
    /** Where its first record stood in the batch made by appends that it is a piece of: 0 unless a split made it. */
    private final int firstRecordIndex;
    /** The buffer memory it holds: what it was made with, and what {@link #grow} added. Changed under its queue's monitor. */
    private int reservedBytes;
    /** How many bytes of memory the record the last {@link #tryAppend} refused lacked; 0 if it lacked room. */
    private int memoryShortBytes;
    /** The buffer the batch was made with, which the accumulator may reuse once the batch ends. */
    private final ByteBuffer buffer;
    private final Consumer<ProducerBatch> onEnded;
    /** The batch this one is a half of, told when this one ends; null for a batch made by appends. */
    private final ProducerBatch splitFrom;
    private final BatchOutcome outcome;
    private final BatchTimeline timeline;
    private final List<RecordFuture> records = new ArrayList<>();
    private final AtomicBoolean ending = new AtomicBoolean();
    // Opens after the callbacks ran and the batch's memory went back: what flush waits for.
    private final CountDownLatch ended = new CountDownLatch(1);
    // Set by split: how many of the halves have not ended yet.
    private final AtomicInteger halvesLeft = new AtomicInteger();

    private volatile int attempts;
    private volatile int lastSentLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private volatile EpochBackoff.State backoff = EpochBackoff.State.NONE;
    /** In a request the transport has not yet written or failed: its bytes may still be read. */
    private volatile boolean inTransport;

    /**
     * An empty batch that keeps its {@link BatchTimeline}.
     *
     * @param capacityBytes the buffer to write into; also where the batch counts as full
     *                      ({@code batch.size}), except that the first record always fits
     * @param createdMs     when it was created: the start of its linger and of its delivery timeout
     */
    public ProducerBatch(TopicPartition topicPartition, Compression compression, int capacityBytes, long createdMs) {
        this(topicPartition, compression, ByteBuffer.allocate(capacityBytes), capacityBytes, createdMs, true, batch -> { });
    }

    /**
     * As above; {@code onEnded} runs once after the callbacks, to give the batch's memory back.
     *
     * @param buffer      the memory it holds to begin with, as much as its capacity
     * @param writeLimit  where it counts as full: the buffer's capacity, or more for a batch that
     *                    {@linkplain #grow grows} its memory as records come
     * @param notesPhases whether the batch keeps a {@link BatchTimeline}, else it has the
     *                    {@linkplain BatchTimeline#untracked() untracked} one
     */
    ProducerBatch(TopicPartition topicPartition, Compression compression, ByteBuffer buffer, int writeLimit, long createdMs,
                  boolean notesPhases, Consumer<ProducerBatch> onEnded) {
        this(topicPartition, compression, buffer, writeLimit, buffer.capacity(), createdMs, onEnded, null, 0,
                notesPhases ? new BatchTimeline(createdMs) : BatchTimeline.untracked());
    }

    private ProducerBatch(TopicPartition topicPartition, Compression compression, ByteBuffer buffer, int writeLimit,
                          int reservedBytes, long createdMs, Consumer<ProducerBatch> onEnded, ProducerBatch splitFrom,
                          int splitAt, BatchTimeline timeline) {
        this.topicPartition = topicPartition;
        this.compression = compression;
        this.buffer = buffer;
        this.writer = new RecordBatchWriter(buffer, compression, writeLimit);
        this.createdMs = createdMs;
        this.creationOrder = splitFrom == null ? CREATED.getAndIncrement() : splitFrom.creationOrder;
        this.firstRecordIndex = splitFrom == null ? 0 : splitFrom.firstRecordIndex + splitAt;
        this.reservedBytes = reservedBytes;
        this.onEnded = onEnded;
        this.splitFrom = splitFrom;
        this.outcome = new BatchOutcome(topicPartition);
        this.timeline = timeline;
    }

    /**
     * Appends a record if it fits. A batch that refuses a record takes no more, as in
     * kafka-clients: the record goes to a new batch behind it, so this one closes for appends at
     * once, and its compressor's buffers (lz4 holds two of 64 KiB) go with it rather than staying
     * live for as long as the batch waits in its queue.
     *
     * A batch whose memory is short of the record refuses it too, but stays open: it takes the
     * record once {@linkplain #grow given} the {@linkplain #memoryShortBytes bytes it lacks}.
     *
     * @param callback may be null
     * @return the record's future, or null when the batch is full, closed for appends, or short of memory
     */
    public Future<RecordMetadata> tryAppend(long timestampMs, byte[] key, byte[] value, Header[] headers,
                                            Callback callback) {
        int appended = writer.tryAppend(timestampMs, key, value, headers);
        if (appended != RecordBatchWriter.APPENDED) {
            memoryShortBytes = Math.max(0, appended);
            if (appended == RecordBatchWriter.NO_ROOM) {
                closeForAppends();
            }
            return null;
        }
        RecordFuture future = new RecordFuture(outcome, records.size(), callback, timestampMs,
                key == null ? -1 : key.length, value == null ? -1 : value.length);
        records.add(future);
        return future;
    }

    /**
     * How many bytes of memory the batch lacked for the record the last {@link #tryAppend} refused:
     * 0 when it refused it for want of room, and closed.
     */
    int memoryShortBytes() {
        return memoryShortBytes;
    }

    /**
     * Gives the batch {@code bytes} more of buffer memory, reserved for it by the caller, who holds
     * its queue's monitor: it holds them until it ends.
     *
     * @throws IllegalArgumentException when they would take it past its write limit
     */
    void grow(int bytes) {
        writer.grow(bytes);
        reservedBytes += bytes;
    }

    /** How many more bytes of memory the batch could take before it reaches its write limit. */
    int growableBytes() {
        return writer.writeLimit() - writer.memoryLimit();
    }

    /**
     * Whether the record would fit. A batch without room for it closes for appends, as one that
     * refuses it in {@link #tryAppend} does: a record that does not fit goes to a batch behind it.
     */
    public boolean hasRoomFor(long timestampMs, byte[] key, byte[] value, Header[] headers) {
        if (writer.hasRoomFor(timestampMs, key, value, headers)) {
            return true;
        }
        closeForAppends();
        return false;
    }

    /**
     * Splits this batch, which the broker refused as too large, in two: the first half takes the
     * records in front while they hold at most half the batch's record bytes, the second the rest.
     * Each half is therefore smaller than this batch, and so within {@code batch.size}. Records keep
     * their order, futures and callbacks; with idempotence they also keep their sequence numbers,
     * under this batch's producer id and epoch: the broker wrote none of them, so the halves carry
     * on the sequence range this batch was sent with. The halves keep this batch's creation time,
     * so {@code delivery.timeout.ms} still counts from it, and share its memory: this batch ends,
     * giving the memory back, once both halves have.
     *
     * @return the two halves in record order, closed for appends; none when this batch had ended
     *         meanwhile (it expired or was aborted, and its callbacks ran)
     * @throws IllegalStateException for a batch of fewer than two records, which cannot be split
     */
    List<ProducerBatch> split() {
        List<Record> sent = new ArrayList<>();
        records().records().forEach(sent::add);
        if (sent.size() < 2) {
            throw new IllegalStateException("A batch of " + sent.size() + " record(s) cannot be split");
        }
        int firstHalfCount = firstHalfCount(sent);
        List<ProducerBatch> halves = List.of(half(sent, 0, firstHalfCount), half(sent, firstHalfCount, sent.size()));
        if (!ending.compareAndSet(false, true)) {
            return List.of();
        }
        halvesLeft.set(halves.size());
        boolean sequenced = hasSequence();
        int sequence = baseSequence();
        for (ProducerBatch half : halves) {
            if (sequenced) {
                half.setProducerState(producerId(), producerEpoch(), sequence, writer.isTransactional());
                sequence = SequenceNumbers.increment(sequence, half.recordCount());
            }
            half.closeForAppends();
            for (int index = 0; index < half.records.size(); index++) {
                half.records.get(index).moveTo(half.outcome, index);
            }
        }
        outcome.split();
        return halves;
    }

    /** How many records, at least one and all but one, fill the first half without passing half the bytes. */
    private static int firstHalfCount(List<Record> records) {
        long totalBytes = 0;
        for (Record record : records) {
            totalBytes += record.sizeInBytes();
        }
        int count = 1;
        long bytes = records.get(0).sizeInBytes();
        while (count < records.size() - 1 && 2 * (bytes + records.get(count).sizeInBytes()) <= totalBytes) {
            bytes += records.get(count).sizeInBytes();
            count++;
        }
        return count;
    }

    /** A half holding records {@code from} .. {@code to} - 1, with their callbacks and futures. */
    private ProducerBatch half(List<Record> sent, int from, int to) {
        int capacityBytes = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
        for (Record record : sent.subList(from, to)) {
            capacityBytes += record.sizeInBytes();
        }
        // Reserves nothing: this batch's memory covers the halves until the last of them ends.
        ProducerBatch half = new ProducerBatch(topicPartition, compression, ByteBuffer.allocate(capacityBytes), capacityBytes, 0,
                createdMs, onEnded, this, from, timeline.copy());
        for (int index = from; index < to; index++) {
            // Appended anew, not with the offset it had here: a broker refuses a batch whose records'
            // offset deltas do not run from 0 to its record count less one.
            Record record = sent.get(index);
            half.writer.append(record.timestamp(), Utils.toNullableArray(record.key()), Utils.toNullableArray(record.value()),
                    record.headers());
            half.records.add(records.get(index));
        }
        return half;
    }

    private void halfEnded() {
        if (halvesLeft.decrementAndGet() == 0) {
            end();
        }
    }

    /** Stops appends: once a batch leaves its queue no later record may join it. */
    void closeForAppends() {
        writer.closeForAppends();
    }

    /**
     * Sets the idempotent producer's identity and this batch's first sequence number, and whether
     * the batch belongs to a transaction (the batch header's transactional flag). Allowed
     * again after {@link #records()}, when the producer epoch is bumped: the header is rewritten.
     */
    public void setProducerState(long producerId, short producerEpoch, int baseSequence, boolean transactional) {
        writer.setProducerState(producerId, producerEpoch, baseSequence, transactional);
    }

    /** The closed batch, ready for a Produce request; the same bytes on every call until the producer state changes. */
    public MemoryRecords records() {
        return writer.build();
    }

    /**
     * Records that an attempt is going out.
     *
     * @param leaderEpoch the partition's leader epoch it is sent at, so a retry can tell whether the epoch advanced
     */
    public void markSent(int leaderEpoch) {
        attempts++;
        lastSentLeaderEpoch = leaderEpoch;
        inTransport = true;
    }

    /** The request that carried the batch is written or failed: the transport reads its bytes no more. */
    public void leftTransport() {
        inTransport = false;
    }

    /**
     * The buffer the accumulator may give the next batch once this one ended, or null: a half's (it
     * reserved nothing), or one a request not yet written or failed may still read (the batch ended
     * by its delivery timeout while in flight).
     */
    ByteBuffer reusableBuffer() {
        return reservedBytes > 0 && !inTransport ? buffer : null;
    }

    /** Holds a retried batch back as {@code state}, the backoff its last refusal earned ({@link EpochBackoff}). */
    public void backOff(EpochBackoff.State state) {
        this.backoff = state;
    }

    /** Its backoff, {@link EpochBackoff.State#NONE} before any refusal. */
    public EpochBackoff.State backoff() {
        return backoff;
    }

    /**
     * Whether the batch may go now: it was never refused, or its backoff is over by time or by the
     * partition's leader epoch, as the client knows it now, advancing past the refused attempt's.
     */
    public boolean mayGo(int currentLeaderEpoch, long nowMs) {
        return backoff.isOver(currentLeaderEpoch, nowMs);
    }

    /** Whether {@code delivery.timeout.ms} has passed since the batch was created. */
    public boolean hasReachedDeliveryTimeout(long deliveryTimeoutMs, long nowMs) {
        return nowMs - createdMs >= deliveryTimeoutMs;
    }

    /** Whether no further record fits. */
    public boolean isFull() {
        return writer.isFull();
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
        for (int index = 0; index < records.size(); index++) {
            RecordFuture record = records.get(index);
            // A record sent without a callback needs no metadata made for it: its future makes its own when asked.
            if (record.callback() != null) {
                runCallback(record.callback(), record.metadata(topicPartition, baseOffset, index, logAppendTimeMs), null);
            }
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
        for (RecordFuture record : records) {
            if (record.callback() != null) {
                runCallback(record.callback(), unknown, error);
            }
        }
        end();
        return true;
    }

    private void runCallback(Callback callback, RecordMetadata metadata, Exception error) {
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
        if (splitFrom != null) {
            splitFrom.halfEnded();
        }
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
        return writer.recordCount();
    }

    /** Its size on the wire, estimated until {@link #records()} closes it. */
    public int estimatedSizeBytes() {
        return writer.estimatedSizeBytes();
    }

    /** Its size compressed over its size uncompressed: estimated until {@link #records()} closes it, 1 without compression. */
    double compressionRatio() {
        return writer.compressionRatio();
    }

    /** The largest of its records' sizes, as {@code AbstractRecords.estimateSizeInBytesUpperBound} gives them. */
    int maxRecordBytes() {
        return writer.largestRecordEstimate();
    }

    /** The buffer memory it holds until it ends. */
    int reservedBytes() {
        return reservedBytes;
    }

    /** When it was created. */
    public long createdMs() {
        return createdMs;
    }

    /** Where it has spent its time so far, for the slow-batch log; the sender's thread's to read and write. */
    BatchTimeline timeline() {
        return timeline;
    }

    /**
     * Whether its records come before {@code other}'s, a batch of the same partition: it was made
     * by appends earlier, or it is the front piece of a split of the same batch. A retried batch
     * goes back to the place this gives it, so retries keep the order records were sent in.
     */
    boolean precedes(ProducerBatch other) {
        return creationOrder != other.creationOrder ? creationOrder < other.creationOrder
                : firstRecordIndex < other.firstRecordIndex;
    }

    /** How many times it has been sent. */
    public int attempts() {
        return attempts;
    }

    /** Whether its records went out before: it was sent, or it is a half of a batch that was ({@link #split}). */
    public boolean recordsSentBefore() {
        return attempts > 0 || splitFrom != null;
    }

    /** The leader epoch of its last attempt, -1 before the first. */
    public int lastSentLeaderEpoch() {
        return lastSentLeaderEpoch;
    }

    /** The producer id stamped by {@link #setProducerState}, -1 without idempotence. */
    public long producerId() {
        return writer.producerId();
    }

    /** The producer epoch stamped by {@link #setProducerState}, -1 without idempotence. */
    public short producerEpoch() {
        return writer.producerEpoch();
    }

    /** The sequence number of its first record, -1 until one is assigned. */
    public int baseSequence() {
        return writer.baseSequence();
    }

    /** Whether a sequence number was assigned, which fixes its place among its partition's batches. */
    public boolean hasSequence() {
        return writer.baseSequence() != RecordBatch.NO_SEQUENCE;
    }

    @Override
    public String toString() {
        return "ProducerBatch(" + topicPartition + ", records=" + recordCount() + ", createdMs=" + createdMs
                + ", attempts=" + attempts + ", baseSequence=" + baseSequence() + ")";
    }
}
