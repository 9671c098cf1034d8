package io.fastleader.clients.consumer;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.common.utils.Time;

/**
 * A {@link Time} that moves only when the test sleeps on it, for metrics measured against the
 * clock of their {@code Metrics} (kafka-clients' own {@code MockTime} ships only in its test jar).
 */
final class ManualTime implements Time {

    private long nanos = TimeUnit.MILLISECONDS.toNanos(1_000_000);

    @Override
    public long milliseconds() {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Override
    public long nanoseconds() {
        return nanos;
    }

    /** Moves the clock on by {@code ms}, without waiting. */
    @Override
    public void sleep(long ms) {
        nanos += TimeUnit.MILLISECONDS.toNanos(ms);
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        throw new UnsupportedOperationException("nothing waits on a manual clock");
    }
}
