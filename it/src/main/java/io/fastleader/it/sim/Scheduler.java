package io.fastleader.it.sim;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A simulated cluster's one timer thread ({@code <cluster name>-timer}), for what happens later:
 * a Fetch answered when its wait runs out, an answer held back by {@link Faults}. Tasks run one at a time, in the order of their due
 * times. {@link #close()} cancels what is pending and waits for the thread to end.
 */
final class Scheduler implements AutoCloseable {

    private final ScheduledExecutorService executor;
    private volatile Thread thread;

    Scheduler(String clusterName) {
        this.executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread timer = new Thread(task, clusterName + "-timer");
            timer.setDaemon(true);
            thread = timer;
            return timer;
        });
    }

    /** Runs {@code task} once, {@code delayMs} from now. */
    ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(1, TimeUnit.MINUTES);
            // the executor is terminated before its thread has quite ended
            Thread timer = thread;
            if (timer != null) {
                timer.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
