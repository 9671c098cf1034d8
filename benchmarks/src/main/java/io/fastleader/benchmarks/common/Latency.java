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

    /** This ÷ {@code other}, figure by figure, for the ratio rows (fastleader ÷ the other client); null where {@code other}'s is 0. */
    public Ratios over(Latency other) {
        return new Ratios(ratio(p50, other.p50), ratio(p99, other.p99), ratio(p999, other.p999), ratio(max, other.max));
    }

    private static Double ratio(double mine, double theirs) {
        return theirs == 0 ? null : mine / theirs;
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /** Latency figures of one client divided by another's; null where the other's figure is 0. */
    public record Ratios(Double p50, Double p99, Double p999, Double max) {
    }
}
