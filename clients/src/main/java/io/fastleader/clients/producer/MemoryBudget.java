package io.fastleader.clients.producer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.KafkaException;

/**
 * {@code buffer.memory}: the bytes all batches may hold together. A batch reserves its bytes
 * when created and gives them back when it ends.
 *
 * <p>Reservations are served first come, first served: a thread that must wait queues, and only
 * the head of the queue may take freed memory. Without the queue a stream of small batches could
 * starve a large one forever.
 */
final class MemoryBudget {

    private final long totalBytes;
    private final ProducerMetrics metrics;
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Condition> waiters = new ArrayDeque<>();
    private long availableBytes;
    private boolean closed;

    MemoryBudget(long totalBytes, ProducerMetrics metrics) {
        this.totalBytes = totalBytes;
        this.metrics = metrics;
        this.availableBytes = totalBytes;
    }

    /**
     * Takes {@code bytes}, waiting at most {@code maxBlockMs} for other batches to give memory back.
     *
     * @throws BufferExhaustedException when the wait runs out (a Kafka {@code TimeoutException})
     * @throws KafkaException           when the budget is closed meanwhile
     */
    void reserve(int bytes, long maxBlockMs) throws InterruptedException {
        lock.lock();
        try {
            ensureOpen();
            if (waiters.isEmpty() && availableBytes >= bytes) {
                availableBytes -= bytes;
                return;
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
                availableBytes -= bytes;
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

    /** Gives {@code bytes} back and wakes the first waiting thread. */
    void release(int bytes) {
        lock.lock();
        try {
            availableBytes += bytes;
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
