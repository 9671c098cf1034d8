package io.fastleader.benchmarks.leadermove;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;

import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * The leader-move benchmark: fastleader's clients and kafka-clients' side by side, each variant in
 * a child JVM of its own, through the same leader moves on one real cluster. {@code --help} says
 * how to run it; {@code benchmarks/README.md} has the method and figures.
 */
public final class LeaderMoveBenchmark {

    private static final String TOPIC = "leader-move";

    private LeaderMoveBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        LeaderMoveOptions options = CommandLine.parseOrExit(args, LeaderMoveOptions.HELP, LeaderMoveOptions::read);
        if (options == null) {
            return;
        }
        Map<String, Object> environment = ClusterBenchmark.environment();
        Map<BrokerRow, LeaderMoveReport> reports = new LinkedHashMap<>();
        for (BrokerRow row : options.brokerRows()) {
            System.out.println("brokers: " + row.describe());
            reports.put(row, runRow(options, row));
        }
        LeaderMoveReport.printSummary(options, reports);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("environment", environment);
        Map<String, Object> rows = new LinkedHashMap<>();
        reports.forEach((row, report) -> rows.put(row.label(), report.figures()));
        figures.put("brokerRows", rows);
        ClusterBenchmark.write(options.json(), figures);
    }

    /** The scenario once, on a fresh cluster with {@code row}'s broker settings, or on the cluster {@code --bootstrap} names. */
    private static LeaderMoveReport runRow(LeaderMoveOptions options, BrokerRow row) throws Exception {
        List<LeaderMoveReport> report = new ArrayList<>(1);
        if (options.bootstrap() == null) {
            System.out.println("deployment: " + options.deployment().describe());
            Map<String, String> brokerConfigs = new LinkedHashMap<>(options.brokerConfigs());
            brokerConfigs.putAll(row.brokerConfigs());
            ClusterBenchmark.run(options.deployment().spec(brokerConfigs),
                (cluster, disturbances) -> report.add(run(options, row, cluster, disturbances)));
        } else {
            try (KafkaTestCluster cluster = new ExternalCluster(options.bootstrap());
                 Disturbances disturbances = new Disturbances(cluster)) {
                report.add(run(options, row, cluster, disturbances));
            }
        }
        return report.get(0);
    }

    private static LeaderMoveReport run(LeaderMoveOptions options, BrokerRow row, KafkaTestCluster cluster,
                                        Disturbances disturbances) throws Exception {
        String topic = TOPIC + "-" + options.scenario().name().toLowerCase(Locale.ROOT);
        disturbances.createTopic(new NewTopic(topic, options.partitions(), (short) 3).configs(Map.of("min.insync.replicas", "2")));
        List<DriverProcess> drivers = new ArrayList<>();
        long startMillis = System.currentTimeMillis();
        // Only the brokers in this JVM log to this JVM's log4j.
        boolean brokersHere = options.bootstrap() == null && options.deployment().brokers() == Execution.IN_JVM;
        try (BrokerRequestLog brokerRequests = brokersHere ? BrokerRequestLog.attach() : null;
             ClusterPauses pauses = brokersHere ? ClusterPauses.attach() : null) {
            for (Variant variant : options.variants()) {
                drivers.add(DriverProcess.launch(variant, options, cluster.clientConfig(), topic));
            }
            for (DriverProcess driver : drivers) {
                driver.awaitReady();
            }
            System.out.println("variants ready: " + options.variants().stream().map(Variant::label).toList());
            MoveLedger ledger = new MoveLedger(drivers);
            for (DriverProcess driver : drivers) {
                driver.start();
            }
            startMillis = System.currentTimeMillis();
            // The warm-up's second half is the first move's quiet span: connections and metadata are settled by then.
            long halfWarmup = options.warmup().toMillis() / 2;
            Thread.sleep(halfWarmup);
            ledger.quietFrom();
            Thread.sleep(options.warmup().toMillis() - halfWarmup);
            long measuredFromMillis = System.currentTimeMillis();
            for (DriverProcess driver : drivers) {
                driver.measure();
            }
            System.out.println("disturbing: " + options.scenario().name().toLowerCase(Locale.ROOT));
            options.scenario().disturb(cluster, disturbances, topic, options, ledger);
            for (DriverProcess driver : drivers) {
                driver.stop();
            }
            List<VariantResult> results = new ArrayList<>();
            Map<String, LatencySplits> splits = new LinkedHashMap<>();
            for (DriverProcess driver : drivers) {
                results.add(VariantResult.parse(driver.variant(), driver.result()));
                splits.put(driver.variant().label(), brokerRequests == null ? LatencySplits.unsplit(driver.recordTimes())
                    : LatencySplits.of(driver.recordTimes(), brokerRequests.produceRequests(driver.producerClientId()), pauses.pauses()));
            }
            if (brokerRequests != null && brokerRequests.unparsed() > 0) {
                System.out.println("the brokers' request log had " + brokerRequests.unparsed() + " Produce entries that did not parse");
            }
            LeaderMoveReport report = new LeaderMoveReport(options, row, results, splits, ledger.done(), ledger.windows(),
                ledger.requests(), startMillis);
            report.print();
            LatencyChart.write(chart(options.chart(), row), results, ledger.done(), measuredFromMillis);
            return report;
        } finally {
            drivers.forEach(DriverProcess::close);
        }
    }

    /** {@code chart} with the row's label before its extension. */
    private static Path chart(Path chart, BrokerRow row) {
        String name = chart.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String rowName = dot < 0 ? name + "-" + row.label() : name.substring(0, dot) + "-" + row.label() + name.substring(dot);
        return chart.resolveSibling(rowName);
    }
}
