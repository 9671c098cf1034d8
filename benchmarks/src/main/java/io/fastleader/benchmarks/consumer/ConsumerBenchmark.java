package io.fastleader.benchmarks.consumer;

import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;

/**
 * FastLeaderConsumer (with and without KIP-951 hints) against KafkaConsumer 4.3.1, all reading the
 * same stream from one real 3-broker Kafka 4.3.1 cluster started in this JVM while every
 * partition's leader moves ({@link LeaderMoveRun}), with a table of ratios on stdout and every
 * figure in a JSON file. {@code --help} lists the options ({@link ConsumerBenchmarkOptions#HELP}).
 * Run from the repository root after building the benchmarks jar:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.consumer.ConsumerBenchmark
 * </pre>
 */
public final class ConsumerBenchmark {

    private ConsumerBenchmark() {
    }

    /** Runs the benchmark; exits with 2 on bad arguments. */
    public static void main(String[] args) throws Exception {
        ConsumerBenchmarkOptions options = CommandLine.parseOrExit(args, ConsumerBenchmarkOptions.HELP, ConsumerBenchmarkOptions::read);
        if (options == null) {
            return;
        }
        ConsumerReport report = new ConsumerReport(options, ClusterBenchmark.environment());
        ClusterBenchmark.run((cluster, disturbances) -> report.add(new LeaderMoveRun(cluster, disturbances, options).run(), System.out));
        ClusterBenchmark.write(options.json(), report.figures());
    }
}
