package io.fastleader.benchmarks.producer;

import java.util.Map;

import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;

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
        BenchmarkOptions options = CommandLine.parseOrExit(args, BenchmarkOptions.HELP, BenchmarkOptions::read);
        if (options == null) {
            return;
        }
        Report report = new Report(options, ClusterBenchmark.environment());
        ClusterBenchmark.run((cluster, disturbances) -> {
            for (BenchmarkOptions.Scenario scenario : options.scenarios()) {
                switch (scenario) {
                    case STEADY -> report.steady(new SteadyScenario(cluster, disturbances, options).run(), options.steadyGrid(), System.out);
                    case REASSIGN -> report.reassign(new ReassignScenario(cluster, disturbances, options).run(), System.out);
                }
            }
        });
        ClusterBenchmark.write(options.json(), report.figures());
    }
}
