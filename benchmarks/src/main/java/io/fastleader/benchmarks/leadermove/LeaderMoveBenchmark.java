package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;

import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.it.cluster.Disturbances;
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
        if (options.bootstrap() == null) {
            System.out.println("deployment: " + options.deployment().describe());
            ClusterBenchmark.run(options.deployment().spec(options.brokerConfigs()), (cluster, disturbances) -> run(options, environment, cluster, disturbances));
        } else {
            try (KafkaTestCluster cluster = new ExternalCluster(options.bootstrap());
                 Disturbances disturbances = new Disturbances(cluster)) {
                run(options, environment, cluster, disturbances);
            }
        }
    }

    private static void run(LeaderMoveOptions options, Map<String, Object> environment, KafkaTestCluster cluster,
                            Disturbances disturbances) throws Exception {
        String topic = TOPIC + "-" + options.scenario().name().toLowerCase(Locale.ROOT);
        disturbances.createTopic(new NewTopic(topic, options.partitions(), (short) 3).configs(Map.of("min.insync.replicas", "2")));
        List<DriverProcess> drivers = new ArrayList<>();
        long startMillis = System.currentTimeMillis();
        try {
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
            for (DriverProcess driver : drivers) {
                results.add(VariantResult.parse(driver.variant(), driver.result()));
            }
            LeaderMoveReport report = new LeaderMoveReport(options, results, ledger.done(), ledger.requests(), startMillis);
            report.print();
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("environment", environment);
            figures.putAll(report.figures());
            ClusterBenchmark.write(options.json(), figures);
            LatencyChart.write(options.chart(), results, ledger.done(), measuredFromMillis);
        } finally {
            drivers.forEach(DriverProcess::close);
        }
    }
}
