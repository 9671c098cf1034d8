package io.fastleader.examples.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.stream.IntStream;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
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
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FastLeaderClientSupplier} under a stateful Kafka Streams topology (a count by key, kept in
 * a state store with a changelog topic) on a real single-broker Kafka cluster in this JVM, compared
 * with the same topology on Kafka's default clients.
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

    @BeforeAll
    static void writePageViews(@Cluster(brokers = 1) KafkaTestCluster started) throws Exception {
        cluster = started;
        createTopic(PAGE_VIEWS);
        Map<String, Long> written = new TreeMap<>();
        Map<String, Object> config = new LinkedHashMap<>(cluster.clientConfig());
        try (Producer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            // User u views (u + 1) * 10 pages, interleaved with the others, so every user's count differs.
            for (int round = 0; round < USERS * 10; round++) {
                for (int user = 0; user < USERS; user++) {
                    if (round < (user + 1) * 10) {
                        String key = "user-" + user;
                        producer.send(new ProducerRecord<>(PAGE_VIEWS, key, "/page/" + round));
                        written.merge(key, 1L, Long::sum);
                    }
                }
            }
            producer.flush();
        }
        pageViewsPerUser = Map.copyOf(written);
    }

    @Test
    void testKafkasDefaultClientsCountEveryPageViewOfEveryUser() throws Exception {
        Map<String, Long> counts = countPageViews("counts-on-kafka-clients", KafkaStreams::new);

        assertThat(counts).isEqualTo(pageViewsPerUser);
    }

    /** The same counts as {@link #testKafkasDefaultClientsCountEveryPageViewOfEveryUser()} shows Kafka's default clients end with. */
    @Test
    void testFastLeaderClientsCountEveryPageViewOfEveryUserAsKafkasDefaultClientsDo() throws Exception {
        Map<String, Long> counts = countPageViews("counts-on-fastleader",
                (topology, properties) -> new KafkaStreams(topology, properties, new FastLeaderClientSupplier()));

        assertThat(counts).isEqualTo(pageViewsPerUser);
    }

    @Test
    void testKafkaStreamsGetsFastLeadersProducerAndConsumersAndKafkasAdmin() throws Exception {
        String userProfiles = "user-profiles";
        createTopic(userProfiles);
        StreamsBuilder builder = new StreamsBuilder();
        countingTopology(builder, "handed-out-counts");
        // A GlobalKTable, so Streams asks for its global consumer too.
        builder.globalTable(userProfiles, Consumed.with(Serdes.String(), Serdes.String()));
        RecordingClientSupplier supplier = new RecordingClientSupplier(new FastLeaderClientSupplier());

        // Streams asks for every client while it is built; starting it would change nothing here.
        supplier.build(builder.build(), streamsProperties("handed-out")).close();

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
        countingTopology(builder, "exactly-once-counts");
        Properties properties = streamsProperties("exactly-once");
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
     * Runs the counting topology as application {@code applicationId} until its output topic holds
     * a count for every page view, and returns each user's last count.
     *
     * @param build builds the {@code KafkaStreams} instance, on the clients under test
     */
    private Map<String, Long> countPageViews(String applicationId, BiFunction<Topology, Properties, KafkaStreams> build)
            throws Exception {
        String output = applicationId + "-output";
        createTopic(output);
        StreamsBuilder builder = new StreamsBuilder();
        countingTopology(builder, output);
        KafkaStreams streams = build.apply(builder.build(), streamsProperties(applicationId));
        AtomicReference<Throwable> died = new AtomicReference<>();
        streams.setUncaughtExceptionHandler(exception -> {
            died.set(exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        try {
            streams.start();
            return lastCounts(output, streams, died);
        } finally {
            streams.close(Duration.ofSeconds(30));
        }
    }

    /** Page views counted per user, in a state store backed by a changelog topic; each new count goes to {@code output}. */
    private static void countingTopology(StreamsBuilder builder, String output) {
        builder.stream(PAGE_VIEWS, Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count(Materialized.as("page-views-per-user"))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    }

    /**
     * Reads {@code output} from its start until every user's last count reaches the page views
     * written, failing at once if the topology died and after {@link #COUNTED_WITHIN} with what it read.
     */
    private static Map<String, Long> lastCounts(String output, KafkaStreams streams, AtomicReference<Throwable> died) {
        Map<String, Object> config = new LinkedHashMap<>(cluster.clientConfig());
        Map<String, Long> counts = new TreeMap<>();
        try (Consumer<String, Long> reader = new KafkaConsumer<>(config, new StringDeserializer(), new LongDeserializer())) {
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(output, p)).toList();
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            long deadline = System.nanoTime() + COUNTED_WITHIN.toNanos();
            while (!everyPageViewCounted(counts)) {
                if (died.get() != null) {
                    throw new AssertionError("the topology died having counted " + counts, died.get());
                }
                if (System.nanoTime() - deadline > 0) {
                    fail("not every page view counted within %s: last counts %s of %s, Streams %s",
                            COUNTED_WITHIN, counts, pageViewsPerUser, streams.state());
                }
                for (ConsumerRecord<String, Long> count : reader.poll(Duration.ofMillis(200))) {
                    counts.put(count.key(), count.value());
                }
            }
        }
        return counts;
    }

    /** Whether every user's count reached its page views; one past them (a record counted twice) ends the wait too. */
    private static boolean everyPageViewCounted(Map<String, Long> counts) {
        return pageViewsPerUser.entrySet().stream()
            .allMatch(user -> counts.getOrDefault(user.getKey(), 0L) >= user.getValue());
    }

    private Properties streamsProperties(String applicationId) {
        Properties properties = new Properties();
        properties.putAll(cluster.clientConfig());
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // Every count is written and committed at once instead of after the cache fills or 30 s pass.
        properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        return properties;
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
