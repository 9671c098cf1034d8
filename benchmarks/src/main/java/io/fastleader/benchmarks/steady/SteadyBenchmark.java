package io.fastleader.benchmarks.steady;

import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Execution;

/**
 * FastLeaderProducer against KafkaProducer 4.3.1, and FastLeaderConsumer against KafkaConsumer
 * 4.3.1, in steady state, each turn in a client JVM of its own, measured as a whole process
 * (issue 44): records/s, CPU per record, GC and threads, and at a fixed rate
 * send-to-acknowledgement latency. One 3-broker Kafka cluster, its brokers
 * in child JVMs too, serves the whole run, so that no figure of a client JVM holds a broker's
 * work. {@code --help} lists the options ({@link SteadyOptions#HELP}); benchmarks/README.md has
 * the method. Run from the repository root after building the benchmarks jar:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.steady.SteadyBenchmark
 * </pre>
 */
public final class SteadyBenchmark {

    private SteadyBenchmark() {
    }

    /** Runs the modes the arguments name; exits with 2 on bad arguments. */
    public static void main(String[] args) throws Exception {
        SteadyOptions options = CommandLine.parseOrExit(args, SteadyOptions.HELP, SteadyOptions::read);
        if (options == null) {
            return;
        }
        SteadyReport report = new SteadyReport(options, ClusterBenchmark.environment());
        ClusterBenchmark.run(ClusterSpec.builder().execution(Execution.CHILD_JVM).build(), (cluster, disturbances) -> {
            SteadyRun.Outcome outcome = new SteadyRun(cluster, disturbances, options).run();
            report.print(options.cells(), outcome, System.out);
        });
        ClusterBenchmark.write(options.json(), report.figures());
    }
}
