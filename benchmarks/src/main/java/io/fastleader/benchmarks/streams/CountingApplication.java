package io.fastleader.benchmarks.streams;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.examples.streams.FastLeaderClientSupplier;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * One variant's Kafka Streams application: its input and output topics (three replicas,
 * {@code min.insync.replicas=2}), a count by key of the input into a state store with a changelog,
 * each new count written to the output, at {@code at_least_once}; on Kafka's default clients
 * ({@code new KafkaStreams(topology, properties)}) or on the examples' {@link FastLeaderClientSupplier}.
 * One instance with one stream thread. A stream thread that dies shuts the instance down, and what
 * killed it is kept for the report.
 */
final class CountingApplication implements AutoCloseable {

    /** The count's state store; its changelog is {@code <application id>-counts-changelog}. */
    static final String STORE = "counts";
    private static final Map<String, String> MIN_ISR_2 = Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");

    final ClientVariant variant;
    final String applicationId;
    final String input;
    final String output;
    private final Path stateDir;
    private final KafkaStreams streams;
    private final AtomicReference<Throwable> died = new AtomicReference<>();
    private final List<String> stateChanges = new ArrayList<>();

    CountingApplication(KafkaTestCluster cluster, Disturbances disturbances, ClientVariant variant, int partitions) {
        this.variant = variant;
        this.applicationId = "streams-roll-" + variant.label();
        this.input = applicationId + "-input";
        this.output = applicationId + "-output";
        disturbances.createTopic(new NewTopic(input, partitions, (short) 3).configs(MIN_ISR_2));
        disturbances.createTopic(new NewTopic(output, partitions, (short) 3).configs(MIN_ISR_2));
        try {
            this.stateDir = Files.createTempDirectory(applicationId + "-state-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Topology topology = topology(input, output);
        Properties properties = properties(cluster.clientConfig(), applicationId, stateDir);
        this.streams = variant.isFastLeader()
                ? new KafkaStreams(topology, properties, new FastLeaderClientSupplier())
                : new KafkaStreams(topology, properties);
        streams.setUncaughtExceptionHandler(exception -> {
            died.compareAndSet(null, exception);
            System.err.printf("%s %s: a stream thread died: %s%n", Instant.now(), variant.label(), stackTrace(exception));
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setStateListener((newState, oldState) -> {
            synchronized (stateChanges) {
                stateChanges.add(Instant.now() + " " + oldState + " -> " + newState);
            }
        });
        streams.start();
    }

    /** The count by key: input (String keys, any value) to a state store, each new count to {@code output}. */
    static Topology topology(String input, String output) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.ByteArray()))
                .groupByKey()
                .count(Materialized.as(STORE))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /**
     * As the examples' {@code StreamsThroughARollTest}: {@code at_least_once}, no record cache and a
     * commit every 100 ms (every input record gives one count update at once), internal topics with
     * three replicas and {@code min.insync.replicas=2}, the main consumer's session 6 s and
     * heartbeat 500 ms.
     */
    static Properties properties(Map<String, Object> clientConfig, String applicationId, Path stateDir) {
        Properties properties = new Properties();
        properties.putAll(clientConfig);
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        properties.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        properties.put(StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG), "2");
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
        return properties;
    }

    String changelog() {
        return applicationId + "-" + STORE + "-changelog";
    }

    boolean isRunningAllOf(int partitions) {
        return streams.state() == KafkaStreams.State.RUNNING && streams.metadataForLocalThreads().stream()
                .mapToInt(thread -> thread.activeTasks().size()).sum() == partitions;
    }

    KafkaStreams.State state() {
        return streams.state();
    }

    /** What killed a stream thread, or null. */
    Throwable died() {
        return died.get();
    }

    /** The instance's state changes so far, each with its time, and forgets them. */
    List<String> takeStateChanges() {
        synchronized (stateChanges) {
            List<String> taken = List.copyOf(stateChanges);
            stateChanges.clear();
            return taken;
        }
    }

    static String stackTrace(Throwable exception) {
        StringWriter trace = new StringWriter();
        exception.printStackTrace(new PrintWriter(trace));
        return trace.toString();
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(30));
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + stateDir + ": " + e);
        }
    }
}
