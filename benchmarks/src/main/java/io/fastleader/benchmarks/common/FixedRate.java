package io.fastleader.benchmarks.common;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Calls an action at a fixed rate from one thread of its own: {@code rate / 200} calls (at least
 * one) every tick, ticks spaced so the calls add up to {@code rate} per second. A tick that runs
 * late is followed at once by the ones it held up, so the rate holds on average even on a busy
 * machine ({@link ScheduledExecutorService#scheduleAtFixedRate}).
 */
public final class FixedRate implements AutoCloseable {

    /** Ticks per second at most; each calls the action {@code rate / TICKS_PER_SECOND} times. */
    private static final int TICKS_PER_SECOND = 200;

    private final ScheduledExecutorService ticker;

    private FixedRate(ScheduledExecutorService ticker) {
        this.ticker = ticker;
    }

    /** Starts calling {@code action} {@code rate} times per second on a thread named {@code threadName}. */
    public static FixedRate start(String threadName, int rate, Runnable action) {
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(task -> new Thread(task, threadName));
        int perTick = Math.max(1, rate / TICKS_PER_SECOND);
        long periodMicros = 1_000_000L * perTick / rate;
        ticker.scheduleAtFixedRate(() -> {
            for (int i = 0; i < perTick; i++) {
                action.run();
            }
        }, 0, periodMicros, TimeUnit.MICROSECONDS);
        return new FixedRate(ticker);
    }

    /**
     * Stops calling and waits for a call under way to end.
     *
     * @throws IllegalStateException if it did not end within 30 s
     */
    public void stop() throws InterruptedException {
        ticker.shutdown();
        if (!ticker.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the fixed-rate thread did not stop");
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
