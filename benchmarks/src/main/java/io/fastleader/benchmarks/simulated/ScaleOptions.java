package io.fastleader.benchmarks.simulated;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.leadermove.Variant;

/**
 * The scale benchmark's grid and settings.
 *
 * @param brokers         broker counts of the grid (at least 3 each: the topics have RF 3)
 * @param partitions      partition counts of the grid
 * @param scenarios       the disturbances, each a cell of its own
 * @param variants        the clients, one child JVM each, one after another in each cell
 * @param moves           roll: brokers rolled per cell (at most every broker); reassign: rotations
 * @param reassignPercent reassign: the share of partitions whose leader moves at each rotation
 * @param topicPartitions partitions per topic: a cell's partitions are spread over topics of this size
 * @param lingerMs        every variant's {@code linger.ms}
 * @param downMillis      roll: how long each broker stays stopped
 * @param clientConfig    settings for every variant's producer, on top of the driver's own
 * @param json            where the figures go
 */
record ScaleOptions(List<Integer> brokers, List<Integer> partitions, List<ScaleScenario> scenarios, List<Variant> variants,
                    int moves, int reassignPercent, int topicPartitions, int lingerMs, int downMillis,
                    Map<String, String> clientConfig, Path json) {

    /** Same for every variant: small batches and room for one per partition, so a write to 100,000 partitions never waits for buffer memory. */
    static final String DEFAULT_CLIENT_CONFIG = "batch.size=1024,buffer.memory=268435456";

    static final String HELP = """
        Measures leader moves on the simulated Kafka cluster (io.fastleader.it.sim.SimulatedCluster,
        in this JVM) over a grid of broker and partition counts, for each client variant: one
        producer per variant, in a child JVM of its own, one variant after another, each on a
        fresh cluster. The producer first writes a record to every partition twice (metadata and
        connections settled); then each move of the scenario is made and at once a record is sent
        to every partition it moved. Per-partition recovery = from the write command's arrival,
        right after the move, to that record's acknowledgement.

        Prints a row per cell and variant: moved partitions, recovery p50/p99/p99.9/max, the
        client JVM's CPU time over the moves (and per moved partition), the requests the client
        sent per API during the moves (from the cluster's request log, by client id), and the
        simulated side's CPU (its two threads plus the moves). Writes every figure as JSON.

        java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.simulated.ScaleBenchmark [options]

          --brokers LIST        broker counts, comma-separated (default 3,10,100; each >= 3)
          --partitions LIST     partition counts (default 1000,10000,100000)
          --scenario LIST       roll: brokers stop gracefully (leadership moved off first), stay
                                down --down-ms, start, and get their leaderships back, one broker
                                after another: two moves per broker;
                                reassign: the leader of --reassign-percent of the partitions moves
                                to the replica after it, --moves times (default roll,reassign)
          --variants LIST       default fastleader,kafka-clients-4.3.1,kafka-clients-3.6.0; any of %s
          --moves N             roll: brokers rolled per cell, at most all (default 3);
                                reassign: rotations (default 3)
          --reassign-percent N  reassign: share of the partitions moved per rotation (default 100)
          --topic-partitions N  partitions per topic (default 1000)
          --linger-ms N         every variant's linger.ms (default 5)
          --down-ms N           roll: how long a stopped broker stays down (default 1000)
          --client-config K=V,K=V  every variant's producer settings, in place of the default
                                (%s)
          --json PATH           where the figures go (default benchmarks/target/scale.json)
        """.formatted(Variant.labels(), DEFAULT_CLIENT_CONFIG);

    static ScaleOptions read(CommandLine line) {
        List<Integer> brokers = list(line.string("--brokers", "3,10,100"), "--brokers", ScaleOptions::count);
        for (int count : brokers) {
            if (count < 3) {
                throw new IllegalArgumentException("--brokers " + count + ": expected at least 3 (the topics have RF 3)");
            }
        }
        List<Integer> partitions = list(line.string("--partitions", "1000,10000,100000"), "--partitions", ScaleOptions::count);
        List<ScaleScenario> scenarios = list(line.string("--scenario", "roll,reassign"), "--scenario",
            name -> ScaleScenario.valueOf(name.toUpperCase(Locale.ROOT)));
        List<Variant> variants = list(line.string("--variants", "fastleader,kafka-clients-4.3.1,kafka-clients-3.6.0"), "--variants",
            Variant::ofLabel);
        int moves = line.integer("--moves", 3);
        CommandLine.requirePositive("--moves", moves);
        int reassignPercent = line.integer("--reassign-percent", 100);
        if (reassignPercent < 1 || reassignPercent > 100) {
            throw new IllegalArgumentException("--reassign-percent " + reassignPercent + ": expected 1 to 100");
        }
        int topicPartitions = line.integer("--topic-partitions", 1000);
        CommandLine.requirePositive("--topic-partitions", topicPartitions);
        int lingerMs = line.integer("--linger-ms", 5);
        int downMillis = line.integer("--down-ms", 1000);
        // read as text first, so that the default goes through the same parsing as a given value
        String clientSettings = line.string("--client-config", DEFAULT_CLIENT_CONFIG);
        Map<String, String> clientConfig = CommandLine.parse("--client-config", clientSettings).settings("--client-config");
        return new ScaleOptions(brokers, partitions, scenarios, variants, moves, reassignPercent, topicPartitions, lingerMs,
            downMillis, clientConfig, line.path("--json", "benchmarks/target/scale.json"));
    }

    /** {@code value}'s comma-separated items, each read by {@code item}; an item it refuses is named with {@code name}. */
    static <T> List<T> list(String value, String name, Function<String, T> item) {
        List<T> items = new ArrayList<>();
        for (String text : value.split(",")) {
            if (text.isBlank()) {
                continue;
            }
            try {
                T parsed = item.apply(text.trim());
                if (items.contains(parsed)) {
                    throw new IllegalArgumentException("given twice");
                }
                items.add(parsed);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(name + " " + value + ": '" + text.trim() + "' " + e.getMessage(), e);
            }
        }
        if (items.isEmpty()) {
            throw new IllegalArgumentException(name + " " + value + ": expected at least one");
        }
        return items;
    }

    private static int count(String text) {
        int count = Integer.parseInt(text);
        if (count < 1) {
            throw new IllegalArgumentException("is not at least 1");
        }
        return count;
    }

    /** How many topics a cell of {@code partitions} partitions has: all of {@link #topicPartitions}, the last one maybe smaller. */
    int topics(int partitions) {
        return (partitions + topicPartitions - 1) / topicPartitions;
    }
}
