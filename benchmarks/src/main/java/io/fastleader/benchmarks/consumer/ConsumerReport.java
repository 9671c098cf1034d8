package io.fastleader.benchmarks.consumer;

import java.io.PrintStream;
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
        settings.put("consumerConfig", options.consumerConfig());
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
        Latency sendMoves = producer.sendToAck().get(LatencyTally.MOVES);
        Latency sendQuiet = producer.sendToAck().get(QUIET);
        out.printf("producer send to acknowledgement (ms), records sent in the move windows: p50 %.1f p99 %.1f p99.9 %.1f max %.1f; "
            + "in the quiet window: p50 %.1f p99 %.1f p99.9 %.1f max %.1f%n", sendMoves.p50(), sendMoves.p99(), sendMoves.p999(),
            sendMoves.max(), sendQuiet.p50(), sendQuiet.p99(), sendQuiet.p999(), sendQuiet.max());

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
                .forEach(v -> {
                    ratios.get(v.variant()).put("requestsPerMoveExcess", requestRatios(v, kafka, MoveRunResult.MoveRequests::excess));
                    ratios.get(v.variant()).put("requestsPerMoveSent", requestRatios(v, kafka, MoveRunResult.MoveRequests::sent));
                });
        }

        out.println();
        out.println("requests per leader move, by API: the excess = sent from the move's start until half its window had passed (and at "
            + "least 2 s after its rotation completed) less what was sent in as long a quiet span just before the move; mean over moves "
            + "[each move] (sent in the counted spans / in the quiet spans)");
        for (String api : ConsumerRun.REQUESTS) {
            for (MoveRunResult.VariantResult v : result.variants()) {
                List<MoveRunResult.MoveRequests> moves = v.requests().perMove();
                out.printf("  %-22s %-22s %8s [%s] (%s / %s)%n", api, v.variant(), count(v.requests().meanExcess().get(api)),
                    String.join(" ", moves.stream().map(m -> count(m.excess().get(api))).toList()),
                    String.join(" ", moves.stream().map(m -> count(m.sent().get(api))).toList()),
                    String.join(" ", moves.stream().map(m -> count(m.quiet().get(api))).toList()));
            }
        }
        out.println("  spans in ms, quiet / counted, per move: " + String.join(", ", result.variants().get(0).requests().perMove().stream()
            .map(m -> m.quietMillis() + " / " + m.countedMillis()).toList()));
        if (kafka != null) {
            for (Map.Entry<String, Map<String, Object>> entry : ratios.entrySet()) {
                @SuppressWarnings("unchecked")
                Map<String, Double> excess = (Map<String, Double>) entry.getValue().get("requestsPerMoveExcess");
                @SuppressWarnings("unchecked")
                Map<String, Double> sent = (Map<String, Double>) entry.getValue().get("requestsPerMoveSent");
                out.printf("  %s ÷ kafka, excess (sent in the counted spans): %s%n", entry.getKey(), String.join(", ",
                    ConsumerRun.REQUESTS.stream().map(api -> api + " " + format(excess.get(api)) + " (" + format(sent.get(api)) + ")").toList()));
            }
        }
        for (MoveRunResult.VariantResult v : result.variants()) {
            out.println(v.variant() + " counters at the end: " + v.countersAtEnd());
            List<Map<String, Double>> windows = v.requests().perWindow();
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

    /** A ratio to two decimals; "-" where it has no meaning (÷ 0). */
    private static String ratio(Double ratio) {
        return ratio == null ? "-" : String.format("%.2f", ratio);
    }

    /** Every figure kept so far, for the JSON file. */
    Map<String, Object> figures() {
        return json;
    }

    /**
     * Per API, the mean over moves of {@code figure} ({@code excess} or {@code sent}) of {@code v} ÷ that of
     * {@code kafka}; null where either is not above 0 (a ratio of negative excesses, or of nothing, says nothing).
     */
    private static Map<String, Double> requestRatios(MoveRunResult.VariantResult v, MoveRunResult.VariantResult kafka,
                                                     Function<MoveRunResult.MoveRequests, Map<String, Double>> figure) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (String api : ConsumerRun.REQUESTS) {
            Double ours = mean(v.requests().perMove(), figure, api);
            Double theirs = mean(kafka.requests().perMove(), figure, api);
            ratios.put(api, ours != null && theirs != null && ours > 0 && theirs > 0 ? ours / theirs : null);
        }
        return ratios;
    }

    private static Double mean(List<MoveRunResult.MoveRequests> moves, Function<MoveRunResult.MoveRequests, Map<String, Double>> figure,
                               String api) {
        if (moves.stream().anyMatch(m -> figure.apply(m).get(api) == null)) {
            return null;
        }
        return moves.stream().mapToDouble(m -> figure.apply(m).get(api)).average().orElse(Double.NaN);
    }

    /** A request count (a whole number, or a fraction for a mean or a scaled excess); "-" if the client has no such count. */
    private static String count(Double count) {
        if (count == null) {
            return "-";
        }
        return count == Math.rint(count) ? String.format("%.0f", count) : String.format("%.1f", count);
    }

    private static String format(Double ratio) {
        return ratio == null ? "-" : String.format("%.2f", ratio);
    }
}
