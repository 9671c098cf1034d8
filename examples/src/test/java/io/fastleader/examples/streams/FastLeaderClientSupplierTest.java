package io.fastleader.examples.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link FastLeaderClientSupplier} under a stateful Kafka Streams topology (a count by key, kept in
 * a state store with a changelog topic) on a real single-broker Kafka cluster in this JVM: each
 * behaviour of the topology is run on Kafka's default clients and on the supplier's, and both must
 * end with the same counts.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FastLeaderClientSupplierTest {

    private static final String PAGE_VIEWS = "page-views";
    private static final int PARTITIONS = 3;
    private static final int USERS = 8;
    /** How long a topology may take to count every page view, from {@code start()}. */
    private static final Duration COUNTED_WITHIN = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    /** Each user's page views, as written to {@link #PAGE_VIEWS}: the counts a correct topology ends with. */
    private static Map<String, Long> pageViewsPerUser;

    @TempDir
    Path stateDir;

    /** The clients a {@code KafkaStreams} instance runs on. */
    enum StreamsClients {
        /** {@code new KafkaStreams(topology, properties)}. */
        KAFKA_DEFAULT {
            @Override
            KafkaStreams build(Topology topology, Properties properties) {
                return new KafkaStreams(topology, properties);
            }
        },
        /** {@code new KafkaStreams(topology, properties, new FastLeaderClientSupplier())}. */
        FASTLEADER {
            @Override
            KafkaStreams build(Topology topology, Properties properties) {
                return new KafkaStreams(topology, properties, new FastLeaderClientSupplier());
            }
        };

        abstract KafkaStreams build(Topology topology, Properties properties);

        /** For topic and application names. */
        String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    @BeforeAll
    static void startClusterAndWritePageViews(@Cluster(brokers = 1) KafkaTestCluster started) throws Exception {
        cluster = started;
        createTopic(PAGE_VIEWS);
        pageViewsPerUser = writePageViews(PAGE_VIEWS, 10);
    }

    /** Each run ends with the same counts: every page view counted once, none missing. */
    @ParameterizedTest(name = "{0}")
    @EnumSource
    void testCountsEveryPageViewOfEveryUser(StreamsClients clients) throws Exception {
        String applicationId = "counts-on-" + clients.id();
        createTopic(applicationId + "-output");

        try (CountingInstance instance = new CountingInstance(clients, applicationId, PAGE_VIEWS, stateDir)) {
            assertThat(lastCounts(applicationId, pageViewsPerUser, instance)).isEqualTo(pageViewsPerUser);
        }
    }

    /** The restore consumer reads the changelog back into a state directory that lost it, and counting goes on from there. */
    @ParameterizedTest(name = "{0}")
    @EnumSource
    void testRestoresTheCountsFromTheChangelogWhenRestartedWithoutItsState(StreamsClients clients) throws Exception {
        String input = "page-views-to-restore-on-" + clients.id();
        String applicationId = "restored-counts-on-" + clients.id();
        createTopic(input);
        createTopic(applicationId + "-output");
        Map<String, Long> before = writePageViews(input, 2);
        try (CountingInstance first = new CountingInstance(clients, applicationId, input, stateDir.resolve("first"))) {
            assertThat(lastCounts(applicationId, before, first)).isEqualTo(before);
        }
        Map<String, Long> after = new TreeMap<>(before);
        writePageViews(input, 1).forEach((user, views) -> after.merge(user, views, Long::sum));

        try (CountingInstance restarted = new CountingInstance(clients, applicationId, input, stateDir.resolve("restarted"))) {
            assertThat(lastCounts(applicationId, after, restarted)).isEqualTo(after);
            long countedBefore = before.values().stream().mapToLong(Long::longValue).sum();
            assertThat(restarted.restoredRecords).as("changelog records restored: one per page view counted before")
                .hasValue(countedBefore);
        }
    }

    /**
     * A second instance joining the application's group takes some of its tasks over (Streams'
     * assignor, cooperative rebalancing), and together they count every page view once.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource
    void testTwoInstancesShareTheTasksAndCountEveryPageViewOfEveryUser(StreamsClients clients) throws Exception {
        String input = "page-views-to-share-on-" + clients.id();
        String applicationId = "shared-counts-on-" + clients.id();
        createTopic(input);
        createTopic(applicationId + "-output");
        Map<String, Long> before = writePageViews(input, 2);
        try (CountingInstance first = new CountingInstance(clients, applicationId, input, stateDir.resolve("first"))) {
            assertThat(lastCounts(applicationId, before, first)).isEqualTo(before);

            try (CountingInstance second = new CountingInstance(clients, applicationId, input, stateDir.resolve("second"))) {
                Await.until("each instance running some of the " + PARTITIONS + " tasks", COUNTED_WITHIN, () -> {
                    first.failIfDied();
                    second.failIfDied();
                    return first.isRunning() && second.isRunning() && !first.activeTasks().isEmpty() && !second.activeTasks().isEmpty()
                            && first.activeTasks().size() + second.activeTasks().size() == PARTITIONS;
                });
                Map<String, Long> after = new TreeMap<>(before);
                writePageViews(input, 1).forEach((user, views) -> after.merge(user, views, Long::sum));

                assertThat(lastCounts(applicationId, after, first, second)).isEqualTo(after);
            }
        }
    }

    @Test
    void testKafkaStreamsGetsFastLeadersProducerAndConsumersAndKafkasAdmin() throws Exception {
        String userProfiles = "user-profiles";
        createTopic(userProfiles);
        StreamsBuilder builder = new StreamsBuilder();
        countingTopology(builder, PAGE_VIEWS, "handed-out-counts");
        // A GlobalKTable, so Streams asks for its global consumer too.
        builder.globalTable(userProfiles, Consumed.with(Serdes.String(), Serdes.String()));
        RecordingClientSupplier supplier = new RecordingClientSupplier(new FastLeaderClientSupplier());

        // Streams asks for every client while it is built; starting it would change nothing here.
        supplier.build(builder.build(), streamsProperties("handed-out", stateDir)).close();

        assertThat(supplier.handedOut).containsOnlyKeys("admin", "producer", "consumer", "restore consumer", "global consumer");
        assertThat(supplier.handedOut.get("admin")).isInstanceOf(Admin.class);
        assertThat(supplier.handedOut.get("producer")).isInstanceOf(FastLeaderProducer.class);
        assertThat(supplier.handedOut.get("consumer")).isInstanceOf(FastLeaderConsumer.class);
        assertThat(supplier.handedOut.get("restore consumer")).isInstanceOf(FastLeaderConsumer.class);
        assertThat(supplier.handedOut.get("global consumer")).isInstanceOf(FastLeaderConsumer.class);
    }

    @Test
    void testExactlyOnceIsRefusedWhenKafkaStreamsIsBuilt() {
        StreamsBuilder builder = new StreamsBuilder();
        countingTopology(builder, PAGE_VIEWS, "exactly-once-counts");
        Properties properties = streamsProperties("exactly-once", stateDir);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        RecordingClientSupplier supplier = new RecordingClientSupplier(new FastLeaderClientSupplier());

        assertThatThrownBy(() -> supplier.build(builder.build(), properties))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)
            .hasMessageContaining(StreamsConfig.EXACTLY_ONCE_V2)
            .hasMessageContaining("does not support transactions yet");
        assertThat(supplier.handedOut).doesNotContainKey("producer");
    }

    /**
     * One started instance of the counting application {@code applicationId}, from {@code input}
     * to {@code <applicationId>-output}; closing it closes Streams within 30 s.
     */
    private static final class CountingInstance implements AutoCloseable {
        final KafkaStreams streams;
        /** What killed a stream thread, if anything did. */
        private final AtomicReference<Throwable> died = new AtomicReference<>();
        /** Changelog records restored into the state stores. */
        final AtomicLong restoredRecords = new AtomicLong();

        CountingInstance(StreamsClients clients, String applicationId, String input, Path stateDir) {
            StreamsBuilder builder = new StreamsBuilder();
            countingTopology(builder, input, applicationId + "-output");
            streams = clients.build(builder.build(), streamsProperties(applicationId, stateDir));
            streams.setUncaughtExceptionHandler(exception -> {
                died.set(exception);
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            });
            streams.setGlobalStateRestoreListener(new StateRestoreListener() {
                @Override
                public void onRestoreStart(TopicPartition partition, String store, long startOffset, long endOffset) {
                }

                @Override
                public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long records) {
                }

                @Override
                public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                    restoredRecords.addAndGet(totalRestored);
                }
            });
            streams.start();
        }

        /** Throws (an {@code Error}, which {@link Await} passes on at once) if a stream thread died. */
        void failIfDied() {
            if (died.get() != null) {
                throw new AssertionError("a stream thread died; the instance is now " + streams.state(), died.get());
            }
        }

        boolean isRunning() {
            return streams.state() == KafkaStreams.State.RUNNING;
        }

        Set<TaskId> activeTasks() {
            return streams.metadataForLocalThreads().stream()
                .flatMap(thread -> thread.activeTasks().stream())
                .map(TaskMetadata::taskId)
                .collect(Collectors.toSet());
        }

        @Override
        public String toString() {
            return streams.state() + " with tasks " + activeTasks();
        }

        @Override
        public void close() {
            streams.close(Duration.ofSeconds(30));
        }
    }

    /** Page views counted per user, in a state store backed by a changelog topic; each new count goes to {@code output}. */
    private static void countingTopology(StreamsBuilder builder, String input, String output) {
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count(Materialized.as("page-views-per-user"))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    }

    /**
     * Reads {@code <applicationId>-output} from its start until every user's last count reaches the
     * {@code expected} one, failing at once if a stream thread of an instance died and after
     * {@link #COUNTED_WITHIN} with what it read. A count past the expected one (a page view counted
     * twice) ends the wait too, for the caller to see.
     */
    private static Map<String, Long> lastCounts(String applicationId, Map<String, Long> expected, CountingInstance... instances) {
        Map<String, Long> counts = new TreeMap<>();
        try (Consumer<String, Long> reader = new KafkaConsumer<>(cluster.clientConfig(), new StringDeserializer(), new LongDeserializer())) {
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(applicationId + "-output", p))
                .toList();
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            long deadline = System.nanoTime() + COUNTED_WITHIN.toNanos();
            while (!expected.entrySet().stream().allMatch(user -> counts.getOrDefault(user.getKey(), 0L) >= user.getValue())) {
                for (CountingInstance instance : instances) {
                    instance.failIfDied();
                }
                if (System.nanoTime() - deadline > 0) {
                    fail("not every page view counted within %s: last counts %s of %s, instances %s",
                            COUNTED_WITHIN, counts, expected, List.of(instances));
                }
                for (ConsumerRecord<String, Long> count : reader.poll(Duration.ofMillis(200))) {
                    counts.put(count.key(), count.value());
                }
            }
        }
        return counts;
    }

    private static Properties streamsProperties(String applicationId, Path stateDir) {
        Properties properties = new Properties();
        properties.putAll(cluster.clientConfig());
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // Every count is written and committed at once instead of after the cache fills or 30 s pass.
        properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        /*
         * KafkaStreams.close() keeps its main consumer in the group (no LeaveGroup); a restarted
         * instance's rebalance then waits for the old member's session to time out: 6 s, the
         * broker's least, instead of 45.
         */
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        return properties;
    }

    /**
     * Writes page views to {@code topic} with Kafka's producer: user {@code u} views
     * {@code (u + 1) * viewsPerRank} pages, interleaved with the others, so every user's count differs.
     *
     * @return each user's page views written
     */
    private static Map<String, Long> writePageViews(String topic, int viewsPerRank) {
        Map<String, Long> written = new TreeMap<>();
        try (Producer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(), new StringSerializer())) {
            for (int round = 0; round < USERS * viewsPerRank; round++) {
                for (int user = 0; user < USERS; user++) {
                    if (round < (user + 1) * viewsPerRank) {
                        String key = "user-" + user;
                        producer.send(new ProducerRecord<>(topic, key, "/page/" + round));
                        written.merge(key, 1L, Long::sum);
                    }
                }
            }
            producer.flush();
        }
        return written;
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(topic, Optional.of(PARTITIONS), Optional.empty()))).all().get();
        }
    }

    /** Hands out its delegate's clients and remembers each, by the role Streams asked for. */
    private static final class RecordingClientSupplier implements KafkaClientSupplier {
        private final KafkaClientSupplier delegate;
        final Map<String, AutoCloseable> handedOut = new LinkedHashMap<>();

        RecordingClientSupplier(KafkaClientSupplier delegate) {
            this.delegate = delegate;
        }

        @Override
        public Admin getAdmin(Map<String, Object> config) {
            return record("admin", delegate.getAdmin(config));
        }

        @Override
        public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            return record("producer", delegate.getProducer(config));
        }

        @Override
        public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
            return record("consumer", delegate.getConsumer(config));
        }

        @Override
        public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
            return record("restore consumer", delegate.getRestoreConsumer(config));
        }

        @Override
        public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
            return record("global consumer", delegate.getGlobalConsumer(config));
        }

        private <T extends AutoCloseable> T record(String role, T client) {
            handedOut.put(role, client);
            return client;
        }

        /**
         * A {@code KafkaStreams} on this supplier's clients. A constructor that throws leaves open
         * what Streams was handed before; this closes it then.
         */
        KafkaStreams build(Topology topology, Properties properties) {
            try {
                return new KafkaStreams(topology, properties, this);
            } catch (RuntimeException e) {
                for (AutoCloseable client : handedOut.values()) {
                    try {
                        client.close();
                    } catch (Exception closing) {
                        e.addSuppressed(closing);
                    }
                }
                throw e;
            }
        }
    }
}
