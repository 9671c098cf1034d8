package io.fastleader.benchmarks.producer;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.Latency;

/**
 * The side-by-side tables with ratios, the verdicts on issue 34's steady goal and issue 6's
 * reassign targets, and the JSON file with every figure. Ratios are always fastleader ÷ the other
 * client, so below 1 means fastleader's latency or CPU is lower, above 1 means its throughput is
 * higher.
 */
final class Report {

    /** Issue 6: reassign p99.9 at most this times KafkaProducer's. */
    static final double P999_VS_KAFKA_TARGET = 0.5;
    /** Issue 6: reassign p99.9 at most this times the hints-disabled run's. */
    static final double P999_VS_NO_HINTS_TARGET = 0.2;

    private final Map<String, Object> json = new LinkedHashMap<>();

    /** A report of a run on this machine with {@code options}; {@code environment} describes the machine and load. */
    Report(BenchmarkOptions options, Map<String, Object> environment) {
        json.put("environment", environment);
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("scenarios", options.scenarios());
        settings.put("recordBytes", options.recordBytes());
        settings.put("steadyLingerMs", options.steadyLingerMs());
        settings.put("steadyMaxInFlightRequestsPerConnection", options.steadyMaxInFlight());
        settings.put("steadyWarmUpSeconds", options.steadyWarmUp().toSeconds());
        settings.put("steadyDurationSeconds", options.steadyDuration().toSeconds());
        settings.put("steadyRepetitions", options.steadyRepetitions());
        settings.put("steadyProfileJfr", options.profileJfr() == null ? null : options.profileJfr().toString());
        settings.put("reassignRecordsPerSecondPerClient", options.rate());
        settings.put("reassignPartitions", options.partitions());
        settings.put("reassignRotations", options.rotations());
        settings.put("reassignWarmUpSeconds", options.reassignWarmUp().toSeconds());
        settings.put("reassignSettleSeconds", options.settle().toSeconds());
        settings.put("reassignMaxInFlightRequestsPerConnection", options.reassignInFlight());
        json.put("options", settings);
    }

    /**
     * Prints the steady turns and the grid, one row per cell with the verdict on issue 34's goal,
     * to {@code out}, and keeps their figures for the JSON file.
     */
    void steady(List<SteadyScenario.SteadyResult> results, List<SteadyCell> grid, PrintStream out) {
        out.println();
        out.println("steady: records/s acknowledged in the measured window; CPU per record in µs (client = the client's threads + its sending thread; process = whole JVM, brokers included)");
        out.printf("%-22s %7s %6s %9s %4s %5s %12s %12s %12s %8s%n", "client", "bytes", "linger", "in-flight", "rep", "turn", "records/s",
            "client CPU", "process CPU", "errors");
        for (SteadyScenario.SteadyResult r : results) {
            out.printf("%-22s %7d %6d %9d %4d %5d %,12.0f %12.1f %12.1f %8d%n", r.client(), r.cell().recordBytes(), r.cell().lingerMs(),
                r.cell().maxInFlight(), r.repetition(), r.turn(), r.recordsPerSecond(), r.clientCpuMicrosPerRecord(),
                r.processCpuMicrosPerRecord(), r.errors());
        }
        List<CellComparison> cells = grid.stream().map(cell -> CellComparison.of(cell, results)).toList();
        out.println();
        out.printf("steady grid: means per cell, ratios fastleader ÷ kafka-clients; goal (issue 34): records/s >= %.1fx and client CPU/record <= %.1fx%n",
            CellComparison.THROUGHPUT_GOAL, CellComparison.CLIENT_CPU_GOAL);
        out.printf("%7s %6s %9s | %12s %12s %7s | %10s %10s %7s | %7s | %s%n", "bytes", "linger", "in-flight",
            "fastleader/s", "kafka/s", "÷", "fl µs CPU", "kafka µs", "÷", "÷ proc", "verdict");
        for (CellComparison c : cells) {
            out.printf("%7d %6d %9d | %,12.0f %,12.0f %7.2f | %10.1f %10.1f %7.2f | %7.2f | %s%n", c.cell().recordBytes(), c.cell().lingerMs(),
                c.cell().maxInFlight(), c.fastleader().recordsPerSecond(), c.kafkaClients().recordsPerSecond(), c.throughputRatio(),
                c.fastleader().clientCpuMicrosPerRecord(), c.kafkaClients().clientCpuMicrosPerRecord(), c.clientCpuRatio(),
                c.processCpuRatio(), c.verdict());
        }
        Map<String, Object> steady = new LinkedHashMap<>();
        steady.put("turns", results);
        steady.put("goal", Map.of("throughputRatioAtLeast", CellComparison.THROUGHPUT_GOAL,
            "clientCpuRatioAtMost", CellComparison.CLIENT_CPU_GOAL));
        steady.put("cells", cells);
        json.put("steady", steady);
    }

    /** Prints the reassign table to {@code out} and keeps its figures for the JSON file. */
    void reassign(ReassignResult result, PrintStream out) {
        out.println();
        out.println("reassign: send-to-callback latency (ms) of records sent from the first rotation on; rotations took "
            + result.rotationMillis() + " ms");
        out.printf("%-22s %8s %8s %7s %9s %9s %9s %9s %9s %9s %9s%n", "client", "sent", "acked", "errors", "p50", "p99", "p99.9",
            "max", "hints", "skipped", "retries");
        for (ReassignResult.ClientResult c : result.clients()) {
            Latency l = c.latency();
            out.printf("%-22s %8d %8d %7d %9.1f %9.1f %9.1f %9.1f %9s %9s %9s%n", c.client(), c.sent(), c.acked(), c.errors(),
                l.p50(), l.p99(), l.p999(), l.max(), metric(c, "leader-hints-accepted-total"),
                metric(c, "retry-backoffs-skipped-total"), metric(c, "record-retry-total"));
            if (c.firstError() != null) {
                out.println("  first error of " + c.client() + ": " + c.firstError());
            }
        }
        Latency fast = result.client(ClientVariant.FASTLEADER).latency();
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (ClientVariant other : List.of(ClientVariant.KAFKA_CLIENTS, ClientVariant.FASTLEADER_NO_HINTS)) {
            Latency theirs = result.client(other).latency();
            Map<String, Double> ratio = new LinkedHashMap<>();
            ratio.put("p50", fast.p50() / theirs.p50());
            ratio.put("p99", fast.p99() / theirs.p99());
            ratio.put("p999", fast.p999() / theirs.p999());
            ratio.put("max", fast.max() / theirs.max());
            ratios.put(other.label(), ratio);
            out.printf("%-22s %8s %8s %7s %9.2f %9.2f %9.2f %9.2f%n", "fastleader ÷ " + shortName(other), "", "", "",
                ratio.get("p50"), ratio.get("p99"), ratio.get("p999"), ratio.get("max"));
        }
        Map<String, Object> targets = new LinkedHashMap<>();
        targets.put("p999VsKafkaClients", target(out, "KafkaProducer", ratios, ClientVariant.KAFKA_CLIENTS, P999_VS_KAFKA_TARGET));
        targets.put("p999VsNoHints", target(out, "the no-hints run", ratios, ClientVariant.FASTLEADER_NO_HINTS, P999_VS_NO_HINTS_TARGET));
        Map<String, Object> reassign = new LinkedHashMap<>();
        reassign.put("rotationMillis", result.rotationMillis());
        reassign.put("clients", result.clients());
        reassign.put("fastleaderOver", ratios);
        reassign.put("targets", targets);
        json.put("reassign", reassign);
    }

    /** Every figure kept so far, for the JSON file. */
    Map<String, Object> figures() {
        return json;
    }

    private static Map<String, Object> target(PrintStream out, String against, Map<String, Object> ratios, ClientVariant other, double atMost) {
        @SuppressWarnings("unchecked")
        double ratio = ((Map<String, Double>) ratios.get(other.label())).get("p999");
        String verdict = ClusterBenchmark.verdict(ratio <= atMost);
        out.printf("target: p99.9 <= %.1fx %s: %.2fx, %s%n", atMost, against, ratio, verdict);
        return Map.of("atMost", atMost, "ratio", ratio, "verdict", verdict);
    }

    private static String shortName(ClientVariant other) {
        return other == ClientVariant.KAFKA_CLIENTS ? "kafka" : "no-hints";
    }

    private static String metric(ReassignResult.ClientResult client, String name) {
        Double value = client.metrics().get(name);
        return value == null ? "-" : String.format("%.0f", value);
    }
}
