package io.fastleader.benchmarks.consumer;

import java.util.Arrays;

/**
 * One long per record number, growing as records are numbered, for a figure that one thread writes
 * and others read (an acknowledgement time, a receipt count). Unset entries read {@link #NONE}.
 */
final class LongColumn {

    /** The value of an entry never set. */
    static final long NONE = Long.MIN_VALUE;

    private long[] values = empty(1 << 16);

    /** Sets the entry of record {@code n}. */
    synchronized void set(long n, long value) {
        if (n >= values.length) {
            long[] grown = empty((int) Math.max(n + 1, 2L * values.length));
            System.arraycopy(values, 0, grown, 0, values.length);
            values = grown;
        }
        values[(int) n] = value;
    }

    /** The entry of record {@code n}, {@link #NONE} if never set. */
    synchronized long get(long n) {
        return n < values.length ? values[(int) n] : NONE;
    }

    /** Adds one to the entry of record {@code n} (an unset entry counts as 0) and returns what it was before. */
    synchronized long increment(long n) {
        long before = get(n);
        long previous = before == NONE ? 0 : before;
        set(n, previous + 1);
        return previous;
    }

    private static long[] empty(int length) {
        long[] values = new long[length];
        Arrays.fill(values, NONE);
        return values;
    }
}
