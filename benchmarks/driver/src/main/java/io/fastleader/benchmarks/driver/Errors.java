package io.fastleader.benchmarks.driver;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** What went wrong in a steady benchmark turn: how often, and the first of it, which its result reports. */
final class Errors {

    private final AtomicLong count = new AtomicLong();
    private final AtomicReference<String> first = new AtomicReference<>();

    /** One more error; {@code what} is kept if it is the first. Any thread may call it. */
    void add(String what) {
        count.incrementAndGet();
        first.compareAndSet(null, what);
    }

    /** Errors so far. */
    long count() {
        return count.get();
    }

    /** The first error, or null if there was none. */
    String first() {
        return first.get();
    }
}
