package io.fastleader.examples.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
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
        createTopic(PageViewCounts.output(applicationId));

        try (CountingInstance instance = new CountingInstance(clients, streamsProperties(applicationId, stateDir), PAGE_VIEWS)) {
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
        createTopic(PageViewCounts.output(applicationId));
        Map<String, Long> before = writePageViews(input, 2);
        try (CountingInstance first = new CountingInstance(clients, streamsProperties(applicationId, stateDir.resolve("first")), input)) {
            assertThat(lastCounts(applicationId, before, first)).isEqualTo(before);
        }
        Map<String, Long> after = new TreeMap<>(before);
        writePageViews(input, 1).forEach((user, views) -> after.merge(user, views, Long::sum));

        try (CountingInstance restarted = new CountingInstance(clients, streamsProperties(applicationId, stateDir.resolve("restarted")), input)) {
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
        createTopic(PageViewCounts.output(applicationId));
        Map<String, Long> before = writePageViews(input, 2);
        try (CountingInstance first = new CountingInstance(clients, streamsProperties(applicationId, stateDir.resolve("first")), input)) {
            assertThat(lastCounts(applicationId, before, first)).isEqualTo(before);

            try (CountingInstance second = new CountingInstance(clients, streamsProperties(applicationId, stateDir.resolve("second")), input)) {
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
        PageViewCounts.countingTopology(builder, PAGE_VIEWS, "handed-out-counts");
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

    /** Under exactly_once_v2 each commit is a transaction of the task's output and input offsets; every page view counts once. */
    @ParameterizedTest(name = "{0}")
    @EnumSource
    void testCountsEveryPageViewOfEveryUserUnderExactlyOnce(StreamsClients clients) throws Exception {
        String applicationId = "exactly-once-counts-on-" + clients.id();
        createTopic(PageViewCounts.output(applicationId));
        Properties properties = streamsProperties(applicationId, stateDir);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);

        try (CountingInstance instance = new CountingInstance(clients, properties, PAGE_VIEWS)) {
            assertThat(lastCounts(applicationId, pageViewsPerUser, instance)).isEqualTo(pageViewsPerUser);
        }
    }

    private static Map<String, Long> lastCounts(String applicationId, Map<String, Long> expected, CountingInstance... instances) {
        return PageViewCounts.lastCounts(cluster, applicationId, expected, COUNTED_WITHIN, instances);
    }

    private static Properties streamsProperties(String applicationId, Path stateDir) {
        return PageViewCounts.streamsProperties(cluster, applicationId, stateDir);
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
