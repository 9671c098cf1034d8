package io.fastleader.clients.producer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.KafkaException;

/**
 * {@code buffer.memory}: the bytes all batches may hold together. A batch reserves its bytes
 * when created, and more as it grows when it may ({@code buffer.memory.allocation.strategy=incremental}),
 * and gives them back when it ends.
 *
 * <p>Buffers a new batch is made with are kept for the next batch once given back, as kafka-clients'
 * {@code BufferPool} keeps them: in steady state a producer then allocates no batch memory at all,
 * and its batches, long-lived by the young collector's measure, are not copied from one survivor
 * space to the next. The kept buffers never exceed what is unreserved, so the heap batches use
 * stays within {@code buffer.memory}.
 *
 * <p>Reservations are served first come, first served: a thread that must wait queues, and only
 * the head of the queue may take freed memory. Without the queue a stream of small batches could
 * starve a large one forever.
 */
final class MemoryBudget {

    private final long totalBytes;
    /** The bytes a new batch starts with, unless its first record is larger: buffers of exactly this size are kept once given back. */
    private final int poolableBytes;
    private final ProducerMetrics metrics;
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Condition> waiters = new ArrayDeque<>();
    /** Buffers given back, most recently given first; together never more than {@link #availableBytes}. */
    private final Deque<ByteBuffer> free = new ArrayDeque<>();
    private long availableBytes;
    private boolean closed;

    MemoryBudget(long totalBytes, int poolableBytes, ProducerMetrics metrics) {
        this.totalBytes = totalBytes;
        this.poolableBytes = poolableBytes;
        this.metrics = metrics;
        this.availableBytes = totalBytes;
    }

    /**
     * Takes {@code bytes}, waiting at most {@code maxBlockMs} for other batches to give memory back.
     *
     * @return a buffer of {@code bytes} for the batch: one given back before, if it is of
     *         {@code batch.size} and one is kept, else a new one
     * @throws BufferExhaustedException when the wait runs out (a Kafka {@code TimeoutException})
     * @throws KafkaException           when the budget is closed meanwhile
     */
    ByteBuffer reserve(int bytes, long maxBlockMs) throws InterruptedException {
        ByteBuffer kept = take(bytes, true, maxBlockMs);
        return kept != null ? kept.clear() : ByteBuffer.allocate(bytes);
    }

    /**
     * Takes {@code bytes} for a batch to grow by, waiting as {@link #reserve} waits; no buffer: the
     * batch makes its own larger one.
     */
    void reserveToGrow(int bytes, long maxBlockMs) throws InterruptedException {
        take(bytes, false, maxBlockMs);
    }

    /** Takes {@code bytes} and, when a buffer is wanted and they are the poolable size, a kept one if there is one. */
    private ByteBuffer take(int bytes, boolean wantsBuffer, long maxBlockMs) throws InterruptedException {
        lock.lock();
        try {
            ensureOpen();
            if (waiters.isEmpty() && availableBytes >= bytes) {
                return takeLocked(bytes, wantsBuffer);
            }
            Condition turn = lock.newCondition();
            waiters.addLast(turn);
            long waitStartNanos = System.nanoTime();
            try {
                long remainingNanos = TimeUnit.MILLISECONDS.toNanos(maxBlockMs);
                while (waiters.peekFirst() != turn || availableBytes < bytes) {
                    ensureOpen();
                    if (remainingNanos <= 0) {
                        metrics.bufferExhausted();
                        throw new BufferExhaustedException("Failed to allocate " + bytes + " bytes within max.block.ms ("
                                + maxBlockMs + " ms): buffer.memory (" + totalBytes + " bytes) is full of unsent "
                                + "or unacknowledged batches; the brokers may be slow or unreachable");
                    }
                    remainingNanos = turn.awaitNanos(remainingNanos);
                }
                return takeLocked(bytes, wantsBuffer);
            } finally {
                metrics.bufferWaited(System.nanoTime() - waitStartNanos);
                waiters.remove(turn);
                // Whether this thread got its memory or gave up, the next in line may now fit.
                signalHead();
            }
        } finally {
            lock.unlock();
        }
    }

    private ByteBuffer takeLocked(int bytes, boolean wantsBuffer) {
        availableBytes -= bytes;
        ByteBuffer kept = wantsBuffer && bytes == poolableBytes ? free.pollFirst() : null;
        // Kept buffers are unreserved memory: fewer of them once less is unreserved.
        while ((long) free.size() * poolableBytes > availableBytes) {
            free.pollLast();
        }
        return kept;
    }

    /**
     * Gives {@code bytes} back and wakes the first waiting thread.
     *
     * @param buffer the batch's buffer, kept for the next batch if it is of {@code batch.size}; null
     *               when it may still be read (a request carrying it may not be written yet)
     */
    void release(int bytes, ByteBuffer buffer) {
        lock.lock();
        try {
            availableBytes += bytes;
            if (buffer != null && buffer.capacity() == poolableBytes && bytes == poolableBytes) {
                free.addFirst(buffer);
            }
            signalHead();
        } finally {
            lock.unlock();
        }
    }

    /** How many threads are waiting for memory: while any is, everything queued should be sent. */
    int waitingThreads() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    long totalBytes() {
        return totalBytes;
    }

    long availableBytes() {
        lock.lock();
        try {
            return availableBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Fails every waiting and later reservation: the producer is closing. */
    void close() {
        lock.lock();
        try {
            closed = true;
            waiters.forEach(Condition::signal);
        } finally {
            lock.unlock();
        }
    }

    private void signalHead() {
        Condition head = waiters.peekFirst();
        if (head != null) {
            head.signal();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new KafkaException("The producer was closed while this send waited for buffer memory");
        }
    }
}
