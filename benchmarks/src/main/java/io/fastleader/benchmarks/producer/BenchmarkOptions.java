package io.fastleader.benchmarks.producer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.fastleader.benchmarks.common.CommandLine;

/**
 * The command line of {@link ProducerBenchmark}: which scenarios to run and their sizes. Every
 * option is {@code --name value}; {@link #HELP} explains each.
 *
 * @param scenarios         the scenarios to run, in order
 * @param recordBytes       value size of every record
 * @param steadyWarmUp      steady: sending before the measured window opens
 * @param steadyDuration    steady: length of the measured window
 * @param steadyRepetitions steady: rounds; each round measures every client once, the order alternating
 * @param rate              reassign: records per second per client
 * @param partitions        reassign: partitions of each client's topic
 * @param rotations         reassign: how many times every partition's replicas are rotated
 * @param reassignWarmUp    reassign: sending before the first rotation (not measured)
 * @param settle            reassign: sending after each rotation before the next one (or the end)
 * @param reassignInFlight  reassign: every client's {@code max.in.flight.requests.per.connection}
 * @param json              where the figures are written
 */
public record BenchmarkOptions(List<Scenario> scenarios, int recordBytes,
                               Duration steadyWarmUp, Duration steadyDuration, int steadyRepetitions,
                               int rate, int partitions, int rotations, Duration reassignWarmUp, Duration settle, int reassignInFlight,
                               Path json) {

    /** A scenario of the benchmark. */
    public enum Scenario {
        /** As many 1 KB records per second as each client manages, one client at a time. */
        STEADY,
        /** A fixed rate through leader moves, every client at once. */
        REASSIGN
    }

    /** The {@code --help} text. */
    public static final String HELP = """
        Usage: java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.producer.ProducerBenchmark [options]

        Starts one 3-broker Apache Kafka 4.3.1 cluster in this JVM (loopback only) and runs
        FastLeaderProducer and KafkaProducer 4.3.1 against it, side by side. Every scenario ends
        by itself; a side-by-side table goes to stdout and every figure to a JSON file.

        Scenarios:
          steady    1 KB records, acks=all, default batching, unkeyed, to a 6-partition topic
                    (replication factor 3), as fast as one sending thread manages; one client at a
                    time, a fresh topic each, the order alternating between repetitions. Reports
                    records/s and CPU per record.
          reassign  a fixed rate of 1 KB keyed records, acks=all, linger.ms=0, each client to its
                    own topic (replication factor 3, min.insync.replicas=2); all clients run at
                    once while every partition's replica list is rotated (its leader moves), the
                    same rotation on every topic at the same moment. Reports send-to-callback
                    latency (p50, p99, p99.9, max), records sent/acknowledged/failed, and
                    fastleader's hint and backoff-skip counters. Clients: fastleader,
                    fastleader-no-hints (fastleader.leader.hints.enabled=false), kafka-clients-4.3.1.

        Options (defaults in brackets):
          --scenario steady|reassign|all   what to run [all]
          --record-bytes N                 value size of every record [1024]
          --steady-warmup-s N              steady: seconds sent before measuring [5]
          --steady-duration-s N            steady: seconds measured per client [20]
          --steady-repetitions N           steady: rounds of every client, order alternating, after
                                           a first round that only warms the brokers up [2]
          --rate N                         reassign: records/s per client [200]; at 700/s or more
                                           per client, 2 cores were so busy that every client's
                                           median latency through the rotations was seconds
          --partitions N                   reassign: partitions per topic [100]
          --rotations N                    reassign: replica rotations [3]
          --reassign-warmup-s N            reassign: seconds sent before the first rotation, not measured [5]
          --settle-s N                     reassign: seconds sent after each rotation [5]
          --reassign-max-in-flight N       reassign: max.in.flight.requests.per.connection of every
                                           client [1]; at Kafka's default 5, KafkaProducer 4.3.1 was
                                           seen to retry OUT_OF_ORDER_SEQUENCE_NUMBER until
                                           delivery.timeout.ms (120 s) after a rotation
          --json PATH                      figures file [target/producer-benchmark.json]
          --help                           this text
        """;

    /** The options, checked. */
    public BenchmarkOptions {
        scenarios = List.copyOf(scenarios);
        CommandLine.requirePositive("--record-bytes", recordBytes);
        CommandLine.requirePositive("--steady-repetitions", steadyRepetitions);
        CommandLine.requirePositive("--rate", rate);
        CommandLine.requirePositive("--partitions", partitions);
        CommandLine.requirePositive("--rotations", rotations);
        CommandLine.requirePositive("--reassign-max-in-flight", reassignInFlight);
        if (steadyDuration.isZero()) {
            throw new IllegalArgumentException("--steady-duration-s must be at least 1");
        }
    }

    /**
     * Reads the options from {@code line}.
     *
     * @throws IllegalArgumentException naming the option and what is allowed
     */
    public static BenchmarkOptions read(CommandLine line) {
        String scenario = line.string("--scenario", "all");
        List<Scenario> scenarios = switch (scenario) {
            case "all" -> List.of(Scenario.STEADY, Scenario.REASSIGN);
            case "steady" -> List.of(Scenario.STEADY);
            case "reassign" -> List.of(Scenario.REASSIGN);
            default -> throw new IllegalArgumentException("--scenario " + scenario + ": expected steady, reassign or all");
        };
        return new BenchmarkOptions(scenarios,
            line.integer("--record-bytes", 1024),
            line.seconds("--steady-warmup-s", 5),
            line.seconds("--steady-duration-s", 20),
            line.integer("--steady-repetitions", 2),
            line.integer("--rate", 200),
            line.integer("--partitions", 100),
            line.integer("--rotations", 3),
            line.seconds("--reassign-warmup-s", 5),
            line.seconds("--settle-s", 5),
            line.integer("--reassign-max-in-flight", 1),
            line.path("--json", "target/producer-benchmark.json"));
    }
}
