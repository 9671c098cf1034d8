package io.fastleader.benchmarks.producer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import io.fastleader.benchmarks.common.CommandLine;

/**
 * The command line of {@link ProducerBenchmark}: which scenarios to run and their sizes. Every
 * option is {@code --name value}; {@link #HELP} explains each.
 *
 * @param scenarios         the scenarios to run, in order
 * @param recordBytes       value size of every record: steady runs each, reassign the only one
 * @param steadyLingerMs    steady: the {@code linger.ms} values of the grid
 * @param steadyMaxInFlight steady: the {@code max.in.flight.requests.per.connection} values of the grid
 * @param steadyWarmUp      steady: sending before the measured window opens
 * @param steadyDuration    steady: length of the measured window
 * @param steadyRepetitions steady: rounds per cell; each round measures every client once, the order alternating
 * @param profileJfr        steady: directory for a JDK Flight Recorder file of every measured window, or null for none
 * @param rate              reassign: records per second per client
 * @param partitions        reassign: partitions of each client's topic
 * @param rotations         reassign: how many times every partition's replicas are rotated
 * @param reassignWarmUp    reassign: sending before the first rotation (not measured)
 * @param settle            reassign: sending after each rotation before the next one (or the end)
 * @param reassignInFlight  reassign: every client's {@code max.in.flight.requests.per.connection}
 * @param json              where the figures are written
 */
public record BenchmarkOptions(List<Scenario> scenarios, List<Integer> recordBytes,
                               List<Integer> steadyLingerMs, List<Integer> steadyMaxInFlight,
                               Duration steadyWarmUp, Duration steadyDuration, int steadyRepetitions, Path profileJfr,
                               int rate, int partitions, int rotations, Duration reassignWarmUp, Duration settle, int reassignInFlight,
                               Path json) {

    /** A scenario of the benchmark. */
    public enum Scenario {
        /** As many records per second as each client manages, one client at a time, over a grid of settings. */
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
          steady    records of --record-bytes, acks=all, batch.size 16384, unkeyed, to a 6-partition
                    topic (replication factor 3), as fast as one sending thread manages; one client
                    at a time, a fresh topic each, the order alternating between rounds. Runs every
                    cell of the grid --record-bytes x --steady-linger-ms x --steady-max-in-flight.
                    Reports records/s and CPU per record per turn, then one row per cell: both
                    clients' means, the ratios, and the verdict on issue 34's goal (at least 1.2x
                    KafkaProducer's records/s with at most 0.5x its client CPU per record).
          reassign  a fixed rate of 1 KB keyed records, acks=all, linger.ms=0, each client to its
                    own topic (replication factor 3, min.insync.replicas=2); all clients run at
                    once while every partition's replica list is rotated (its leader moves), the
                    same rotation on every topic at the same moment. Reports send-to-callback
                    latency (p50, p99, p99.9, max), records sent/acknowledged/failed, and
                    fastleader's hint and backoff-skip counters. Clients: fastleader,
                    fastleader-no-hints (fastleader.leader.hints.enabled=false), kafka-clients-4.3.1.

        Options (defaults in brackets):
          --scenario steady|reassign|all   what to run [all]
          --record-bytes N,N,...           value size of every record [1024]; reassign takes one
          --steady-linger-ms N,N,...       steady: linger.ms of every client [5]
          --steady-max-in-flight N,N,...   steady: max.in.flight.requests.per.connection of every
                                           client [5]
          --steady-warmup-s N              steady: seconds sent before measuring [5]
          --steady-duration-s N            steady: seconds measured per client [20]
          --steady-repetitions N           steady: rounds of every client per cell, the order
                                           alternating from round to round, after a first round
                                           (first cell) that only warms the brokers up [2]
          --profile-jfr DIR                steady: record every measured window with JDK Flight
                                           Recorder ("profile" settings) into DIR/<topic>.jfr and
                                           print the client's hottest methods after each turn;
                                           profiling costs CPU, so keep such runs' figures apart
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
        recordBytes = List.copyOf(recordBytes);
        steadyLingerMs = List.copyOf(steadyLingerMs);
        steadyMaxInFlight = List.copyOf(steadyMaxInFlight);
        requireAllPositive("--record-bytes", recordBytes);
        requireAllPositive("--steady-max-in-flight", steadyMaxInFlight);
        if (steadyLingerMs.isEmpty()) {
            throw new IllegalArgumentException("--steady-linger-ms: expected at least one value");
        }
        if (scenarios.contains(Scenario.REASSIGN) && recordBytes.size() > 1) {
            throw new IllegalArgumentException("--record-bytes " + recordBytes.stream().map(String::valueOf).collect(Collectors.joining(","))
                + ": reassign takes one size; run it with "
                + "--scenario steady, or give one size");
        }
        CommandLine.requirePositive("--steady-repetitions", steadyRepetitions);
        CommandLine.requirePositive("--rate", rate);
        CommandLine.requirePositive("--partitions", partitions);
        CommandLine.requirePositive("--rotations", rotations);
        CommandLine.requirePositive("--reassign-max-in-flight", reassignInFlight);
        if (steadyDuration.isZero()) {
            throw new IllegalArgumentException("--steady-duration-s must be at least 1");
        }
    }

    /** The cells the steady scenario runs, in order: every record size × linger × in-flight combination. */
    List<SteadyCell> steadyGrid() {
        return SteadyCell.grid(recordBytes, steadyLingerMs, steadyMaxInFlight);
    }

    /** The value size of the reassign scenario's records. */
    public int reassignRecordBytes() {
        return recordBytes.get(0);
    }

    private static void requireAllPositive(String name, List<Integer> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException(name + ": expected at least one value");
        }
        values.forEach(value -> CommandLine.requirePositive(name, value));
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
        String profileJfr = line.string("--profile-jfr", null);
        return new BenchmarkOptions(scenarios,
            line.integers("--record-bytes", List.of(1024)),
            line.integers("--steady-linger-ms", List.of(5)),
            line.integers("--steady-max-in-flight", List.of(5)),
            line.seconds("--steady-warmup-s", 5),
            line.seconds("--steady-duration-s", 20),
            line.integer("--steady-repetitions", 2),
            profileJfr == null ? null : Path.of(profileJfr),
            line.integer("--rate", 200),
            line.integer("--partitions", 100),
            line.integer("--rotations", 3),
            line.seconds("--reassign-warmup-s", 5),
            line.seconds("--settle-s", 5),
            line.integer("--reassign-max-in-flight", 1),
            line.path("--json", "target/producer-benchmark.json"));
    }
}
