package io.fastleader.benchmarks.simulated;

import java.util.Arrays;

/**
 * Per-partition recovery times of one cell and variant, in microseconds: how many, and the
 * nearest-rank percentiles (the smallest value with at least that share of the values at or
 * below it), so a p99.9 of fewer than 1,000 values is their maximum.
 *
 * @param count how many partitions' records were acknowledged
 * @param p50   the median
 * @param p99   the 99th percentile
 * @param p999  the 99.9th percentile
 * @param max   the largest
 */
record RecoverySummary(int count, long p50, long p99, long p999, long max) {

    /** The summary of {@code micros}; all zero for none. */
    static RecoverySummary of(long[] micros) {
        if (micros.length == 0) {
            return new RecoverySummary(0, 0, 0, 0, 0);
        }
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        return new RecoverySummary(sorted.length, rank(sorted, 0.5), rank(sorted, 0.99), rank(sorted, 0.999),
            sorted[sorted.length - 1]);
    }

    private static long rank(long[] sorted, double quantile) {
        int rank = (int) Math.ceil(quantile * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
