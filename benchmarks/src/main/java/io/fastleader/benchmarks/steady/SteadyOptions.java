package io.fastleader.benchmarks.steady;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.fastleader.benchmarks.common.CommandLine;

/**
 * The command line of {@link SteadyBenchmark}. Every option is {@code --name value}; {@link #HELP}
 * explains each.
 *
 * @param modes                 the modes to run, in order
 * @param recordBytes           value sizes, in every mode
 * @param lingerMs              throughput: the {@code linger.ms} values of the grid
 * @param maxInFlight           throughput: the {@code max.in.flight.requests.per.connection} values of the grid
 * @param compression           throughput: a codec per extra cell at 1 KB, linger 5, 5 in flight; none for no such cell
 * @param latencyLingerMs       latency: the {@code linger.ms} values
 * @param latencyMaxInFlight    latency: the {@code max.in.flight.requests.per.connection} values
 * @param latencyRates          latency: records per second for each record size
 * @param consumeFetchMinBytes  consume: the {@code fetch.min.bytes} values
 * @param consumeMaxPollRecords consume: the {@code max.poll.records} values
 * @param consumeBacklogMib     consume: MiB of record values in the backlog topic of each record size
 * @param warmUp                sending or reading in each client JVM before its window opens
 * @param window                the measured window
 * @param repetitions           rounds per cell; each round runs every client once, the order alternating
 * @param clientJvmOptions      the {@code java} options of every client JVM
 * @param json                  where the figures are written
 */
record SteadyOptions(List<Cell.Mode> modes, List<Integer> recordBytes, List<Integer> lingerMs, List<Integer> maxInFlight,
                     List<String> compression, List<Integer> latencyLingerMs, List<Integer> latencyMaxInFlight,
                     Map<Integer, Integer> latencyRates, List<Integer> consumeFetchMinBytes, List<Integer> consumeMaxPollRecords,
                     int consumeBacklogMib, Duration warmUp, Duration window, int repetitions, List<String> clientJvmOptions,
                     Path json) {

    /** The codecs a compression cell takes: kafka-clients' own. */
    private static final Set<String> CODECS = Set.of("gzip", "snappy", "lz4", "zstd");
    /** The compression cells' record size, linger and in-flight limit: the grid's middle, where batches fill. */
    private static final int COMPRESSION_RECORD_BYTES = 1024;
    private static final int COMPRESSION_LINGER_MS = 5;
    private static final int COMPRESSION_MAX_IN_FLIGHT = 5;
    /**
     * Fixed rather than the JVM's ergonomics (the serial collector on a one-CPU container), and the
     * heap touched at start: a long-running client's heap pages are all in memory once its young
     * generation has been used through, while a fresh JVM pays a page fault per new page until then,
     * longer for a client that allocates less.
     */
    private static final String DEFAULT_CLIENT_JVM_OPTIONS = "-Xms1g -Xmx1g -XX:+UseG1GC -XX:+AlwaysPreTouch";

    static final String HELP = """
        Usage: java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.steady.SteadyBenchmark [options]

        Starts one 3-broker Apache Kafka 4.3.1 cluster, each broker in a child JVM (loopback only),
        and runs FastLeaderProducer and KafkaProducer 4.3.1 (or, in consume mode,
        FastLeaderConsumer and KafkaConsumer 4.3.1) against it one at a time, each turn in a fresh
        client JVM of its own, so that every figure is a whole client process's: records
        acknowledged (consumed)/s, the process's CPU time per record, the collectors' time, the
        live threads. Producers send unkeyed random bytes, acks=all, idempotence on (the default),
        to a fresh 6-partition topic (replication factor 3) per turn. Each client JVM sends (reads)
        for --warmup-s, then measures a window of --window-s, and only that window. The run ends by
        itself, with a table per mode (each client's means, ratios fastleader ÷ kafka-clients) and
        a JSON file.

        Modes:
          throughput  one thread calls send as fast as it can (held back only by buffer.memory
                      and max.block.ms): every cell of --record-bytes x --steady-linger-ms x
                      --steady-max-in-flight, uncompressed, plus one cell per --compression codec
                      at 1024 B, linger.ms 5, 5 in flight
          latency     a fixed rate below saturation (--latency-rates, per record size), every
                      record timed from just before send to its callback, for the records sent in
                      the window: p50, p99, p99.9 and max, with the same CPU and GC figures;
                      every cell of --record-bytes x --latency-linger-ms x --latency-max-in-flight
          consume     a consumer, without a group, assigned every partition of a backlog topic
                      (one per record size, filled once before its first turn with
                      --consume-backlog-mib of values by a KafkaProducer, acks=all, linger.ms 5),
                      polls flat out, seeking each partition back to its start as it reaches the
                      end: every cell of --record-bytes x --consume-fetch-min-bytes x
                      --consume-max-poll-records
          all         throughput and latency; consume runs only when asked for

        Options (defaults in brackets):
          --mode throughput|latency|consume|all
                                           what to run [all]
          --record-bytes N,N,...           value sizes, every mode [100,1024]
          --steady-linger-ms N,N,...       throughput: linger.ms [0,5,20]
          --steady-max-in-flight N,N,...   throughput: max.in.flight.requests.per.connection [1,5]
          --compression C,C,...|none       throughput: a 1024 B, linger 5, 5-in-flight cell per
                                           codec (gzip, snappy, lz4, zstd) [lz4,zstd]
          --latency-linger-ms N,N,...      latency: linger.ms [0,5]
          --latency-max-in-flight N,N,...  latency: max.in.flight.requests.per.connection [5]
          --latency-rates B=R,B=R,...      latency: records/s R for record size B; every size of
                                           --record-bytes needs one [100=50000,1024=15000]
          --consume-fetch-min-bytes N,N,...
                                           consume: fetch.min.bytes [1,65536]
          --consume-max-poll-records N,N,...
                                           consume: max.poll.records [500]
          --consume-backlog-mib N          consume: MiB of record values in each record size's
                                           backlog topic [256]
          --warmup-s N                     seconds sent (read) in each client JVM before its
                                           window: a fresh JVM compiles its hot paths in them; the
                                           JIT time each turn prints for its window says if they
                                           were enough (after 10 s both clients still compiled
                                           for seconds in the window; at about 31 s both clients'
                                           metrics end their first 30 s sample, and the code that
                                           records them is compiled again) [40]
          --window-s N                     seconds measured per turn [20]
          --repetitions N                  rounds of both clients per cell, the order alternating
                                           from round to round, after a first round (first cell)
                                           that only warms the brokers up [2]
          --client-jvm-options "OPTS"      java options of every client JVM, space-separated
                                           [%s]
          --json PATH                      figures file [benchmarks/target/steady-benchmark.json]
          --help                           this text
        """.formatted(DEFAULT_CLIENT_JVM_OPTIONS);

    /** The options, checked. */
    SteadyOptions {
        modes = List.copyOf(modes);
        recordBytes = List.copyOf(recordBytes);
        lingerMs = List.copyOf(lingerMs);
        maxInFlight = List.copyOf(maxInFlight);
        compression = List.copyOf(compression);
        latencyLingerMs = List.copyOf(latencyLingerMs);
        latencyMaxInFlight = List.copyOf(latencyMaxInFlight);
        latencyRates = Map.copyOf(latencyRates);
        consumeFetchMinBytes = List.copyOf(consumeFetchMinBytes);
        consumeMaxPollRecords = List.copyOf(consumeMaxPollRecords);
        clientJvmOptions = List.copyOf(clientJvmOptions);
        requireAllPositive("--record-bytes", recordBytes);
        requireAllPositive("--steady-max-in-flight", maxInFlight);
        requireAllPositive("--latency-max-in-flight", latencyMaxInFlight);
        requireAllPositive("--consume-fetch-min-bytes", consumeFetchMinBytes);
        requireAllPositive("--consume-max-poll-records", consumeMaxPollRecords);
        CommandLine.requirePositive("--consume-backlog-mib", consumeBacklogMib);
        if (lingerMs.isEmpty() || latencyLingerMs.isEmpty()) {
            throw new IllegalArgumentException("--steady-linger-ms and --latency-linger-ms: expected at least one value");
        }
        for (String codec : compression) {
            if (!CODECS.contains(codec)) {
                throw new IllegalArgumentException("--compression " + codec + ": expected none or some of gzip,snappy,lz4,zstd");
            }
        }
        if (modes.contains(Cell.Mode.LATENCY)) {
            for (int bytes : recordBytes) {
                Integer rate = latencyRates.get(bytes);
                if (rate == null || rate < 1) {
                    throw new IllegalArgumentException("--latency-rates " + latencyRates + ": no rate of at least 1 for " + bytes + " B records");
                }
            }
        }
        CommandLine.requirePositive("--repetitions", repetitions);
        if (window.isZero()) {
            throw new IllegalArgumentException("--window-s must be at least 1");
        }
    }

    /**
     * The cells to run, in order: per mode, record size outermost, then linger, then in flight (in
     * consume mode, then {@code fetch.min.bytes}, then {@code max.poll.records}); the compression
     * cells after the throughput grid.
     */
    List<Cell> cells() {
        List<Cell> cells = new ArrayList<>();
        for (Cell.Mode mode : modes) {
            if (mode == Cell.Mode.CONSUME) {
                cells.addAll(consumeCells());
                continue;
            }
            boolean throughput = mode == Cell.Mode.THROUGHPUT;
            for (int bytes : recordBytes) {
                for (int linger : throughput ? lingerMs : latencyLingerMs) {
                    for (int inFlight : throughput ? maxInFlight : latencyMaxInFlight) {
                        cells.add(throughput ? Cell.throughput(bytes, linger, inFlight, Cell.NO_COMPRESSION)
                            : Cell.latency(bytes, linger, inFlight, latencyRates.get(bytes)));
                    }
                }
            }
            if (throughput) {
                for (String codec : compression) {
                    cells.add(Cell.throughput(COMPRESSION_RECORD_BYTES, COMPRESSION_LINGER_MS, COMPRESSION_MAX_IN_FLIGHT, codec));
                }
            }
        }
        return List.copyOf(cells);
    }

    private List<Cell> consumeCells() {
        List<Cell> cells = new ArrayList<>();
        for (int bytes : recordBytes) {
            for (int fetchMinBytes : consumeFetchMinBytes) {
                for (int maxPollRecords : consumeMaxPollRecords) {
                    cells.add(Cell.consume(bytes, fetchMinBytes, maxPollRecords));
                }
            }
        }
        return cells;
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
    static SteadyOptions read(CommandLine line) {
        String mode = line.string("--mode", "all");
        List<Cell.Mode> modes = switch (mode) {
            case "all" -> List.of(Cell.Mode.THROUGHPUT, Cell.Mode.LATENCY);
            case "throughput" -> List.of(Cell.Mode.THROUGHPUT);
            case "latency" -> List.of(Cell.Mode.LATENCY);
            case "consume" -> List.of(Cell.Mode.CONSUME);
            default -> throw new IllegalArgumentException("--mode " + mode + ": expected throughput, latency, consume or all");
        };
        String compression = line.string("--compression", "lz4,zstd");
        return new SteadyOptions(modes,
            line.integers("--record-bytes", List.of(100, 1024)),
            line.integers("--steady-linger-ms", List.of(0, 5, 20)),
            line.integers("--steady-max-in-flight", List.of(1, 5)),
            compression.equals(Cell.NO_COMPRESSION) ? List.of() : Arrays.stream(compression.split(",")).map(String::trim).toList(),
            line.integers("--latency-linger-ms", List.of(0, 5)),
            line.integers("--latency-max-in-flight", List.of(5)),
            rates(line.settings("--latency-rates")),
            line.integers("--consume-fetch-min-bytes", List.of(1, 65_536)),
            line.integers("--consume-max-poll-records", List.of(500)),
            line.integer("--consume-backlog-mib", 256),
            line.seconds("--warmup-s", 40),
            line.seconds("--window-s", 20),
            line.integer("--repetitions", 2),
            Arrays.stream(line.string("--client-jvm-options", DEFAULT_CLIENT_JVM_OPTIONS).trim().split("\\s+"))
                .filter(option -> !option.isEmpty()).toList(),
            line.path("--json", "benchmarks/target/steady-benchmark.json"));
    }

    private static Map<Integer, Integer> rates(Map<String, String> given) {
        if (given.isEmpty()) {
            return Map.of(100, 50_000, 1024, 15_000);
        }
        Map<Integer, Integer> rates = new LinkedHashMap<>();
        given.forEach((bytes, rate) -> {
            try {
                rates.put(Integer.parseInt(bytes), Integer.parseInt(rate));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--latency-rates " + bytes + "=" + rate + ": expected bytes=records per second, e.g. 100=50000");
            }
        });
        return rates;
    }

    /** The options as the JSON file keeps them. */
    Map<String, Object> figures() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("modes", modes.stream().map(Cell.Mode::label).toList());
        settings.put("recordBytes", recordBytes);
        settings.put("lingerMs", lingerMs);
        settings.put("maxInFlightRequestsPerConnection", maxInFlight);
        settings.put("compression", compression);
        settings.put("latencyLingerMs", latencyLingerMs);
        settings.put("latencyMaxInFlightRequestsPerConnection", latencyMaxInFlight);
        settings.put("latencyRecordsPerSecond", new TreeMap<>(latencyRates));
        settings.put("consumeFetchMinBytes", consumeFetchMinBytes);
        settings.put("consumeMaxPollRecords", consumeMaxPollRecords);
        settings.put("consumeBacklogMib", consumeBacklogMib);
        settings.put("warmUpSeconds", warmUp.toSeconds());
        settings.put("windowSeconds", window.toSeconds());
        settings.put("repetitions", repetitions);
        settings.put("clientJvmOptions", clientJvmOptions);
        return settings;
    }
}
