package io.fastleader.clients.consumer.group;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
/**
 * A state owner for tests that drive the consumer's request loops without a consumer (here and in
 * {@code it/}, through this module's test jar): one JDK scheduler thread runs every answer and
 * retry in order. No application thread waits on it, so a callback runs in place.
 */
public final class SingleThreadOwner implements StateOwner, AutoCloseable {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "test-state-owner");
        thread.setDaemon(true);
        return thread;
    });

    @Override
    public void execute(Runnable task) {
        scheduler.execute(task);
    }

    @Override
    public Runnable after(long delayMs, Runnable task) {
        ScheduledFuture<?> scheduled = scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        return () -> scheduled.cancel(false);
    }

    @Override
    public void onApplicationThread(Runnable callback) {
        callback.run();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
