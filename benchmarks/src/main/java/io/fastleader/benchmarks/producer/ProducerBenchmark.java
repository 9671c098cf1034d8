package io.fastleader.benchmarks.producer;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * FastLeaderProducer against KafkaProducer 4.3.1 on one real 3-broker Kafka 4.3.1 cluster started
 * in this JVM: the {@link SteadyScenario steady} throughput scenario and the
 * {@link ReassignScenario reassign} leader-move latency scenario of issue 6, side by side, with
 * a table of ratios on stdout and every figure in a JSON file. {@code --help} lists the options
 * ({@link BenchmarkOptions#HELP}). Run from the repository root after building the benchmarks jar:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.producer.ProducerBenchmark
 * </pre>
 */
public final class ProducerBenchmark {

    private ProducerBenchmark() {
    }

    /** Runs the scenarios the arguments name; exits with 2 on bad arguments. */
    public static void main(String[] args) throws Exception {
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (options == null) {
            System.out.print(BenchmarkOptions.HELP);
            return;
        }
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("started", Instant.now().toString());
        environment.put("processors", Runtime.getRuntime().availableProcessors());
        environment.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
        environment.put("loadAverageAtStart", os.getSystemLoadAverage());
        System.out.printf("%d processors, load average %.2f; starting 3 Kafka brokers in this JVM%n",
            Runtime.getRuntime().availableProcessors(), os.getSystemLoadAverage());
        Report report = new Report(options, environment);
        try (KafkaTestCluster cluster = ClusterSpec.builder().execution(Execution.IN_JVM).start();
             Disturbances disturbances = new Disturbances(cluster)) {
            System.out.println("Kafka " + cluster.kafkaVersion() + " at " + cluster.bootstrapServers());
            for (BenchmarkOptions.Scenario scenario : options.scenarios()) {
                switch (scenario) {
                    case STEADY -> report.steady(new SteadyScenario(cluster, disturbances, options).run(), System.out);
                    case REASSIGN -> report.reassign(new ReassignScenario(cluster, disturbances, options).run(), System.out);
                }
            }
        }
        double loadAtEnd = os.getSystemLoadAverage();
        report.write(options.json(), Map.of("finished", Instant.now().toString(), "loadAverageAtEnd", loadAtEnd));
        System.out.printf("%nload average at the end %.2f; figures in %s%n", loadAtEnd, options.json().toAbsolutePath());
    }
}
