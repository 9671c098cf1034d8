package io.fastleader.clients.network;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daemon threads one part of a client starts, kept so that closing the client can wait for
 * them to end: no client thread outlives {@code close}. An executor's {@code awaitTermination} is
 * not enough for that, since it returns while its last worker is still finishing.
 */
public final class ClientThreads {

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
     * Waits up to {@code boundMillis} in all for every thread started here to end, skipping the
     * calling thread; the caller has already told them to stop. An interrupt does not cut the wait
     * short, since the caller is closing: a client closed by an interrupted thread (a pool's own
     * connect thread, interrupted by the pool's close) still leaves no thread behind. The interrupt
     * is kept for the caller.
     */
    public void awaitEnd(long boundMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        boolean interrupted = false;
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
