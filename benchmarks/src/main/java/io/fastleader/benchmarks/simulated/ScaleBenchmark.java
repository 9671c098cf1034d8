package io.fastleader.benchmarks.simulated;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.common.TopicPartition;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.leadermove.Variant;
import io.fastleader.it.sim.LoggedRequest;
import io.fastleader.it.sim.SimulatedCluster;

/**
 * Issue 34's scale measurement, on the simulated cluster: for each cell of a grid of broker and
 * partition counts and each scenario, each client variant's producer (in a child JVM of its own)
 * through the same leader moves on a fresh {@link SimulatedCluster}, one variant after another.
 * See {@link ScaleOptions#HELP} and benchmarks/README.md.
 */
public final class ScaleBenchmark {

    /** Enough for every request of a cell's moves; a fuller log is reported, as its counts would be short. */
    private static final int REQUEST_LOG_CAPACITY = 2_000_000;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final ScaleOptions options;

    private ScaleBenchmark(ScaleOptions options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        ScaleOptions options = CommandLine.parseOrExit(args, ScaleOptions.HELP, ScaleOptions::read);
        if (options != null) {
            new ScaleBenchmark(options).run();
        }
    }

    private void run() throws Exception {
        List<CellResult> results = new ArrayList<>();
        long started = System.nanoTime();
        System.out.println(ScaleReport.header());
        for (int brokers : options.brokers()) {
            for (int partitions : options.partitions()) {
                for (ScaleScenario scenario : options.scenarios()) {
                    for (Variant variant : options.variants()) {
                        CellResult result = measure(brokers, partitions, scenario, variant);
                        results.add(result);
                        System.out.println(ScaleReport.row(result));
                        write(results);
                    }
                }
            }
        }
        System.out.printf("%n%d cells in %d s; figures in %s%n", results.size(),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), options.json().toAbsolutePath());
    }

    private void write(List<CellResult> results) throws Exception {
        if (options.json().getParent() != null) {
            Files.createDirectories(options.json().getParent());
        }
        JSON.writeValue(options.json().toFile(), Map.of("options", options, "results", results));
    }

    /** One variant through one scenario on a fresh cluster of {@code brokers} and {@code partitions}. */
    private CellResult measure(int brokers, int partitions, ScaleScenario scenario, Variant variant) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(brokers).requestLogCapacity(REQUEST_LOG_CAPACITY).start()) {
            List<String> topics = new ArrayList<>();
            List<TopicPartition> every = new ArrayList<>();
            for (int t = 0; t < options.topics(partitions); t++) {
                String topic = String.format("scale-%05d", t);
                int size = Math.min(options.topicPartitions(), partitions - t * options.topicPartitions());
                cluster.createTopic(topic, size, 3);
                topics.add(topic);
                for (int p = 0; p < size; p++) {
                    every.add(new TopicPartition(topic, p));
                }
            }
            SimulationThreads simulation = SimulationThreads.of(cluster);
            try (ScaleProducer producer = ScaleProducer.start(variant, cluster.bootstrapServers(), options)) {
                // twice: the first write finds metadata and connections, the second runs warm
                for (int round = 0; round < 2; round++) {
                    ScaleProducer.Written warmup = producer.write(every);
                    if (warmup.failed() > 0) {
                        throw new IllegalStateException(producer.clientId() + "'s warm-up write failed " + warmup.failed()
                            + " records, first: " + warmup.firstError());
                    }
                }
                cluster.clearRequestLog();
                long clientCpuBefore = producer.cpuNanos();
                Moves moves = new Moves(producer, clientCpuBefore);
                long simulatedCpuBefore = simulation.cpuNanos();
                long wallBefore = System.nanoTime();
                scenario.run(cluster, topics, options, moves::move);
                long wallNanos = System.nanoTime() - wallBefore;
                long simulatedNanos = simulation.cpuNanos() - simulatedCpuBefore + moves.moveCpuNanos;
                List<LoggedRequest> log = cluster.requestLog();
                if (log.size() == REQUEST_LOG_CAPACITY) {
                    System.out.println("request log full: the request counts of this cell are short");
                }
                Map<String, Long> requests = new TreeMap<>();
                log.stream().filter(request -> producer.clientId().equals(request.clientId()))
                    .forEach(request -> requests.merge(request.api().displayName(), 1L, Long::sum));
                return new CellResult(brokers, partitions, scenario.name().toLowerCase(Locale.ROOT), variant.label(),
                    moves.summaries.size(), moves.moved, moves.failed, moves.firstError, RecoverySummary.of(moves.recoveries()),
                    moves.slowestNanos / 1e6, (moves.lastCpuNanos - clientCpuBefore) / 1e6, simulatedNanos / 1e6,
                    TimeUnit.NANOSECONDS.toMillis(wallNanos), requests, moves.summaries);
            }
        }
    }

    /** The moves of one cell and variant, and what followed each. */
    private static final class Moves {
        private final ScaleProducer producer;
        private final List<String> summaries = new ArrayList<>();
        private final List<long[]> recoveries = new ArrayList<>();
        private int moved;
        private int failed;
        private String firstError = "";
        private long moveCpuNanos;
        private long slowestNanos;
        /** The client JVM's CPU time at its last answer. */
        private long lastCpuNanos;

        Moves(ScaleProducer producer, long cpuNanos) {
            this.producer = producer;
            this.lastCpuNanos = cpuNanos;
        }

        Set<TopicPartition> move(String name, Supplier<Map<TopicPartition, Integer>> move) throws Exception {
            long cpuBefore = SimulationThreads.callerCpuNanos();
            Map<TopicPartition, Integer> epochs = move.get();
            moveCpuNanos += SimulationThreads.callerCpuNanos() - cpuBefore;
            List<TopicPartition> partitions = new ArrayList<>(epochs.keySet());
            partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            if (partitions.isEmpty()) {
                summaries.add(name + ": no partition moved");
                return epochs.keySet();
            }
            ScaleProducer.Written written = producer.write(partitions);
            moved += partitions.size();
            failed += written.failed();
            if (firstError.isEmpty()) {
                firstError = written.firstError();
            }
            long[] acknowledged = Arrays.stream(written.micros()).filter(micros -> micros >= 0).toArray();
            recoveries.add(acknowledged);
            long lastMicros = Arrays.stream(acknowledged).max().orElse(0);
            slowestNanos = Math.max(slowestNanos, TimeUnit.MICROSECONDS.toNanos(lastMicros));
            summaries.add(String.format(Locale.ROOT, "%s: %d partitions, the last acknowledged after %.1f ms", name, partitions.size(),
                lastMicros / 1000.0));
            lastCpuNanos = written.cpuNanos();
            return epochs.keySet();
        }

        long[] recoveries() {
            return recoveries.stream().flatMapToLong(Arrays::stream).toArray();
        }
    }
}
