package io.fastleader.clients.shaded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.KafkaKeys;
import io.fastleader.clients.producer.BufferAllocation;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.clients.producer.ProducerSettings;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.protocol.ErrorCode;

/**
 * The fastleader-clients artifact used as an application uses it, beside the one kafka-clients
 * release on this JVM's classpath (chosen per failsafe execution in the pom), against a real broker
 * of the release fastleader is built with, in a child JVM: every codec with that release's own
 * compression libraries, consumption by {@code assign} and by {@code subscribe}, a broker's error
 * raised as that release's exception class (every error as the nearest class it has), and metrics
 * read through its {@code Metric}. Every client logs in with SASL OAUTHBEARER (an unsecured token,
 * which the broker's default validator takes), through that release's own login and callback
 * handler, over TLS; the broker is {@link TlsBesideKafkaClientsIT}'s too.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BesideKafkaClientsIT {

    private static final String RELEASE = System.getProperty("fastleader.kafka-clients.release");
    /** kafka-clients 4.4's key for resolving the bootstrap servers' names after the client is built. */
    private static final String BOOTSTRAP_RESOLVE_TIMEOUT = "bootstrap.resolve.timeout.ms";
    /** kafka-clients 4.4's key for a built-in partitioner that prefers partitions led in the producer's rack. */
    private static final String PARTITIONER_RACK_AWARE = "partitioner.rack.aware";
    /** kafka-clients 4.4's key for batches that take buffer memory as records need it. */
    private static final String BUFFER_MEMORY_ALLOCATION_STRATEGY = "buffer.memory.allocation.strategy";
    /** kafka-clients 4.1's key for two-phase commit (KIP-939). */
    private static final String TWO_PHASE_COMMIT = "transaction.two.phase.commit.enable";
    private static final int RECORDS = 50;
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    private static Admin admin;
    private final List<AutoCloseable> clients = new ArrayList<>();

    @BeforeAll
    static void startBroker(@Cluster(brokers = 1, execution = Execution.CHILD_JVM, securityProtocol = "SASL_SSL",
            saslMechanism = "OAUTHBEARER", brokerConfig = "group.initial.rebalance.delay.ms=0", shared = true) KafkaTestCluster started) {
        cluster = started;
        admin = Admin.create(cluster.clientConfig());
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @AfterEach
    void closeClients() throws Exception {
        for (AutoCloseable client : clients) {
            client.close();
        }
    }

    @Test
    void testTheClasspathHoldsOnlyTheReleaseThisRunIsFor() throws IOException {
        List<URL> versionFiles = Collections.list(getClass().getClassLoader().getResources("kafka/kafka-version.properties"));

        assertThat(versionFiles).as("kafka-clients jars on the classpath").hasSize(1);
        assertThat(versionOf(versionFiles.get(0))).isEqualTo(RELEASE);
    }

    @ParameterizedTest(name = "compression.type={0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void testProducesWithEveryCodecAndConsumesByAssign(String codec) throws Exception {
        String topic = newTopic("codec-" + codec, Map.of());
        Producer<String, String> producer = producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec));
        List<String> sent = sendAll(producer, topic);

        Consumer<String, String> consumer = consumer(Map.of());
        TopicPartition partition = new TopicPartition(topic, 0);
        consumer.assign(Set.of(partition));
        consumer.seekToBeginning(Set.of(partition));

        assertThat(pollValues(consumer, sent.size())).containsExactlyElementsOf(sent);
    }

    @Test
    void testConsumesAsAGroupMemberBySubscribeAndCommits() throws Exception {
        String topic = newTopic("group", Map.of());
        List<String> sent = sendAll(producer(Map.of()), topic);
        Consumer<String, String> consumer = consumer(Map.of(
            ConsumerConfig.GROUP_ID_CONFIG, "beside-" + RELEASE,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"));

        consumer.subscribe(List.of(topic));
        List<String> received = pollValues(consumer, sent.size());
        consumer.commitSync();

        assertThat(received).containsExactlyElementsOf(sent);
        TopicPartition partition = new TopicPartition(topic, 0);
        assertThat(consumer.committed(Set.of(partition)).get(partition).offset()).isEqualTo(sent.size());
    }

    @Test
    void testRaisesABrokersErrorAsTheApplicationsOwnExceptionClass() throws Exception {
        String topic = newTopic("too-large", Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1024"));
        Producer<String, String> producer = producer(Map.of());

        Throwable failure = catchThrowable(() -> producer.send(new ProducerRecord<>(topic, "x".repeat(8192))).get());

        assertThat(failure).isInstanceOf(ExecutionException.class);
        // The application's catch block names its own class: the cause must be exactly that class.
        assertThat(failure.getCause()).isExactlyInstanceOf(RecordTooLargeException.class);
        assertThat(failure.getCause().getClass().getClassLoader()).isSameAs(KafkaException.class.getClassLoader());
    }

    @Test
    void testBuildsEveryErrorAsTheNearestClassThisReleaseHas() {
        for (ErrorCode error : ErrorCode.values()) {
            if (error == ErrorCode.NONE) {
                continue;
            }
            // Names the shade plugin rewrote into its relocated packages would point at no class of the application.
            assertThat(error.exceptionClassNames()).as(error.name()).allMatch(name -> name.startsWith("org.apache.kafka."));
            Class<?> nearest = error.exceptionClassNames().stream()
                .map(BesideKafkaClientsIT::classOfThisRelease)
                .filter(Objects::nonNull)
                .findFirst()
                .orElseThrow();

            ApiException exception = error.exception("from the broker");

            assertThat(exception).as(error.name()).isInstanceOf(nearest).hasMessage("from the broker");
            if (!Modifier.isAbstract(nearest.getModifiers())) {
                assertThat(exception.getClass()).as(error.name()).isSameAs(nearest);
            }
        }
    }

    @Test
    void testReportsMetricsThroughTheApplicationsMetricTypes() throws Exception {
        String topic = newTopic("metrics", Map.of());
        Producer<String, String> producer = producer(Map.of());
        sendAll(producer, topic);
        Consumer<String, String> consumer = consumer(Map.of());
        consumer.assign(Set.of(new TopicPartition(topic, 0)));
        consumer.seekToBeginning(Set.of(new TopicPartition(topic, 0)));
        pollValues(consumer, RECORDS);

        assertThat(total(producer.metrics(), "record-send-total", "producer-metrics")).isEqualTo(RECORDS);
        assertThat(total(consumer.metrics(), "records-consumed-total", "consumer-fetch-manager-metrics")).isEqualTo(RECORDS);
    }

    @Test
    void testRegistersItsMetricsAsJmxBeansAsThisReleasesClientsDoUntilClose() throws Exception {
        String topic = newTopic("jmx", Map.of());
        Producer<String, String> producer = producer(Map.of(ProducerConfig.CLIENT_ID_CONFIG, "beside-jmx"));
        sendAll(producer, topic);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName producerMetrics = new ObjectName("kafka.producer:type=producer-metrics,client-id=beside-jmx");

        assertThat((Double) server.getAttribute(producerMetrics, "record-send-total")).isEqualTo(RECORDS);
        assertThat(server.isRegistered(new ObjectName("kafka.producer:type=app-info,id=beside-jmx"))).isTrue();

        producer.close();

        assertThat(server.queryNames(new ObjectName("kafka.producer:client-id=beside-jmx,*"), null)).isEmpty();
    }

    /**
     * Kafka Streams 3.7 to 4.1 sets {@code internal.leave.group.on.close=false} on its consumers, so
     * that a restarting instance keeps its partitions; from 4.2 the key is gone and the member leaves.
     */
    @Test
    void testAClassicMemberClosedWithInternalLeaveGroupOnCloseFalseStaysInItsGroupAsThisReleasesConsumerDoes() throws Exception {
        String topic = newTopic("stay", Map.of());
        Map<String, Object> staying = new HashMap<>(cluster.clientConfig());
        staying.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        staying.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        staying.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        staying.put("internal.leave.group.on.close", false);

        int kafkas = membersAfterClose(new KafkaConsumer<>(withGroup(staying, "stay-kafka-" + RELEASE)), topic);
        int fastLeaders = membersAfterClose(new FastLeaderConsumer<>(withGroup(staying, "stay-fastleader-" + RELEASE)), topic);

        assertThat(fastLeaders).as("members left in the group after close, beside kafka-clients %s", RELEASE).isEqualTo(kafkas);
        assertThat(kafkas).as("KafkaConsumer's members left (1 where the release defines the key)")
            .isEqualTo(ConsumerConfig.configNames().contains("internal.leave.group.on.close") ? 1 : 0);
    }

    private static Map<String, Object> withGroup(Map<String, Object> config, String group) {
        Map<String, Object> grouped = new HashMap<>(config);
        grouped.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        return grouped;
    }

    /** Subscribes {@code consumer} to {@code topic}, polls until it is assigned, closes it, and counts the group's members. */
    private static int membersAfterClose(Consumer<String, String> consumer, String topic) throws Exception {
        String group = consumer.groupMetadata().groupId();
        try (consumer) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(POLL);
            }
            assertThat(consumer.assignment()).as("%s's assignment", group).isNotEmpty();
        }
        return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).members().size();
    }

    /**
     * A bootstrap server whose name does not resolve: this release's producer refuses to be built
     * (a {@code ConfigException} within), or, with kafka-clients 4.4's {@code bootstrap.resolve.timeout.ms},
     * is built and fails its sends once the timeout has passed. fastleader's does as this release's does.
     */
    @Test
    void testABootstrapNameThatDoesNotResolveFailsTheProducerAsThisReleasesProducerFails() {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "bootstrap.fastleader.invalid:9092");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        boolean resolvedLater = ProducerConfig.configNames().contains(BOOTSTRAP_RESOLVE_TIMEOUT);
        if (resolvedLater) {
            config.put(BOOTSTRAP_RESOLVE_TIMEOUT, 500L);
        }

        String kafka = unresolvedBootstrapOutcome(() -> new KafkaProducer<>(config));
        String fastLeader = unresolvedBootstrapOutcome(() -> new FastLeaderProducer<>(config));

        assertThat(fastLeader).as("beside kafka-clients %s", RELEASE).isEqualTo(kafka);
        assertThat(kafka).isEqualTo(resolvedLater ? "send: BootstrapResolutionException" : "construction: ConfigException");
    }

    /** {@code partitioner.rack.aware} and the producer's {@code client.rack} are read where this release defines them (4.4). */
    @Test
    void testTheProducersPartitionerPrefersItsRackWhereThisReleaseDefinesTheKeys() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(CommonClientConfigs.CLIENT_RACK_CONFIG, "rack-b");
        config.put(PARTITIONER_RACK_AWARE, true);

        String rack = ProducerSettings.parse(config, new StringSerializer(), new StringSerializer()).partitionerRack();

        assertThat(rack).as("beside kafka-clients %s", RELEASE)
            .isEqualTo(ProducerConfig.configNames().contains(PARTITIONER_RACK_AWARE) ? "rack-b" : null);
    }

    /**
     * Plugin metrics (KIP-877): where this release has {@code Monitorable} (4.1 and later), a
     * serializer that implements it adds the metrics it adds to this release's {@code KafkaProducer},
     * named as there; elsewhere a producer's metrics have no plugin group, as this release's have none.
     */
    @Test
    void testAMonitorableSerializerAddsTheMetricsItAddsToThisReleasesProducer() throws Exception {
        boolean monitorable = hasClass("org.apache.kafka.common.metrics.Monitorable");
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            monitorable ? "io.fastleader.clients.shaded.MonitoredSerializer" : StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

        Set<String> kafka = pluginMetrics(new KafkaProducer<>(config));
        Set<String> fastLeader = pluginMetrics(new FastLeaderProducer<>(config));

        assertThat(fastLeader).as("beside kafka-clients %s", RELEASE).isEqualTo(kafka);
        assertThat(kafka).hasSize(monitorable ? 1 : 0);
    }

    private static boolean hasClass(String name) {
        try {
            Class.forName(name, false, BesideKafkaClientsIT.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException absent) {
            return false;
        }
    }

    /** A producer's metrics of the {@code plugins} group, as "name {tags but client-id}", read before it closes. */
    private static Set<String> pluginMetrics(Producer<String, String> producer) {
        try (producer) {
            Set<String> names = new TreeSet<>();
            producer.metrics().keySet().stream().filter(name -> name.group().equals("plugins")).forEach(name -> {
                Map<String, String> tags = new TreeMap<>(name.tags());
                tags.remove("client-id");
                names.add(name.name() + " " + tags);
            });
            return names;
        }
    }

    /**
     * Unkeyed records through this release's sticky partitioner class ({@code UniformStickyPartitioner},
     * up to 3.9, which moves on only when the producer tells it of a new batch), or through the
     * built-in one where the class is gone (4.0 and later): with a batch per record, fastleader's
     * producer spreads them over the partitions as this release's does.
     */
    @Test
    void testUnkeyedRecordsMoveOnAtNewBatchesAsWithThisReleasesPartitioner() throws Exception {
        Class<?> sticky = classOfThisRelease("org.apache.kafka.clients.producer.UniformStickyPartitioner");
        String topic = newTopic("sticky", 3, Map.of());
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 1);
        if (sticky != null) {
            config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, sticky.getName());
        }

        Set<Integer> kafka = partitionsWritten(new KafkaProducer<>(config), topic);
        Set<Integer> fastLeader = partitionsWritten(new FastLeaderProducer<>(config), topic);

        assertThat(kafka).as("partitions KafkaProducer %s wrote", RELEASE).hasSizeGreaterThan(1);
        assertThat(fastLeader).as("partitions fastleader's producer wrote beside %s", RELEASE).hasSizeGreaterThan(1);
    }

    /** The partitions {@link #RECORDS} unkeyed records sent one at a time by {@code producer} were written to. */
    private static Set<Integer> partitionsWritten(Producer<String, String> producer, String topic) throws Exception {
        try (producer) {
            Set<Integer> partitions = new TreeSet<>();
            for (int i = 0; i < RECORDS; i++) {
                partitions.add(producer.send(new ProducerRecord<>(topic, "record-" + i)).get(30, TimeUnit.SECONDS).partition());
            }
            return partitions;
        }
    }

    /** {@code buffer.memory.allocation.strategy} is read where this release defines it (4.4), and is full, its default, elsewhere. */
    @Test
    void testTheProducersBufferAllocationIsReadWhereThisReleaseDefinesTheKey() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(BUFFER_MEMORY_ALLOCATION_STRATEGY, "incremental");

        BufferAllocation allocation = ProducerSettings.parse(config, new StringSerializer(), new StringSerializer()).bufferAllocation();

        assertThat(allocation).as("beside kafka-clients %s", RELEASE).isEqualTo(
            ProducerConfig.configNames().contains(BUFFER_MEMORY_ALLOCATION_STRATEGY) ? BufferAllocation.INCREMENTAL : BufferAllocation.FULL);
    }

    /**
     * {@code transaction.two.phase.commit.enable} beside a {@code transaction.timeout.ms} given too:
     * refused where this release defines the key (4.1 and later), with its message; built before.
     */
    @Test
    void testTwoPhaseCommitBesideATransactionTimeoutIsRefusedWhereThisReleaseRefusesIt() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "two-phase-" + RELEASE);
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
        config.put(TWO_PHASE_COMMIT, true);

        String kafka = constructionOutcome(() -> new KafkaProducer<>(config));
        String fastLeader = constructionOutcome(() -> new FastLeaderProducer<>(config));

        assertThat(fastLeader).as("beside kafka-clients %s", RELEASE).isEqualTo(kafka);
        assertThat(kafka).isEqualTo(ProducerConfig.configNames().contains(TWO_PHASE_COMMIT)
            ? "ConfigException: Cannot set transaction.timeout.ms when transaction.two.phase.commit.enable is set to true. "
                + "Transactions will not expire with two-phase commit enabled."
            : "built");
    }

    /** Whether a producer built by {@code build} is built, or else what it was refused with. */
    private static String constructionOutcome(Supplier<Producer<String, String>> build) {
        try (Producer<String, String> built = build.get()) {
            return "built";
        } catch (KafkaException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Where a producer built by {@code build} fails, and with what: as it is built, or at its first send. */
    private static String unresolvedBootstrapOutcome(Supplier<Producer<String, String>> build) {
        Producer<String, String> producer;
        try {
            producer = build.get();
        } catch (KafkaException e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            return "construction: " + cause.getClass().getSimpleName();
        }
        try (producer) {
            producer.send(new ProducerRecord<>("unresolved", "value"));
            return "send: accepted";
        } catch (KafkaException e) {
            return "send: " + e.getClass().getSimpleName();
        }
    }

    @Test
    void testEveryKeyOfThisReleaseIsInTheKeyTable() {
        assertThat(KafkaKeys.missing(ProducerConfig.configNames(), KafkaKeys.Clients.PRODUCER)).as("producer keys").isEmpty();
        assertThat(KafkaKeys.missing(ConsumerConfig.configNames(), KafkaKeys.Clients.CONSUMER)).as("consumer keys").isEmpty();
    }

    static List<MethodOutcomes.Case> methodsOfThisRelease() {
        return MethodOutcomes.all().stream().filter(MethodOutcomes.Case::inThisRelease).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("methodsOfThisRelease")
    void testEachMethodEndsAsThisReleasesClientEndsIt(MethodOutcomes.Case call) throws Exception {
        Map<String, Object> base = new HashMap<>(cluster.clientConfig());
        base.putAll(MethodOutcomes.baseConfig(call.kind()));

        String kafkas = call.outcomeOn(MethodOutcomes::kafkaClient, base);
        String fastLeaders = call.outcomeOn(MethodOutcomes::fastLeaderClient, base);

        assertThat(fastLeaders).as("beside kafka-clients %s", RELEASE).isEqualTo(kafkas);
    }

    private static double total(Map<MetricName, ? extends Metric> metrics, String name, String group) {
        return metrics.entrySet().stream()
            .filter(entry -> entry.getKey().name().equals(name) && entry.getKey().group().equals(group)
                && !entry.getKey().tags().containsKey("topic"))
            .mapToDouble(entry -> ((Number) entry.getValue().metricValue()).doubleValue())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no metric " + group + "/" + name + " in " + metrics.keySet()));
    }

    private static Class<?> classOfThisRelease(String name) {
        try {
            return Class.forName(name, false, KafkaException.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private static String newTopic(String name, Map<String, String> configs) throws Exception {
        return newTopic(name, 1, configs);
    }

    private static String newTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        String topic = name + "-" + RELEASE;
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get(30, TimeUnit.SECONDS);
        return topic;
    }

    private static List<String> sendAll(Producer<String, String> producer, String topic) throws Exception {
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            String value = "record-" + i + "-" + "payload ".repeat(i % 7);
            producer.send(new ProducerRecord<>(topic, Integer.toString(i), value));
            sent.add(value);
        }
        producer.flush();
        return sent;
    }

    /** The values polled until {@code expected} have come or a minute has passed. */
    static List<String> pollValues(Consumer<String, String> consumer, int expected) {
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (values.size() < expected && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
                values.add(record.value());
            }
        }
        return values;
    }

    private Producer<String, String> producer(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.putAll(overrides);
        Producer<String, String> producer = new FastLeaderProducer<>(config);
        clients.add(producer);
        return producer;
    }

    private Consumer<String, String> consumer(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.putAll(overrides);
        Consumer<String, String> consumer = new FastLeaderConsumer<>(config);
        clients.add(consumer);
        return consumer;
    }

    private static String versionOf(URL versionFile) {
        Properties properties = new Properties();
        try (InputStream in = versionFile.openStream()) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("version");
    }
}
