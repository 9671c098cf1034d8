package io.fastleader.clients.producer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Records waiting to be sent: one queue of {@link ProducerBatch}es per partition, oldest first,
 * bounded by {@code buffer.memory}.
 *
 * <p>Application threads {@link #append}; the sender, on its own thread, asks which partitions
 * are {@link #ready}, {@link #drain}s their first batches, and puts failed ones back with
 * {@link #reenqueue} (or in halves, {@link #splitAndReenqueue}). The accumulator owns no thread
 * and reads no clock of its own: every decision takes the time as an argument, but for
 * {@link #append}, which reads the clock it is given only when it starts a batch, so that a send
 * that joins a batch reads none. Only {@link #append} may block, for memory, and only up to the
 * {@code max.block.ms} it is given.
 *
 * <p>Each queue is guarded by its own monitor, so appends to different partitions do not
 * contend. A batch gives its memory back by itself when it ends ({@link ProducerBatch#complete},
 * {@link ProducerBatch#fail}), which wakes appenders waiting for memory.
 */
public final class RecordAccumulator {

    private final AccumulatorConfig config;
    private final ToIntFunction<TopicPartition> leaderEpochs;
    private final MemoryBudget memory;
    private final boolean notesPhases;
    private final Map<TopicPartition, BatchQueue> queues = new ConcurrentHashMap<>();
    /** Each topic's queues by partition, a slot null until its partition has one: where the partitioner reads their loads. */
    private final Map<String, BatchQueue[]> queuesByTopic = new ConcurrentHashMap<>();
    // Batches that hold memory: queued or in flight. Flush and abort work from this.
    private final Set<ProducerBatch> incomplete = ConcurrentHashMap.newKeySet();
    private final AtomicInteger flushesInProgress = new AtomicInteger();
    private volatile boolean closed;
    /** Set while a transaction is being ended: nothing lingers, as during a flush. */
    private volatile boolean sendAtOnce;
    /** What {@link #abortAll} failed every batch with; null until then. */
    private volatile RuntimeException abortedWith;

    /**
     * An empty accumulator; its {@code buffer.memory} is reported in {@code metrics}.
     *
     * @param leaderEpochs each partition's leader epoch as the client knows it now, -1 if unknown: a
     *                     retry whose partition's epoch advanced past its refused attempt's goes at once
     * @param notesPhases  whether its batches keep a {@link BatchTimeline}, which only the slow-batch log
     *                     reads: without, no phase is noted, and no queue is walked to note one
     */
    public RecordAccumulator(AccumulatorConfig config, ProducerMetrics metrics, ToIntFunction<TopicPartition> leaderEpochs,
                             boolean notesPhases) {
        this.config = config;
        this.leaderEpochs = leaderEpochs;
        this.notesPhases = notesPhases;
        this.memory = new MemoryBudget(config.bufferMemory(), config.bufferAllocation().keptBufferBytes(config.batchSize()), metrics);
        metrics.watchBuffer(memory);
    }

    /**
     * Adds a record to its partition's last batch, or to a new batch when it does not fit.
     *
     * @param timestampMs the record's timestamp (the caller fills in the send time when the application gave none)
     * @param key         serialized key, may be null
     * @param value       serialized value, may be null
     * @param headers     never null, may be empty
     * @param callback    run once when the record is acknowledged or failed, may be null
     * @param maxBlockMs  how long to wait for buffer memory
     * @param clockMs     read once if the record starts a new batch: its linger and delivery timeout count from then
     * @throws RecordTooLargeException  when the record alone exceeds {@code max.request.size} or {@code buffer.memory}
     * @throws BufferExhaustedException when no memory was freed within {@code maxBlockMs}
     * @throws KafkaException           when the accumulator is closed
     */
    public AppendResult append(TopicPartition partition, long timestampMs, byte[] key, byte[] value, Header[] headers,
                               Callback callback, long maxBlockMs, LongSupplier clockMs) throws InterruptedException {
        BatchQueue queue = queueOf(partition);
        if (config.bufferAllocation() == BufferAllocation.INCREMENTAL) {
            AppendResult appended = appendToLastGrowing(queue, timestampMs, key, value, headers, callback, maxBlockMs);
            if (appended != null) {
                return appended;
            }
        } else {
            synchronized (queue) {
                AppendResult appended = appendToLast(queue, timestampMs, key, value, headers, callback);
                if (appended != null) {
                    return appended;
                }
            }
        }

        int recordBytes = recordBytes(partition, key, value, headers);
        // A batch.size above buffer.memory could never be reserved; the whole buffer is the most a batch gets.
        int writeLimit = (int) Math.max(recordBytes, Math.min(config.batchSize(), config.bufferMemory()));
        int batchBytes = config.bufferAllocation().newBatchBytes(writeLimit, recordBytes);
        ByteBuffer buffer = memory.reserve(batchBytes, maxBlockMs);
        boolean memoryUsed = false;
        try {
            synchronized (queue) {
                // Another thread may have started a batch while this one waited for memory.
                AppendResult appended = appendToLast(queue, timestampMs, key, value, headers, callback);
                if (appended != null) {
                    return appended;
                }
                ProducerBatch batch = new ProducerBatch(partition, config.compression(), buffer, writeLimit, clockMs.getAsLong(),
                        notesPhases, this::ended);
                Future<RecordMetadata> future = batch.tryAppend(timestampMs, key, value, headers, callback);
                queue.addLast(batch);
                queue.joinedQueued();
                incomplete.add(batch);
                memoryUsed = true;
                return new AppendResult(future, queue.size() > 1 || batch.isFull(), true, batch.estimatedSizeBytes(), batch.isFull());
            }
        } finally {
            if (!memoryUsed) {
                memory.release(batchBytes, buffer);
            }
        }
    }

    /** Appends to the partition's last batch; null when there is none or it is full. Caller holds the queue's monitor. */
    private AppendResult appendToLast(Deque<ProducerBatch> queue, long timestampMs, byte[] key, byte[] value,
                                      Header[] headers, Callback callback) {
        // Checked under the queue's monitor so that abortAll, which empties each queue under it, misses nothing.
        if (closed) {
            throw new KafkaException("The producer is closed: the record was not sent");
        }
        ProducerBatch last = queue.peekLast();
        if (last == null) {
            return null;
        }
        int bytesBefore = last.estimatedSizeBytes();
        Future<RecordMetadata> future = last.tryAppend(timestampMs, key, value, headers, callback);
        if (future == null) {
            return null;
        }
        boolean full = last.isFull();
        return new AppendResult(future, queue.size() > 1 || full, false, last.estimatedSizeBytes() - bytesBefore, full);
    }

    /**
     * {@link #appendToLast} for batches that grow their memory as records come: while the last batch
     * lacks only memory for the record, reserves what it lacks, without the queue's monitor (the wait
     * may be long, and the sender must be able to take the batch meanwhile), then gives it to the
     * batch if it is still the last and open, and appends again. Null when there is no last batch or
     * it has no room, so a new one is needed.
     */
    private AppendResult appendToLastGrowing(BatchQueue queue, long timestampMs, byte[] key, byte[] value, Header[] headers,
                                             Callback callback, long maxBlockMs) throws InterruptedException {
        ProducerBatch growing = null;
        int reserved = 0;
        try {
            while (true) {
                int growth;
                synchronized (queue) {
                    ProducerBatch last = queue.peekLast();
                    if (reserved > 0 && last == growing && !last.isFull()) {
                        int given = Math.min(reserved, last.growableBytes());
                        if (given > 0) {
                            last.grow(given);
                            reserved -= given;
                        }
                    }
                    AppendResult appended = appendToLast(queue, timestampMs, key, value, headers, callback);
                    if (appended != null || last == null || last.isFull()) {
                        return appended;
                    }
                    growing = last;
                    growth = growthBytes(last);
                }
                if (reserved > 0) {
                    memory.release(reserved, null);
                    reserved = 0;
                }
                memory.reserveToGrow(growth, maxBlockMs);
                reserved = growth;
            }
        } finally {
            if (reserved > 0) {
                memory.release(reserved, null);
            }
        }
    }

    /**
     * How many bytes a batch short of memory for a record grows by: what it lacks, in whole first
     * pieces, and at least as much as it holds, up to its write limit. Caller holds the queue's monitor. Doubling keeps the copies of
     * a growing batch to about its own size in all; memory in use stays within twice what is written.
     */
    private static int growthBytes(ProducerBatch batch) {
        int lacking = batch.memoryShortBytes();
        int pieces = (lacking + BufferAllocation.FIRST_PIECE_BYTES - 1) / BufferAllocation.FIRST_PIECE_BYTES;
        int wanted = Math.max(pieces * BufferAllocation.FIRST_PIECE_BYTES, batch.reservedBytes());
        return Math.min(wanted, batch.growableBytes());
    }

    /** The partition's queue, made (and listed under its topic) by the first batch that needs it. */
    private BatchQueue queueOf(TopicPartition partition) {
        BatchQueue queue = queues.get(partition);
        return queue != null ? queue : queues.computeIfAbsent(partition, this::newQueue);
    }

    private BatchQueue newQueue(TopicPartition partition) {
        BatchQueue queue = new BatchQueue();
        queuesByTopic.compute(partition.topic(), (topic, byPartition) -> {
            BatchQueue[] grown = byPartition == null ? new BatchQueue[partition.partition() + 1]
                    : Arrays.copyOf(byPartition, Math.max(byPartition.length, partition.partition() + 1));
            grown[partition.partition()] = queue;
            return grown;
        });
        return queue;
    }

    /**
     * How many batches the partition's queue held at the sender's last look, as the built-in
     * partitioner's adaptive choice weighs partitions (KIP-794): 0 for an empty queue, -1 for a
     * partition no batch has been made for. A queue whose front batch is a retry keeps the length
     * it had before the retry came back.
     */
    public int queueLoad(String topic, int partition) {
        BatchQueue[] byPartition = queuesByTopic.get(topic);
        BatchQueue queue = byPartition == null || partition >= byPartition.length ? null : byPartition[partition];
        return queue == null ? -1 : queue.load;
    }

    /**
     * Whether a record appended to the partition now would start a new batch: it has none open, or
     * the last has no room for the record (and so closes for appends, as one that refuses a record
     * does). How the sticky partitioner ends a stint at a batch boundary.
     */
    public boolean startsNewBatch(TopicPartition partition, long timestampMs, byte[] key, byte[] value, Header[] headers) {
        BatchQueue queue = queues.get(partition);
        if (queue == null) {
            return true;
        }
        synchronized (queue) {
            ProducerBatch last = queue.peekLast();
            return last == null || last.isFull() || !last.hasRoomFor(timestampMs, key, value, headers);
        }
    }

    /**
     * The record's size, as a batch of its own: a new batch for it counts as full at {@code batch.size},
     * or at this when it is larger, so that it travels alone.
     *
     * @throws RecordTooLargeException when it exceeds {@code max.request.size} or {@code buffer.memory}
     */
    private int recordBytes(TopicPartition partition, byte[] key, byte[] value, Header[] headers) {
        int recordBytes = AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE,
                config.compression().type(), key, value, headers);
        if (recordBytes > config.maxRequestSize()) {
            throw new RecordTooLargeException("A record for " + partition + " is " + recordBytes
                    + " bytes when serialized, more than max.request.size (" + config.maxRequestSize() + ")");
        }
        if (recordBytes > config.bufferMemory()) {
            throw new RecordTooLargeException("A record for " + partition + " is " + recordBytes
                    + " bytes when serialized, more than buffer.memory (" + config.bufferMemory() + ")");
        }
        return recordBytes;
    }

    private void ended(ProducerBatch batch) {
        incomplete.remove(batch);
        memory.release(batch.reservedBytes(), batch.reusableBuffer());
    }

    /**
     * Takes out of the queues the batches that have reached {@code delivery.timeout.ms}, for the
     * caller to fail ({@link ReadyCheck#expiredBatches}; batches in flight are the sender's to
     * expire), and says which partitions should send their first batch now: one pass over the
     * queues, each locked once. A partition is ready when its first batch
     * <ul>
     *   <li>was sent before: once its retry backoff ({@link ProducerBatch#mayGo}) has ended, by time
     *       or by the partition's leader epoch advancing, and not before, whatever else holds;</li>
     *   <li>otherwise: when it is full or has another batch behind it, when it has lingered
     *       {@code linger.ms}, or at once while a flush is in progress, the accumulator is closed or
     *       appenders are waiting for memory (sending is the only way to free it).</li>
     * </ul>
     * Whether the partition may take another batch now (in-flight limits, leader) is the sender's
     * question, not this one's. When it notes phases, the batches of a partition not ready are noted
     * as waiting for the first one's backoff, or else as {@linkplain BatchPhase#QUEUED queued}
     * ({@link BatchTimeline}).
     */
    public ReadyCheck ready(long nowMs) {
        boolean sendEverything = closed || sendAtOnce || flushesInProgress.get() > 0 || memory.waitingThreads() > 0;
        // A list: each partition has one queue, so none comes twice, and a pass costs no hashing.
        List<TopicPartition> ready = new ArrayList<>();
        List<ProducerBatch> expired = List.of();
        long nextCheckDelayMs = Long.MAX_VALUE;
        for (Map.Entry<TopicPartition, BatchQueue> entry : queues.entrySet()) {
            BatchQueue queue = entry.getValue();
            synchronized (queue) {
                ProducerBatch first = queue.peekFirst();
                // Queues are oldest first: the first batch still in time ends the search.
                while (first != null && first.hasReachedDeliveryTimeout(config.deliveryTimeoutMs(), nowMs)) {
                    queue.pollFirst();
                    first.closeForAppends();
                    if (expired.isEmpty()) {
                        expired = new ArrayList<>();
                    }
                    expired.add(first);
                    first = queue.peekFirst();
                }
                if (first == null) {
                    queue.noteLoad(0);
                    continue;
                }
                if (first.attempts() == 0) {
                    // A retry at the front keeps the load from before: a leader move does not make the partition look slow.
                    queue.noteLoad(queue.size());
                }
                long untilExpiryMs = first.createdMs() + config.deliveryTimeoutMs() - nowMs;
                nextCheckDelayMs = Math.min(nextCheckDelayMs, Math.max(0, untilExpiryMs));
                long untilReadyMs = untilReadyMs(entry.getKey(), first, sendEverything || queue.size() > 1, nowMs);
                if (untilReadyMs == 0) {
                    ready.add(entry.getKey());
                } else {
                    nextCheckDelayMs = Math.min(nextCheckDelayMs, untilReadyMs);
                    // Whatever holds the first batch holds those behind it.
                    markWaiting(queue, first.attempts() > 0 ? BatchPhase.BACKOFF : BatchPhase.QUEUED, nowMs);
                }
            }
        }
        return new ReadyCheck(ready, nextCheckDelayMs, expired);
    }

    private long untilReadyMs(TopicPartition partition, ProducerBatch first, boolean sendNow, long nowMs) {
        if (first.attempts() > 0) {
            // A leader change wakes the sender, so only the backoff's time needs a timer.
            return first.mayGo(leaderEpochs.applyAsInt(partition), nowMs) ? 0 : first.backoff().untilMs() - nowMs;
        }
        if (sendNow || first.isFull()) {
            return 0;
        }
        return Math.max(0, first.createdMs() + config.lingerMs() - nowMs);
    }

    /**
     * Takes the first batch of each given partition, in the given order, for one Produce request:
     * at most one batch per partition (a Produce request carries one batch per partition), skipping
     * partitions whose first batch is still backing off, and no batch that would take the request
     * past {@code maxRequestSize} (the first always goes, so a single large record is never stuck).
     * A taken batch accepts no more records; when it notes phases, the batches left behind are noted
     * as {@linkplain BatchPhase#QUEUED queued}.
     */
    public List<ProducerBatch> drain(Collection<TopicPartition> partitions, int maxRequestSize, long nowMs) {
        List<ProducerBatch> drained = new ArrayList<>();
        int requestBytes = 0;
        for (TopicPartition partition : partitions) {
            BatchQueue queue = queues.get(partition);
            if (queue == null) {
                continue;
            }
            synchronized (queue) {
                ProducerBatch first = queue.peekFirst();
                if (first == null || !first.mayGo(leaderEpochs.applyAsInt(partition), nowMs)) {
                    continue;
                }
                if (drained.isEmpty() || requestBytes + first.estimatedSizeBytes() <= maxRequestSize) {
                    queue.pollFirst();
                    first.closeForAppends();
                    drained.add(first);
                    requestBytes += first.estimatedSizeBytes();
                }
                // What stays waits for a later request.
                markWaiting(queue, BatchPhase.QUEUED, nowMs);
            }
        }
        return drained;
    }

    /**
     * Notes that every queued batch of the partition waits in {@code phase} from {@code nowMs} on:
     * the sender found it may not go now ({@link BatchTimeline}). Nothing, when it notes no phases.
     */
    void markWaiting(TopicPartition partition, BatchPhase phase, long nowMs) {
        BatchQueue queue = queues.get(partition);
        if (notesPhases && queue != null) {
            synchronized (queue) {
                markWaiting(queue, phase, nowMs);
            }
        }
    }

    /** Caller holds the queue's monitor. Nothing, when it notes no phases. */
    private void markWaiting(BatchQueue queue, BatchPhase phase, long nowMs) {
        if (notesPhases) {
            queue.noteWaiting(phase, nowMs);
        }
    }

    /**
     * Puts a batch that will be retried back in its partition's queue, at the place its records
     * have ({@link ProducerBatch#precedes}): in front of every batch made after it, behind any
     * earlier batch that is waiting for a retry too. Several batches of a partition in flight
     * may fail together and come back in any order; they are resent in the order they were first
     * sent, which for an idempotent producer is their sequence order. A batch that ended meanwhile
     * (aborted, say) is dropped; one that has not but comes after {@link #abortAll} fails as the
     * others did.
     */
    public void reenqueue(ProducerBatch batch) {
        BatchQueue queue = queueOf(batch.topicPartition());
        synchronized (queue) {
            // Read under the queue's monitor: if abortAll has not set it yet, its pass over this
            // queue, which comes after, finds the batch.
            if (abortedWith == null) {
                insertInRecordOrder(queue, batch);
                return;
            }
        }
        // Only the halves of a split batch can get here unended: abortAll did not know them yet.
        batch.fail(abortedWith);
    }

    private static void insertInRecordOrder(BatchQueue queue, ProducerBatch batch) {
        if (batch.isDone()) {
            return;
        }
        queue.joinedByRetry();
        // A queue is in record order and retries come from its front: the walk is short.
        Deque<ProducerBatch> earlier = new ArrayDeque<>();
        while (!queue.isEmpty() && queue.peekFirst().precedes(batch)) {
            earlier.push(queue.pollFirst());
        }
        queue.addFirst(batch);
        while (!earlier.isEmpty()) {
            queue.addFirst(earlier.pop());
        }
    }

    /**
     * Replaces a batch the broker refused as too large by its two halves ({@link ProducerBatch#split}),
     * in its partition's queue in record order, where {@link #reenqueue} would put it back.
     * The halves are new batches, never sent: each has every retry still to come.
     *
     * @return how many batches took its place: 2, or 0 when it had ended meanwhile (expired or aborted)
     */
    public int splitAndReenqueue(ProducerBatch batch) {
        List<ProducerBatch> halves = batch.split();
        incomplete.addAll(halves);
        // The halves take their batch's place, the first in front of the second.
        halves.forEach(this::reenqueue);
        return halves.size();
    }

    /**
     * Starts a flush: every partition is ready until the returned flush is awaited, and it is done
     * when all batches that hold records now, queued or in flight, have ended.
     */
    public Flush beginFlush() {
        flushesInProgress.incrementAndGet();
        return new Flush(List.copyOf(incomplete), flushesInProgress::decrementAndGet);
    }

    /**
     * Makes every partition ready at once, linger or not, while {@code atOnce}: a transaction being
     * committed or aborted waits for its batches, so none may linger.
     */
    public void sendAtOnce(boolean atOnce) {
        sendAtOnce = atOnce;
    }

    /**
     * Fails the queued batches with {@code error}: only those never sent ({@code neverSent}), or
     * every one, retries included. A transaction being aborted fails the batches the broker never
     * saw and lets the others end as they will, so its sequences stay as the broker has them.
     */
    public void failQueued(RuntimeException error, boolean neverSent) {
        for (BatchQueue queue : queues.values()) {
            List<ProducerBatch> failed = new ArrayList<>();
            synchronized (queue) {
                Iterator<ProducerBatch> batches = queue.iterator();
                while (batches.hasNext()) {
                    ProducerBatch batch = batches.next();
                    if (!neverSent || batch.attempts() == 0 && !batch.recordsSentBefore()) {
                        batches.remove();
                        batch.closeForAppends();
                        failed.add(batch);
                    }
                }
            }
            failed.forEach(batch -> batch.fail(error));
        }
    }

    /** Whether any batch is queued or in flight: a closing producer waits until there is none. */
    public boolean hasIncomplete() {
        return !incomplete.isEmpty();
    }

    /**
     * Refuses further appends (threads waiting for memory fail too) and makes every queued batch
     * ready, so that a graceful close sends what is left.
     */
    public void close() {
        closed = true;
        memory.close();
    }

    /**
     * Closes the accumulator and fails every batch, queued or in flight, with {@code error}: the
     * forced close ({@code close(Duration.ZERO)}). A response arriving later for an aborted batch
     * finds it ended and changes nothing.
     */
    public void abortAll(RuntimeException error) {
        abortedWith = error;
        close();
        for (ProducerBatch batch : List.copyOf(incomplete)) {
            batch.fail(error);
        }
        // Then empty the queues. A batch the sender re-enqueued before the pass above is ended
        // and goes; one re-enqueued after it is refused. Appends check 'closed' under their
        // queue's monitor, so a batch an append added after the snapshot is found here.
        for (BatchQueue queue : queues.values()) {
            List<ProducerBatch> queued;
            synchronized (queue) {
                queued = new ArrayList<>(queue);
                queue.clear();
            }
            queued.forEach(batch -> batch.fail(error));
        }
    }

    /**
     * A partition's batches, oldest first, guarded by its own monitor. It remembers the phase it last
     * noted them all in, so that the sender, which notes the phase of a queue that may not send at
     * every pass, walks it only when the phase changes: a fast sender fills {@code buffer.memory},
     * and a queue may then hold hundreds of batches at every pass.
     */
    private static final class BatchQueue extends ArrayDeque<ProducerBatch> {

        /** The phase every batch in it was noted waiting in; null when one that joined since may be in another. */
        private BatchPhase noted;
        /** Its length at the sender's last look ({@link #queueLoad}); written by that thread, read by appenders. */
        private volatile int load;

        /** Notes its length; written only when it changed, as the sender looks at every queue at every pass. */
        void noteLoad(int length) {
            if (load != length) {
                load = length;
            }
        }

        /** From {@code nowMs} on, every batch in it waits in {@code phase}. */
        void noteWaiting(BatchPhase phase, long nowMs) {
            if (phase == noted) {
                return;
            }
            for (ProducerBatch batch : this) {
                batch.timeline().waiting(phase, BatchTimeline.NO_NODE, nowMs);
            }
            noted = phase;
        }

        /** A new batch joined at the back, {@linkplain BatchPhase#QUEUED queued} since its creation. */
        void joinedQueued() {
            if (noted != BatchPhase.QUEUED) {
                noted = null;
            }
        }

        /** A batch answered, or a half of one, joined: it is in whatever phase its answer left it. */
        void joinedByRetry() {
            noted = null;
        }
    }
}
