package io.fastleader.clients.network;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daemon threads one part of a client starts, kept so that closing the client can wait for
 * them to end: no client thread outlives {@code close}. Neither an executor's end nor its threads'
 * is enough alone: an executor counts as ended while its last worker is still finishing, and a
 * thread it has made but not yet started is not alive, so closing waits for both, in that order.
 */
public final class ClientThreads {

    /** The end of the executor that runs on these threads, after which it starts none of them. */
    @FunctionalInterface
    public interface ExecutorEnd {
        /** Waits up to {@code timeoutMillis} for the executor to end; false if it has not. */
        boolean await(long timeoutMillis) throws InterruptedException;
    }

    private final Set<Thread> started = ConcurrentHashMap.newKeySet();

    /** A factory of daemon threads named {@code prefix} followed by a counter from 1. */
    public ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            // Only ended threads go: one made but not yet started is not alive either, and must still be waited for.
            started.removeIf(thread -> thread.getState() == Thread.State.TERMINATED);
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            started.add(thread);
            return thread;
        };
    }

    /**
     * Waits up to {@code boundMillis} in all for the executor to end and then for every thread
     * started here to end, skipping the calling thread (and the executor's end, when that is one of
     * its threads); the caller has already told the executor to stop. An interrupt does not cut
     * the wait short, since the caller is closing: a client closed by an interrupted thread
     * still leaves no thread behind.
     * The interrupt is kept for the caller.
     */
    public void awaitEnd(ExecutorEnd executorEnd, long boundMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        boolean interrupted = false;
        // Called on one of the executor's own threads, the executor cannot end before the call returns.
        boolean ended = started.contains(Thread.currentThread());
        while (!ended) {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMillis <= 0) {
                break;
            }
            try {
                ended = executorEnd.await(leftMillis);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        for (Thread thread : started) {
            while (thread != Thread.currentThread() && thread.isAlive()) {
                long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMillis <= 0) {
                    break;
                }
                try {
                    thread.join(leftMillis);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
