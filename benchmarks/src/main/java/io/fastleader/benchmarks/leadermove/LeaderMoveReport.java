package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.Latency;

/**
 * The side-by-side table, each variant's produce latency split into broker and client time, the
 * ratios of fastleader's figures to the other clients', and the targets, printed and as
 * JSON figures; and the summary of several broker rows.
 */
final class LeaderMoveReport {

    private static final int SLOW_BATCHES_PRINTED = 10;
    private static final String ROW = "%-20s %7s %7s %8s %5s %4s %6s | %7s %7s %7s %7s | %7s %7s %7s %7s | %5s%n";
    private static final String SPLIT_ROW = "%-20s %-7s %9s %9s %9s %9s %9s %9s %11s%n";
    private static final String SUMMARY_ROW = "%-8s %-20s %10s %9s %9s %9s %9s %11s %9s%n";
    /** The client's share of a refused record is one round trip to the old leader and one to the new: its physical limit. */
    private static final int LIMIT_ROUND_TRIPS = 2;

    private final LeaderMoveOptions options;
    private final BrokerRow row;
    private final List<VariantResult> results;
    private final Map<String, LatencySplits> splits;
    private final List<Scenario.Disturbance> disturbances;
    private final List<Scenario.Window> windows;
    private final Map<String, MoveRequests> requests;
    private final long startMillis;

    /**
     * @param row the brokers' settings of this run
     * @param splits each variant's records split into broker and client time, by variant label; unsplit
     *               where the brokers' request log is out of reach (brokers in other JVMs)
     * @param windows each disturbance's window, for the latencies within them
     * @param requests what each move cost each variant in requests, by variant label
     * @param startMillis when the variants started sending, the zero of the printed times
     */
    LeaderMoveReport(LeaderMoveOptions options, BrokerRow row, List<VariantResult> results, Map<String, LatencySplits> splits,
                     List<Scenario.Disturbance> disturbances, List<Scenario.Window> windows, Map<String, MoveRequests> requests,
                     long startMillis) {
        this.options = options;
        this.row = row;
        this.results = results;
        this.splits = splits;
        this.disturbances = disturbances;
        this.windows = windows;
        this.requests = requests;
        this.startMillis = startMillis;
    }

    void print() {
        System.out.printf("%n%s: %d partitions, %d records/s of %d bytes per variant, acks=%s%n", scenarioName(), options.partitions(),
            options.rate(), options.recordSize(), options.acks());
        System.out.println("deployment: " + options.deployment().describe());
        System.out.println("brokers: " + row.describe());
        disturbances.forEach(d -> System.out.printf("  %s: %.1f s to %.1f s%n", d.what(), seconds(d.startMillis()), seconds(d.endMillis())));
        System.out.printf("%n" + ROW, "variant", "sent", "acked", "consumed", "lost", "dup", "errors",
            "prod p50", "p99", "p99.9", "max", "e2e p50", "p99", "p99.9", "max", "cpu");
        for (VariantResult result : results) {
            System.out.printf(ROW, result.variant().label(), result.sent(), result.acked(), result.consumed(), result.lost(),
                result.duplicates(), result.errors(), ms(result.produce().p50()), ms(result.produce().p99()),
                ms(result.produce().p999()), ms(result.produce().max()), ms(result.endToEnd().p50()), ms(result.endToEnd().p99()),
                ms(result.endToEnd().p999()), ms(result.endToEnd().max()), String.format(Locale.ROOT, "%.2f", result.cpuCores()));
            if (result.errors() > 0) {
                System.out.printf("%20s first error: %s%n", "", result.firstError());
            }
        }
        System.out.println("cpu: each variant's JVM, in cores, from the end of the warm-up until it reported");
        printSplits();
        printWindows();
        printRoundTrips();
        printRequestsPerMove();
        printSlowBatches();
        ratios().forEach((name, ratio) -> System.out.printf("%s: %.2f%n", name, ratio));
        targets().forEach((target, met) -> System.out.printf("target %s: %s%n", target, ClusterBenchmark.verdict(met)));
    }

    /** Everything printed, for the JSON file. */
    Map<String, Object> figures() {
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("scenario", scenarioName());
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("partitions", options.partitions());
        run.put("rate", options.rate());
        run.put("recordSize", options.recordSize());
        run.put("acks", options.acks());
        run.put("warmupSeconds", options.warmup().toSeconds());
        run.put("moves", options.moves());
        run.put("intervalSeconds", options.interval().toSeconds());
        run.put("settleSeconds", options.settle().toSeconds());
        run.put("brokerConfigs", options.brokerConfigs());
        run.put("brokerRow", row.label());
        run.put("brokerRowConfigs", row.brokerConfigs());
        Deployment deployment = options.deployment();
        run.put("profile", deployment.profile().label());
        run.put("clientRttMs", deployment.clientRtt().toMillis());
        run.put("brokerRttMs", deployment.brokerRtt().toMillis());
        run.put("metadataLagMs", deployment.metadataLag().toMillis());
        run.put("security", deployment.security());
        run.put("brokers", deployment.brokers().name().toLowerCase(Locale.ROOT));
        run.put("slowBatchMs", options.slowBatchMillis());
        figures.put("options", run);
        List<Map<String, Object>> windows = new ArrayList<>();
        disturbances.forEach(d -> windows.add(Map.of("what", d.what(), "startSeconds", seconds(d.startMillis()),
            "endSeconds", seconds(d.endMillis()))));
        figures.put("disturbances", windows);
        Map<String, Object> variants = new LinkedHashMap<>();
        for (VariantResult result : results) {
            Map<String, Object> variant = new LinkedHashMap<>();
            variant.put("sent", result.sent());
            variant.put("acked", result.acked());
            variant.put("consumed", result.consumed());
            variant.put("lost", result.lost());
            variant.put("duplicates", result.duplicates());
            variant.put("errors", result.errors());
            variant.put("firstError", result.firstError());
            variant.put("produceMs", result.produce());
            variant.put("endToEndMs", result.endToEnd());
            variant.put("metrics", result.metrics());
            variant.put("driverCpuCores", result.cpuCores());
            variant.put("requestsPerMove", requests.get(result.variant().label()));
            LatencySplits split = splits.get(result.variant().label());
            if (split != null && !windows.isEmpty()) {
                variant.put("windows", windowFigures(split));
            }
            if (split != null && split.brokerMeasured()) {
                Map<String, Object> atRanks = new LinkedHashMap<>();
                LatencySplits.RANKS.forEach((rank, fraction) -> atRanks.put(rank, splitFigures(split.at(fraction))));
                variant.put("produceSplitMs", atRanks);
                variant.put("slowestProduceSplitsMs", split.slowest().stream().map(this::splitFigures).toList());
            }
            if (result.variant().isFastLeader()) {
                variant.put("slowBatches", result.slowBatches());
                variant.put("slowBatchPhaseMs", SlowBatchPhases.totals(result.slowBatches()));
            }
            variants.put(result.variant().label(), variant);
        }
        figures.put("variants", variants);
        figures.put("ratios", ratios());
        Map<String, String> verdicts = new LinkedHashMap<>();
        targets().forEach((target, met) -> verdicts.put(target, ClusterBenchmark.verdict(met)));
        figures.put("targets", verdicts);
        return figures;
    }

    /** Each variant's mean requests per move beyond its quiet rate, one column per API any variant spent requests on. */
    private void printRequestsPerMove() {
        Set<String> apis = new TreeSet<>();
        requests.values().forEach(r -> r.meanExcess().forEach((api, excess) -> {
            if (!api.equals(MoveRequests.ALL) && Math.abs(excess) >= 0.05) {
                apis.add(api);
            }
        }));
        apis.add(MoveRequests.ALL);
        System.out.printf("%nrequests per move beyond each variant's quiet rate, mean of %d (from each move's start to half way"
            + " through the pause after it)%n", disturbances.size());
        StringBuilder header = new StringBuilder(String.format("%-20s", "variant"));
        apis.forEach(api -> header.append(String.format(" %" + Math.max(8, api.length()) + "s", api)));
        System.out.println(header);
        requests.forEach((variant, moves) -> {
            StringBuilder row = new StringBuilder(String.format("%-20s", variant));
            apis.forEach(api -> row.append(String.format(Locale.ROOT, " %" + Math.max(8, api.length()) + ".1f",
                moves.meanExcess().getOrDefault(api, 0.0))));
            System.out.println(row);
        });
        System.out.println();
    }

    /** fastleader's p99.9 over each other variant's, and kafka-clients 4.3.1's over 3.6.0's (the KIP's own comparison), produce and end to end. */
    private Map<String, Double> ratios() {
        Map<String, Double> ratios = new LinkedHashMap<>();
        find(Variant.FASTLEADER).ifPresent(fastleader -> results.stream().filter(r -> r.variant() != Variant.FASTLEADER)
            .forEach(other -> putRatios(ratios, fastleader, other)));
        find(Variant.KAFKA_CLIENTS_4_3_1).ifPresent(kip -> find(Variant.KAFKA_CLIENTS_3_6_0).ifPresent(preKip -> putRatios(ratios, kip, preKip)));
        return ratios;
    }

    private static void putRatios(Map<String, Double> ratios, VariantResult mine, VariantResult theirs) {
        String over = " " + mine.variant().label() + " / " + theirs.variant().label();
        ratio(mine.produce(), theirs.produce()).ifPresent(r -> ratios.put("produce p99.9" + over, r));
        ratio(mine.endToEnd(), theirs.endToEnd()).ifPresent(r -> ratios.put("end-to-end p99.9" + over, r));
    }

    /**
     * The targets that this run's deployment, acks and scenario measure, each met or not; a
     * target whose variants did not run is left out.
     */
    private Map<String, Boolean> targets() {
        Map<String, Boolean> targets = new LinkedHashMap<>();
        Deployment deployment = options.deployment();
        Optional<VariantResult> fastleader = find(Variant.FASTLEADER);
        Optional<VariantResult> kafka431 = find(Variant.KAFKA_CLIENTS_4_3_1);
        if (deployment.profile() == NetworkProfile.CROSS_REGION && deployment.security().equals("SASL_SSL")) {
            fastleader.ifPresent(mine -> kafka431.ifPresent(theirs -> {
                ratio(mine.produce(), theirs.produce()).ifPresent(r -> targets.put("produce p99.9 <= 0.5x kafka-clients-4.3.1", r <= 0.5));
                ratio(mine.endToEnd(), theirs.endToEnd()).ifPresent(r -> targets.put("end-to-end p99.9 <= 0.7x kafka-clients-4.3.1", r <= 0.7));
            }));
        }
        if (deployment.profile() == NetworkProfile.LOOPBACK && options.acks().equals("1")) {
            fastleader.ifPresent(mine -> kafka431.flatMap(theirs -> ratio(mine.produce(), theirs.produce()))
                .ifPresent(r -> targets.put("produce p99.9 <= 0.7x kafka-clients-4.3.1", r <= 0.7)));
        }
        if (!deployment.metadataLag().isZero() && options.scenario() == Scenario.REASSIGN) {
            kafka431.ifPresent(kip -> find(Variant.KAFKA_CLIENTS_3_6_0).flatMap(preKip -> ratio(kip.produce(), preKip.produce()))
                .ifPresent(r -> targets.put("the KIP's shape: kafka-clients-4.3.1 produce p99.9 <= 0.3x kafka-clients-3.6.0", r <= 0.3)));
        }
        long rtt = deployment.clientRtt().toMillis();
        LatencySplits fastleaderSplits = splits.get(Variant.FASTLEADER.label());
        if (rtt > 0 && fastleaderSplits != null && fastleaderSplits.brokerMeasured() && fastleaderSplits.records() > 0) {
            targets.put("fastleader's client share of its p99.9 record <= " + (LIMIT_ROUND_TRIPS + 1) + " client round trips",
                fastleaderSplits.at(0.999).clientMs() <= (LIMIT_ROUND_TRIPS + 1) * rtt);
        }
        if (options.acks().equals("all")) {
            targets.put("no record lost or duplicated by any variant", results.stream().allMatch(r -> r.lost() == 0 && r.duplicates() == 0));
        }
        return targets;
    }

    /** Each variant's records at p99, p99.9, p99.99 and the slowest, each split into broker and client time. */
    private void printSplits() {
        System.out.printf("%nproduce latency of the record at each rank, split (ms): served = a Produce request carrying its"
            + " partition was being served at a broker (the brokers' request log, read to response); unread = such a request waited"
            + " unread behind earlier ones on its connection; broker = both; paused = outside broker, the JVM of the brokers and"
            + " relays stood still in a garbage collection; client = the rest%n");
        if (splits.values().stream().noneMatch(LatencySplits::brokerMeasured)) {
            System.out.println("  n/a: the brokers run outside this JVM, so their request log is out of reach");
            return;
        }
        System.out.printf(SPLIT_ROW, "variant", "rank", "total", "served", "unread", "broker", "paused", "client", "client RTTs");
        for (VariantResult result : results) {
            LatencySplits split = splits.get(result.variant().label());
            LatencySplits.RANKS.forEach((rank, fraction) -> {
                LatencySplits.Split at = split.at(fraction);
                if (at != null) {
                    System.out.printf(SPLIT_ROW, result.variant().label(), rank, ms(at.totalMs()), ms(at.servedMs()), ms(at.unreadMs()),
                        ms(at.brokerMs()), ms(at.pausedMs()), ms(at.clientMs()), roundTrips(at.clientMs()));
                }
            });
        }
    }

    /**
     * Each variant's produce p99.9 over all its measured records and over those sent within the
     * disturbances' windows, and the share of its records sent within them: a p99.9 over a long run
     * with few records in the windows hides the moves.
     */
    private void printWindows() {
        if (windows.isEmpty() || splits.isEmpty()) {
            return;
        }
        System.out.printf("%nproduce p99.9 over the run and over the moves' windows (from each move's start to half way through"
            + " the pause after it: %s), ms%n", windows.stream().map(w -> String.format(Locale.ROOT, "%s %.1f s to %.1f s", w.what(),
            seconds(w.startMillis()), seconds(w.endMillis()))).collect(Collectors.joining(", ")));
        System.out.printf("%-20s %9s %9s %9s %9s %9s%n", "variant", "run p99.9", "records", "win p99.9", "in window", "share");
        for (VariantResult result : results) {
            WindowFigures figures = windowFigures(splits.get(result.variant().label()));
            System.out.printf(Locale.ROOT, "%-20s %9s %9d %9s %9d %8.2f%%%n", result.variant().label(), ms(figures.runP999Ms()),
                figures.records(), ms(figures.windowP999Ms()), figures.recordsInWindows(), 100 * figures.fractionInWindows());
        }
    }

    private WindowFigures windowFigures(LatencySplits split) {
        LatencySplits inWindows = split.sentWithin(windows);
        return new WindowFigures(split.records(), inWindows.records(),
            split.records() == 0 ? 0 : (double) inWindows.records() / split.records(),
            split.records() == 0 ? 0 : split.at(0.999).totalMs(), inWindows.records() == 0 ? 0 : inWindows.at(0.999).totalMs());
    }

    /**
     * One variant's produce latency over the run and within the disturbances' windows.
     *
     * @param records            measured records
     * @param recordsInWindows   those sent within a window
     * @param fractionInWindows  their share
     * @param runP999Ms          p99.9 over all measured records (the record at that rank)
     * @param windowP999Ms       p99.9 over those within the windows
     */
    record WindowFigures(int records, int recordsInWindows, double fractionInWindows, double runP999Ms, double windowP999Ms) {
    }

    private Map<String, Object> splitFigures(LatencySplits.Split split) {
        Map<String, Object> figures = new LinkedHashMap<>();
        if (split == null) {
            return figures;
        }
        figures.put("partition", split.partition());
        figures.put("sentSeconds", seconds(split.sentMicros() / 1000));
        figures.put("totalMs", split.totalMs());
        figures.put("servedMs", split.servedMs());
        figures.put("unreadMs", split.unreadMs());
        figures.put("brokerMs", split.brokerMs());
        figures.put("pausedMs", split.pausedMs());
        figures.put("clientMs", split.clientMs());
        long rtt = options.deployment().clientRtt().toMillis();
        if (rtt > 0) {
            figures.put("clientRoundTrips", split.clientMs() / rtt);
        }
        return figures;
    }

    /** {@code millis} in client round trips, or blank without a round trip set. */
    private String roundTrips(double millis) {
        long rtt = options.deployment().clientRtt().toMillis();
        return rtt == 0 ? "" : String.format(Locale.ROOT, "%.1f", millis / rtt);
    }

    /**
     * The last screen: per broker row and variant, produce p99.9, the client and broker shares of
     * the record at p99.9, and end-to-end p99.9.
     */
    static void printSummary(LeaderMoveOptions options, Map<BrokerRow, LeaderMoveReport> reports) {
        System.out.printf("%nsummary: %s, %s, acks=%s, %d partitions, %d records/s per variant%n",
            options.scenario().name().toLowerCase(Locale.ROOT), options.deployment().describe(), options.acks(), options.partitions(),
            options.rate());
        reports.keySet().forEach(row -> System.out.println("  brokers " + row.describe()));
        System.out.printf(SUMMARY_ROW, "brokers", "variant", "prod p99.9", "client", "broker", "(unread)", "paused", "client RTTs", "e2e p99.9");
        reports.forEach((row, report) -> report.results.forEach(result -> {
            LatencySplits split = report.splits.get(result.variant().label());
            LatencySplits.Split at = split == null || !split.brokerMeasured() ? null : split.at(0.999);
            System.out.printf(SUMMARY_ROW, row.label(), result.variant().label(), ms(result.produce().p999()),
                at == null ? "n/a" : ms(at.clientMs()), at == null ? "n/a" : ms(at.brokerMs()), at == null ? "" : ms(at.unreadMs()),
                at == null ? "" : ms(at.pausedMs()), at == null ? "" : report.roundTrips(at.clientMs()), ms(result.endToEnd().p999()));
        }));
        System.out.println("client, broker and paused: the split of the record at p99.9 of produce latency (its total is p99.9 to"
            + " the histogram's precision); (unread): the part of broker its requests waited unread behind earlier ones on their"
            + " connection; paused: outside broker, the brokers' and relays' JVM stood still in a garbage collection;"
            + " client RTTs: the client's share in client round trips, the limit being "
            + LIMIT_ROUND_TRIPS + " (one to the old leader, one to the new)");
        reports.forEach((row, report) -> report.targets().forEach((target, met) ->
            System.out.printf("target (%s) %s: %s%n", row.label(), target, ClusterBenchmark.verdict(met))));
    }

    /**
     * Each variant's p99.9 in client round trips: a refused record owes one round trip to the old
     * leader and one to the new, and nothing more, beyond the brokers' own unavailability.
     */
    private void printRoundTrips() {
        long rtt = options.deployment().clientRtt().toMillis();
        if (rtt == 0) {
            return;
        }
        System.out.printf("p99.9 in client round trips of %d ms (the physical limit is 2 beyond the brokers' own unavailability):%n", rtt);
        results.forEach(r -> System.out.printf(Locale.ROOT, "  %-20s produce %.1f, end-to-end %.1f%n", r.variant().label(),
            r.produce().p999() / rtt, r.endToEnd().p999() / rtt));
    }

    /** Where each fastleader variant's slowest batches waited: each one's line, then the milliseconds per phase over them. */
    private void printSlowBatches() {
        results.stream().filter(r -> r.variant().isFastLeader() && !r.slowBatches().isEmpty()).forEach(result -> {
            System.out.printf("%s's slowest batches (of those over %d ms), where they waited:%n", result.variant().label(),
                options.slowBatchMillis());
            result.slowBatches().stream().limit(SLOW_BATCHES_PRINTED).forEach(line -> System.out.println("  " + line));
            System.out.println("  ms per phase over the " + result.slowBatches().size() + " slowest: "
                + SlowBatchPhases.totals(result.slowBatches()));
        });
    }

    private Optional<VariantResult> find(Variant variant) {
        return results.stream().filter(r -> r.variant() == variant).findFirst();
    }

    private static Optional<Double> ratio(Latency mine, Latency theirs) {
        return Optional.ofNullable(mine.over(theirs).p999());
    }

    private String scenarioName() {
        return options.scenario().name().toLowerCase(Locale.ROOT);
    }

    private double seconds(long epochMillis) {
        return (epochMillis - startMillis) / 1000.0;
    }

    private static String ms(double millis) {
        return String.format(Locale.ROOT, "%.1f", millis);
    }
}
