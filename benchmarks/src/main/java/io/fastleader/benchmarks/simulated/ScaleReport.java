package io.fastleader.benchmarks.simulated;

import java.util.Locale;
import java.util.Map;

/** The scale benchmark's table: a header and a row per cell and variant, times in milliseconds. */
final class ScaleReport {

    private static final String FORMAT = "%7s %10s %-8s %-20s %7s %6s %8s %8s %8s %8s %9s %8s %9s %9s %9s %9s %7s";

    private ScaleReport() {
    }

    static String header() {
        return String.format(Locale.ROOT, FORMAT, "brokers", "partitions", "scenario", "variant", "moved", "failed", "p50", "p99",
            "p99.9", "max", "cpu ms", "cpu µs/p", "Metadata", "Produce", "other req", "sim cpu", "wall s");
    }

    static String row(CellResult result) {
        RecoverySummary recovery = result.recoveryMicros();
        Map<String, Long> requests = result.requests();
        long metadata = requests.getOrDefault("Metadata", 0L);
        long produce = requests.getOrDefault("Produce", 0L);
        long other = requests.values().stream().mapToLong(Long::longValue).sum() - metadata - produce;
        return String.format(Locale.ROOT, FORMAT, result.brokers(), result.partitions(), result.scenario(), result.variant(),
            result.movedPartitions(), result.failed(), millis(recovery, recovery.p50()), millis(recovery, recovery.p99()),
            millis(recovery, recovery.p999()), millis(recovery, recovery.max()), String.format(Locale.ROOT, "%.0f", result.clientCpuMillis()),
            String.format(Locale.ROOT, "%.1f", result.clientCpuMicrosPerPartition()), metadata, produce, other,
            String.format(Locale.ROOT, "%.0f", result.simulatedCpuMillis()), String.format(Locale.ROOT, "%.1f", result.wallMillis() / 1000.0));
    }

    /** {@code micros} of {@code recovery} in ms, or a dash when no record was acknowledged. */
    private static String millis(RecoverySummary recovery, long micros) {
        return recovery.count() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }
}
