package io.fastleader.benchmarks.consumer;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.Latency;

/**
 * The side-by-side tables of a {@link LeaderMoveRun} with ratios (fastleader ÷ kafka-clients:
 * below 1 means fastleader's figure is lower), the verdict on the target, and every figure
 * for the JSON file.
 */
final class ConsumerReport {

    private static final String QUIET = "quiet";

    /** The target: fastleader's p99.9 through the moves at most this times KafkaConsumer's. */
    static final double P999_VS_KAFKA_TARGET = 0.5;

    private final Map<String, Object> json = new LinkedHashMap<>();

    /** A report of a run with {@code options} on the machine {@code environment} describes. */
    ConsumerReport(ConsumerBenchmarkOptions options, Map<String, Object> environment) {
        json.put("environment", environment);
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("warmUpSeconds", options.warmUp().toSeconds());
        settings.put("durationSeconds", options.duration().toSeconds());
        settings.put("moves", options.moves());
        settings.put("windowMillis", options.window().toMillis());
        settings.put("settleSeconds", options.settle().toSeconds());
        settings.put("recordsPerSecond", options.rate());
        settings.put("recordBytes", options.recordBytes());
        settings.put("partitions", options.partitions());
        settings.put("variants", options.variants().stream().map(ClientVariant::label).toList());
        settings.put("producerMaxInFlightRequestsPerConnection", options.producerInFlight());
        settings.put("drainSeconds", options.drain().toSeconds());
        settings.put("countKafkaRequests", options.countKafkaRequests());
        json.put("options", settings);
    }

    /** Prints the tables to {@code out} and keeps the figures for the JSON file. */
    void add(MoveRunResult result, PrintStream out) {
        out.println();
        out.printf("windows: %s%n", String.join(", ", result.windows().stream()
            .map(w -> String.format("%s %d ms%s, JVM CPU %.2f cores", w.name(), w.lengthMillis(),
                w.rotationMillis() == null ? "" : " (rotation " + w.rotationMillis() + " ms)", w.processCores()))
            .toList()));
        MoveRunResult.ProducerFigures producer = result.producer();
        out.printf("producer: %,d sent, %,d acknowledged, %,d failed%s%n", producer.sent(), producer.acked(), producer.failed(),
            producer.firstError() == null ? "" : " (first: " + producer.firstError() + ")");

        out.println();
        out.println("records: consumed by each consumer against acknowledged by the producer");
        out.printf("%-22s %10s %10s %8s %10s %10s  %s%n", "variant", "acked", "consumed", "missing", "duplicated", "unacked", "check");
        for (MoveRunResult.VariantResult v : result.variants()) {
            MoveRunResult.RecordCheck r = v.records();
            out.printf("%-22s %,10d %,10d %,8d %,10d %,10d  %s%n", v.variant(), r.acknowledged(), r.consumed(), r.missing(),
                r.duplicated(), r.unacknowledgedConsumed(), r.exact() ? "exact" : "NOT EXACT");
            if (!r.missingExamples().isEmpty()) {
                out.println("  first missing (record partition@offset): " + r.missingExamples());
            }
            if (!r.duplicatedExamples().isEmpty()) {
                out.println("  first duplicated (record partition@offset ×times): " + r.duplicatedExamples());
            }
            if (v.pollErrors() > 0) {
                out.println("  " + v.pollErrors() + " polls threw; first: " + v.firstPollError());
            }
        }

        MoveRunResult.VariantResult kafka = result.variant(ClientVariant.KAFKA_CLIENTS);
        Map<String, Map<String, Object>> ratios = new LinkedHashMap<>();
        latencyTable(out, "end-to-end latency (ms, CreateTime to poll)", result, kafka, MoveRunResult.VariantResult::endToEnd,
            "endToEnd", ratios);
        latencyTable(out, "producer acknowledgement to poll (ms): the consumer's own share of the delay; a record polled before the "
            + "producer had its acknowledgement counts as 0", result, kafka, MoveRunResult.VariantResult::ackToPoll, "ackToPoll", ratios);
        for (MoveRunResult.VariantResult v : result.variants()) {
            out.printf("%s: %,d of %,d records of the move windows polled before the producer's acknowledgement arrived; slowest from "
                + "acknowledgement to poll (record partition@offset window +ms after its start: end-to-end / ack-to-poll ms):%n",
                v.variant(), v.polledBeforeAck(), v.ackToPoll().get(LatencyTally.MOVES).records());
            for (MoveRunResult.SlowRecord slow : v.slowestAckToPoll()) {
                out.printf("    %d %s %s +%d: %d / %.1f%n", slow.record(), slow.position(), slow.window(), slow.createdAfterStartMs(),
                    slow.endToEndMs(), slow.ackToPollMs());
            }
        }
        if (kafka != null) {
            result.variants().stream().filter(v -> v != kafka)
                .forEach(v -> ratios.get(v.variant()).put("requestsPerMove", requestRatios(v, kafka)));
        }

        out.println();
        out.println("requests per leader move: sent in the move's window less the quiet window's (mean over moves; each move in brackets)");
        out.printf("%-22s %-34s %-34s %-34s%n", "variant", ConsumerRun.FETCH, ConsumerRun.METADATA, ConsumerRun.OFFSETS_FOR_LEADER_EPOCH);
        for (MoveRunResult.VariantResult v : result.variants()) {
            StringBuilder line = new StringBuilder(String.format("%-22s", v.variant()));
            for (String api : ConsumerRun.REQUESTS) {
                String each = String.join(" ", v.requests().perMoveExcess().stream().map(m -> String.format("%.0f", m.get(api))).toList());
                line.append(String.format(" %-34s", String.format("%.1f [%s] q=%.0f", v.requests().meanExcess().get(api), each,
                    v.requests().quiet().get(api))));
            }
            out.println(line);
        }
        out.println("(q = sent in the quiet window, of the same length as a move's window unless the move ran over)");
        if (kafka != null) {
            for (Map.Entry<String, Map<String, Object>> entry : ratios.entrySet()) {
                @SuppressWarnings("unchecked")
                Map<String, Double> requests = (Map<String, Double>) entry.getValue().get("requestsPerMove");
                out.printf("%-22s %-34s %-34s %-34s%n", entry.getKey() + " ÷ kafka", format(requests.get(ConsumerRun.FETCH)),
                    format(requests.get(ConsumerRun.METADATA)), format(requests.get(ConsumerRun.OFFSETS_FOR_LEADER_EPOCH)));
            }
        }
        for (MoveRunResult.VariantResult v : result.variants()) {
            out.println(v.variant() + " counters at the end: " + v.countersAtEnd());
            List<Map<String, Double>> windows = new ArrayList<>();
            windows.add(v.requests().quiet());
            windows.addAll(v.requests().perMove());
            if (windows.stream().allMatch(w -> w.containsKey(ConsumerRun.ALL_LOGGED) && w.containsKey(ConsumerRun.ALL_METRIC))) {
                List<Long> gaps = windows.stream().map(w -> Math.round(w.get(ConsumerRun.ALL_METRIC) - w.get(ConsumerRun.ALL_LOGGED))).toList();
                out.println(v.variant() + " request count check, per window (quiet, moves): its request-total metric less the requests its "
                    + "log showed (0 = every request counted; ±1 is a request logged on one side of a boundary and written on the other): "
                    + gaps);
            }
        }

        Map<String, Object> target = new LinkedHashMap<>();
        MoveRunResult.VariantResult fast = result.variant(ClientVariant.FASTLEADER);
        if (fast != null && kafka != null) {
            double ratio = fast.endToEnd().get(LatencyTally.MOVES).p999() / kafka.endToEnd().get(LatencyTally.MOVES).p999();
            String verdict = ClusterBenchmark.verdict(ratio <= P999_VS_KAFKA_TARGET);
            out.printf("%ntarget: fastleader p99.9 through the moves <= %.1fx KafkaConsumer's: %.2fx, %s%n", P999_VS_KAFKA_TARGET, ratio,
                verdict);
            target.put("atMost", P999_VS_KAFKA_TARGET);
            target.put("ratio", ratio);
            target.put("verdict", verdict);
        }
        Map<String, Object> exact = new LinkedHashMap<>();
        result.variants().forEach(v -> exact.put(v.variant(), v.records().exact()));
        json.put("windows", result.windows());
        json.put("producer", producer);
        json.put("variants", result.variants());
        json.put("recordsExact", exact);
        json.put("fastleaderOverKafkaClients", ratios);
        json.put("p999Target", target);
    }

    /**
     * Prints one latency table: per variant the move windows together and the quiet window, then
     * fastleader ÷ kafka-clients rows (kept in {@code ratios} under {@code name}), then each move's p99.9 and max.
     */
    private static void latencyTable(PrintStream out, String title, MoveRunResult result, MoveRunResult.VariantResult kafka,
                                     Function<MoveRunResult.VariantResult, Map<String, Latency>> latency, String name,
                                     Map<String, Map<String, Object>> ratios) {
        out.println();
        out.println(title);
        out.println("records created in the move windows | in the quiet window");
        out.printf("%-30s %8s %9s %9s %9s %9s | %9s %9s %9s %9s%n", "variant", "records", "p50", "p99", "p99.9", "max",
            "p50", "p99", "p99.9", "max");
        String row = "%-30s %8s %9s %9s %9s %9s | %9s %9s %9s %9s%n";
        for (MoveRunResult.VariantResult v : result.variants()) {
            Latency moves = latency.apply(v).get(LatencyTally.MOVES);
            Latency quiet = latency.apply(v).get(QUIET);
            out.printf(row, v.variant(), String.format("%,d", moves.records()), ms(moves.p50()), ms(moves.p99()), ms(moves.p999()),
                ms(moves.max()), ms(quiet.p50()), ms(quiet.p99()), ms(quiet.p999()), ms(quiet.max()));
        }
        if (kafka != null) {
            for (MoveRunResult.VariantResult v : result.variants()) {
                if (v == kafka) {
                    continue;
                }
                Latency.Ratios moves = latency.apply(v).get(LatencyTally.MOVES).over(latency.apply(kafka).get(LatencyTally.MOVES));
                Latency.Ratios quiet = latency.apply(v).get(QUIET).over(latency.apply(kafka).get(QUIET));
                out.printf(row, v.variant() + " ÷ kafka", "", ratio(moves.p50()), ratio(moves.p99()), ratio(moves.p999()),
                    ratio(moves.max()), ratio(quiet.p50()), ratio(quiet.p99()), ratio(quiet.p999()), ratio(quiet.max()));
                Map<String, Object> mine = ratios.computeIfAbsent(v.variant(), key -> new LinkedHashMap<>());
                mine.put(name + "Moves", moves);
                mine.put(name + "Quiet", quiet);
            }
        }
        out.println("per move (p99.9 / max):");
        for (MoveRunResult.VariantResult v : result.variants()) {
            StringBuilder line = new StringBuilder(String.format("  %-22s", v.variant()));
            for (MoveRunResult.Window w : result.windows().subList(1, result.windows().size())) {
                Latency l = latency.apply(v).get(w.name());
                line.append(String.format("  %s: %.1f / %.1f", w.name(), l.p999(), l.max()));
            }
            out.println(line);
        }
    }

    private static String ms(double millis) {
        return String.format("%.1f", millis);
    }

    /** A ratio to two decimals; "-" where it has no meaning (0 ÷ 0). */
    private static String ratio(double ratio) {
        return Double.isFinite(ratio) ? String.format("%.2f", ratio) : "-";
    }

    /** Every figure kept so far, for the JSON file. */
    Map<String, Object> figures() {
        return json;
    }

    /** Mean requests per move, {@code v}'s ÷ {@code kafka}'s, by API (null where kafka-clients sent none). */
    private static Map<String, Double> requestRatios(MoveRunResult.VariantResult v, MoveRunResult.VariantResult kafka) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (String api : ConsumerRun.REQUESTS) {
            Double ours = v.requests().meanExcess().get(api);
            Double theirs = kafka.requests().meanExcess().get(api);
            ratios.put(api, ours != null && theirs != null && theirs > 0 ? ours / theirs : null);
        }
        return ratios;
    }

    private static String format(Double ratio) {
        return ratio == null ? "-" : String.format("%.2f", ratio);
    }
}
