package io.fastleader.benchmarks.consumer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.CommandLine;

/**
 * The command line of {@link ConsumerBenchmark}. Every option is {@code --name value};
 * {@link #HELP} explains each.
 *
 * @param warmUp              producing and consuming before anything is measured
 * @param duration            the measured time: the quiet baseline window and the move windows
 * @param moves               how many times every partition's leader is moved
 * @param settle              least time after a move completes before the next move (or the end)
 * @param rate                records produced per second
 * @param recordBytes         value size of every record
 * @param partitions          partitions of the topic
 * @param variants            the consumers, all reading the same stream at the same time
 * @param producerInFlight    the producer's {@code max.in.flight.requests.per.connection}
 * @param drain               after the producer stops, how long the consumers may take to read every acknowledged record
 * @param countKafkaRequests  whether KafkaConsumer's requests are counted from its DEBUG log (off only to see what that costs)
 * @param consumerConfig      consumer settings given to every variant on top of the benchmark's own
 * @param json                where the figures are written
 */
public record ConsumerBenchmarkOptions(Duration warmUp, Duration duration, int moves, Duration settle, int rate,
                                       int recordBytes, int partitions, List<ClientVariant> variants, int producerInFlight,
                                       Duration drain, boolean countKafkaRequests, Map<String, String> consumerConfig, Path json) {

    /** The {@code --help} text. */
    public static final String HELP = """
        Usage: java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.consumer.ConsumerBenchmark [options]

        Starts one 3-broker Apache Kafka 4.3.1 cluster in this JVM (loopback only) and one topic
        (replication factor 3, min.insync.replicas=2). One kafka-clients KafkaProducer writes keyed,
        numbered records to it at a fixed rate (acks=all, linger.ms=0, idempotence on). Every
        consumer variant is assigned all partitions from the end and reads that same stream, all at
        the same time. After a warm-up, the measured time is cut into (moves + 1) windows of equal
        length: the first is quiet (the baseline), each of the others starts by rotating every
        partition's replica list, which moves every partition's leader.

        Reports, per variant: end-to-end latency (the record's CreateTime, set by the producer, to
        the moment poll returned it) p50, p99, p99.9 and max, of the records created in the move
        windows and of those in the quiet window, in HdrHistograms; the same from the producer's
        acknowledgement to poll, the consumer's own share; records consumed against records
        acknowledged (missing and duplicated records are named); and per leader move the Fetch,
        Metadata and OffsetsForLeaderEpoch requests sent from the move's start until half its
        window has passed, less what the same consumer sent in as long a quiet span just before
        the move. fastleader's requests come from its metrics (fetch-total,
        metadata-requests-total, offset-validations-total), KafkaConsumer's from kafka-clients'
        own DEBUG log of NetworkClient ("Sending ... request with header ..."), read by an
        appender on that logger, checked against its request-total metric. Ratios are
        fastleader ÷ kafka-clients. A progress line every 5 s; ends by itself; the tables go to
        stdout, every figure to the JSON file.

        Options (defaults in brackets):
          --warmup-s N               seconds produced and consumed before measuring [10]
          --duration-s N             measured seconds: (moves + 1) windows of duration / (moves + 1)
                                     each, the first one quiet [60]
          --moves N                  leader moves: rotations of every partition's replica list [3]
          --settle-s N               at least this many seconds after a move has completed before
                                     the next move or the end; a window whose move takes longer
                                     than its length less this grows, and its baseline is scaled [10]
          --rate N                   records produced per second [200]; at 500/s this JVM alone
                                     kept 1.4 to 1.7 of 2 cores busy and the quiet window's
                                     median was 18 to 33 ms, so the figures measured a busy
                                     machine more than leader moves
          --record-bytes N           value size of every record [512]
          --partitions N             partitions of the topic [100]
          --variants A,B,...         consumers to run, side by side [%s]
          --producer-max-in-flight N the producer's max.in.flight.requests.per.connection [1]; at
                                     5, KafkaProducer 4.3.1 was seen (producer benchmark) to retry
                                     OUT_OF_ORDER_SEQUENCE_NUMBER until delivery.timeout.ms after a
                                     rotation, and that wait would be every consumer's latency
          --drain-s N                after the producer stops, seconds the consumers may take to
                                     read every acknowledged record before the rest counts as
                                     missing [60]
          --count-kafka-requests on|off  count KafkaConsumer's requests from kafka-clients' DEBUG
                                     log of NetworkClient [on]; off leaves that log off (its
                                     request counts are then missing) to see what counting costs
                                     KafkaConsumer's latency: kafka-clients formats every DEBUG
                                     line on the consumer's polling thread
          --consumer-config K=V,...  consumer settings for every variant, e.g. fetch.max.wait.ms=100
                                     [none: client.id, enable.auto.commit=false and
                                     auto.offset.reset=latest, the rest at Kafka's defaults]
          --json PATH                figures file [target/consumer-benchmark.json]
          --help                     this text
        """.formatted(labels(List.of(ClientVariant.values())));

    /** The options, checked. */
    public ConsumerBenchmarkOptions {
        variants = List.copyOf(variants);
        consumerConfig = Map.copyOf(consumerConfig);
        CommandLine.requirePositive("--duration-s", (int) duration.toSeconds());
        CommandLine.requirePositive("--moves", moves);
        CommandLine.requirePositive("--rate", rate);
        CommandLine.requirePositive("--record-bytes", recordBytes);
        CommandLine.requirePositive("--partitions", partitions);
        CommandLine.requirePositive("--producer-max-in-flight", producerInFlight);
        if (variants.isEmpty() || variants.stream().distinct().count() != variants.size()) {
            throw new IllegalArgumentException("--variants " + labels(variants) + ": expected one or more distinct variants");
        }
        if (duration.dividedBy(moves + 1L).toMillis() < 1000) {
            throw new IllegalArgumentException("--duration-s " + duration.toSeconds() + " with --moves " + moves
                + ": each of the " + (moves + 1) + " windows would be shorter than 1 s");
        }
    }

    /**
     * Reads the options from {@code line}.
     *
     * @throws IllegalArgumentException naming the option and what is allowed
     */
    public static ConsumerBenchmarkOptions read(CommandLine line) {
        String variants = line.string("--variants", labels(List.of(ClientVariant.values())));
        return new ConsumerBenchmarkOptions(
            line.seconds("--warmup-s", 10),
            line.seconds("--duration-s", 60),
            line.integer("--moves", 3),
            line.seconds("--settle-s", 10),
            line.integer("--rate", 200),
            line.integer("--record-bytes", 512),
            line.integer("--partitions", 100),
            Arrays.stream(variants.split(",")).map(String::trim).map(ClientVariant::ofLabel).toList(),
            line.integer("--producer-max-in-flight", 1),
            line.seconds("--drain-s", 60),
            line.onOff("--count-kafka-requests", true),
            line.settings("--consumer-config"),
            line.path("--json", "target/consumer-benchmark.json"));
    }

    /** The length of every window: the quiet one and, unless its move overruns, each move's. */
    public Duration window() {
        return duration.dividedBy(moves + 1L);
    }

    private static String labels(List<ClientVariant> variants) {
        return String.join(",", variants.stream().map(ClientVariant::label).toList());
    }
}
