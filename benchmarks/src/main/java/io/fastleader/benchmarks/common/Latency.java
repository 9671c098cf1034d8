package io.fastleader.benchmarks.common;

import org.HdrHistogram.Histogram;

/**
 * A latency distribution, in milliseconds, as the benchmark tables print it.
 *
 * @param records how many latencies it holds
 */
public record Latency(long records, double p50, double p99, double p999, double max) {

    /** The summary of {@code micros}, a histogram of microseconds. */
    public static Latency of(Histogram micros) {
        return new Latency(micros.getTotalCount(), millis(micros.getValueAtPercentile(50)),
            millis(micros.getValueAtPercentile(99)), millis(micros.getValueAtPercentile(99.9)), millis(micros.getMaxValue()));
    }

    /** This ÷ {@code other}, figure by figure, for the ratio rows (fastleader ÷ the other client). */
    public Ratios over(Latency other) {
        return new Ratios(p50 / other.p50, p99 / other.p99, p999 / other.p999, max / other.max);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /** Latency figures of one client divided by another's. */
    public record Ratios(double p50, double p99, double p999, double max) {
    }
}
