package io.fastleader.it.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Every client {@code close} of a run, timed against the timeout it was given: a close that
 * overruns its timeout is a failure (a user's shutdown hook would be cut short).
 */
final class Closes {

    /** What the JVM may add to a close's own timeout before it counts as late: scheduling on two busy cores. */
    static final Duration SLACK = Duration.ofSeconds(2);

    /** A client closed with {@code timeout}, which took {@code took}, or threw {@code failure}. */
    record Close(String what, Duration timeout, Duration took, Throwable failure) {
        boolean late() {
            return took.compareTo(timeout.plus(SLACK)) > 0;
        }
    }

    /** A close that takes the timeout it is given. */
    @FunctionalInterface
    interface Closer {
        void close(Duration timeout) throws Exception;
    }

    private final List<Close> closes = new ArrayList<>();

    /** Closes {@code what} with {@code timeout} through {@code closer}, and keeps how long it took. */
    void close(String what, Duration timeout, Closer closer) {
        long start = System.nanoTime();
        Throwable failure = null;
        try {
            closer.close(timeout);
        } catch (Exception e) {
            failure = e;
        }
        Close close = new Close(what, timeout, Duration.ofNanos(System.nanoTime() - start), failure);
        synchronized (this) {
            closes.add(close);
        }
    }

    synchronized List<Close> all() {
        return List.copyOf(closes);
    }

    /** The slowest close, or none. */
    synchronized Duration slowest() {
        return closes.stream().map(Close::took).max(Duration::compareTo).orElse(Duration.ZERO);
    }
}
