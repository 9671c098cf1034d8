package io.fastleader.clients.consumer;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Work handed to the consumer's application thread. Responses arrive on transport threads; they
 * only enqueue here, and the thread inside {@code poll} (or another blocking call) applies them,
 * so every piece of consumer state has one writer and needs no lock.
 */
final class EventInbox implements Executor {

    private static final Runnable NOTHING = () -> { };

    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();

    @Override
    public void execute(Runnable event) {
        queue.add(event);
    }

    /** Makes a thread waiting in {@link #runPending} return. */
    void wakeUp() {
        queue.add(NOTHING);
    }

    /**
     * Runs every queued event; when none is queued, waits up to {@code maxWaitMs} for one first.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void runPending(long maxWaitMs) throws InterruptedException {
        Runnable event = maxWaitMs > 0 ? queue.poll(maxWaitMs, TimeUnit.MILLISECONDS) : queue.poll();
        while (event != null) {
            event.run();
            event = queue.poll();
        }
    }
}
