package io.fastleader.it.parity;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * The metrics a KafkaProducer / KafkaConsumer 4.3.1 dashboard charts are reported by fastleader's
 * drop-ins too, with values that agree on the same workload: each producer sends the same 2,000
 * keyed records to a 3-partition topic of its own; each consumer then reads the first 300 records
 * of one partition of the same log, so both are behind it by the same amount. Names are compared
 * as (group, name, tag keys); only the names in {@link #NOT_REPORTED} may be missing, each for the
 * reason given there (mirrored in clients/README.md).
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MetricNamesParityTest {

    private static final int RECORDS = 2_000;
    private static final int PARTITIONS = 3;
    private static final int MAX_POLL_RECORDS = 100;
    private static final int RECORDS_READ = 300;
    private static final String CONSUMED_TOPIC = "parity-" + Flavour.KAFKA.name().toLowerCase();
    private static final TopicPartition CONSUMED = new TopicPartition(CONSUMED_TOPIC, 0);

    private static final String NO_TWO_PHASE_COMMIT = "no prepareTransaction, which kafka-clients' public API does not offer either (two-phase commit, KIP-939)";
    private static final String NO_EVENT_QUEUES = "times the queues between KafkaConsumer's application and network threads "
            + "under the consumer group protocol; fastleader's consumer has no such queues";

    /** Kafka's metric names fastleader does not report, and why. */
    static final Map<String, String> NOT_REPORTED = Map.ofEntries(
            entry("txn-prepare-time-ns-total", NO_TWO_PHASE_COMMIT),
            entry("application-event-queue-processing-time-avg", NO_EVENT_QUEUES),
            entry("application-event-queue-processing-time-max", NO_EVENT_QUEUES),
            entry("application-event-queue-size", NO_EVENT_QUEUES),
            entry("application-event-queue-time-avg", NO_EVENT_QUEUES),
            entry("application-event-queue-time-max", NO_EVENT_QUEUES),
            entry("application-events-expired-count", NO_EVENT_QUEUES),
            entry("background-event-queue-processing-time-avg", NO_EVENT_QUEUES),
            entry("background-event-queue-processing-time-max", NO_EVENT_QUEUES),
            entry("background-event-queue-size", NO_EVENT_QUEUES),
            entry("background-event-queue-time-avg", NO_EVENT_QUEUES),
            entry("background-event-queue-time-max", NO_EVENT_QUEUES),
            entry("time-between-network-thread-poll-avg", NO_EVENT_QUEUES),
            entry("time-between-network-thread-poll-max", NO_EVENT_QUEUES),
            entry("unsent-requests-queue-size", NO_EVENT_QUEUES),
            entry("unsent-requests-queue-time-avg", NO_EVENT_QUEUES),
            entry("unsent-requests-queue-time-max", NO_EVENT_QUEUES));

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    private static final Map<Flavour, Map<MetricName, Object>> producerMetrics = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Map<MetricName, Object>> consumerMetrics = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Map<MetricName, Object>> memberMetrics = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Map<MetricName, Object>> classicMemberMetrics = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Integer> firstPollRecords = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Long> positions = new EnumMap<>(Flavour.class);
    private static long highWatermark;

    @BeforeAll
    static void start(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
        for (Flavour flavour : Flavour.values()) {
            produce(flavour);
        }
        for (Flavour flavour : Flavour.values()) {
            consume(flavour);
        }
        awaitGroupCoordinators();
        for (Flavour flavour : Flavour.values()) {
            memberMetrics.put(flavour, consumeAsGroupMember(flavour, "consumer"));
            classicMemberMetrics.put(flavour, consumeAsGroupMember(flavour, "classic"));
        }
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    private static void produce(Flavour flavour) {
        String topic = "parity-" + flavour.name().toLowerCase();
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3));
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put("client.id", "parity-producer");
        try (Producer<String, String> producer = flavour.producer(config)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
            }
            producer.flush();
            producerMetrics.put(flavour, snapshot(producer.metrics()));
        }
    }

    private static void consume(Flavour flavour) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put("client.id", "parity-consumer");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        try (Consumer<String, String> consumer = flavour.consumer(config)) {
            consumer.assign(List.of(CONSUMED));
            consumer.seekToBeginning(List.of(CONSUMED));
            highWatermark = consumer.endOffsets(List.of(CONSUMED)).get(CONSUMED);
            int read = 0;
            while (read < RECORDS_READ) {
                int polled = consumer.poll(Duration.ofSeconds(1)).count();
                if (read == 0 && polled > 0) {
                    firstPollRecords.put(flavour, polled);
                }
                read += polled;
            }
            positions.put(flavour, consumer.position(CONSUMED));
            consumerMetrics.put(flavour, snapshot(consumer.metrics()));
        }
    }

    /**
     * Returns once every member's group has its coordinator loaded. The first group lookup creates
     * {@code __consumer_offsets}; a JoinGroup refused while its partition still loads would be one
     * more failed rebalance for whichever member came first, whatever its client.
     */
    private static void awaitGroupCoordinators() {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            for (Flavour flavour : Flavour.values()) {
                for (String protocol : List.of("consumer", "classic")) {
                    // Admin retries COORDINATOR_LOAD_IN_PROGRESS and NOT_COORDINATOR until the coordinator answers.
                    admin.listConsumerGroupOffsets(groupId(flavour, protocol)).partitionsToOffsetAndMetadata().get();
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("a group coordinator did not load", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String groupId(Flavour flavour, String protocol) {
        return "parity-" + protocol + "-" + flavour.name().toLowerCase();
    }

    /**
     * Each flavour joins a group of its own under {@code protocol} on the consumed topic and reads
     * {@link #RECORDS_READ} records; the member's metrics.
     */
    private static Map<MetricName, Object> consumeAsGroupMember(Flavour flavour, String protocol) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put("client.id", "parity-member");
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(flavour, protocol));
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        try (Consumer<String, String> consumer = flavour.consumer(config)) {
            consumer.subscribe(List.of(CONSUMED_TOPIC));
            int read = 0;
            while (read < RECORDS_READ) {
                read += consumer.poll(Duration.ofSeconds(1)).count();
            }
            consumer.commitSync();
            return snapshot(consumer.metrics());
        }
    }

    @Test
    void testEveryProducerMetricKafkaProducerReportsIsReportedButTheDocumentedOnes() {
        assertThat(missing(producerMetrics)).isEmpty();
    }

    @Test
    void testEveryConsumerMetricKafkaConsumerReportsIsReportedButTheDocumentedOnes() {
        assertThat(missing(consumerMetrics)).isEmpty();
    }

    @Test
    void testEveryMetricAKafkaConsumerGroupMemberReportsIsReportedButTheDocumentedOnes() {
        assertThat(missing(memberMetrics)).isEmpty();
    }

    @Test
    void testEveryMetricAKafkaConsumerClassicGroupMemberReportsIsReportedButTheDocumentedOnes() {
        assertThat(missing(classicMemberMetrics)).isEmpty();
    }

    /**
     * One successful JoinGroup and SyncGroup each; the first JoinGroup's MEMBER_ID_REQUIRED is a
     * failed rebalance to KafkaConsumer, and so to fastleader. At least that one: a refusal the
     * broker's own timing adds (seen twice in CI, for either member, after the coordinator had
     * answered Admin) is one more for whichever client meets it.
     */
    @Test
    void testClassicGroupMembersCountJoinsSyncsAndFailedRebalancesAsKafkaConsumerDoes() {
        for (Flavour flavour : Flavour.values()) {
            Map<MetricName, Object> member = classicMemberMetrics.get(flavour);
            assertThat(value(member, "consumer-coordinator-metrics", "join-total", Map.of())).as("%s join-total", flavour).isEqualTo(1);
            assertThat(value(member, "consumer-coordinator-metrics", "sync-total", Map.of())).as("%s sync-total", flavour).isEqualTo(1);
            assertThat(value(member, "consumer-coordinator-metrics", "failed-rebalance-total", Map.of()))
                    .as("%s failed-rebalance-total", flavour).isGreaterThanOrEqualTo(1.0);
            assertThat(value(member, "consumer-coordinator-metrics", "rebalance-total", Map.of())).as("%s rebalance-total", flavour)
                    .isEqualTo(1);
        }
    }

    @Test
    void testGroupMembersAgreeOnTheirAssignmentAndCountHeartbeatsCommitsAndRebalances() {
        for (Flavour flavour : Flavour.values()) {
            Map<MetricName, Object> member = memberMetrics.get(flavour);
            assertThat(value(member, "consumer-coordinator-metrics", "assigned-partitions", Map.of())).as("%s assigned-partitions", flavour)
                    .isEqualTo(PARTITIONS);
            assertThat(value(member, "consumer-coordinator-metrics", "commit-total", Map.of())).as("%s commit-total", flavour)
                    .isEqualTo(1);
            assertThat(value(member, "consumer-coordinator-metrics", "heartbeat-total", Map.of())).as("%s heartbeat-total", flavour)
                    .isGreaterThanOrEqualTo(1);
            assertThat(value(member, "consumer-coordinator-metrics", "rebalance-total", Map.of())).as("%s rebalance-total", flavour)
                    .isEqualTo(1);
            assertThat(value(member, "consumer-coordinator-metrics", "failed-rebalance-total", Map.of()))
                    .as("%s failed-rebalance-total", flavour).isZero();
        }
    }

    @Test
    void testProducersAgreeOnRecordCountsAndSizes() {
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "record-send-total"))
                .isEqualTo(producerValue(Flavour.KAFKA, "producer-metrics", "record-send-total")).isEqualTo(RECORDS);
        assertThat(producerValue(Flavour.FASTLEADER, "producer-topic-metrics", "record-send-total")).isEqualTo(RECORDS);
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "record-error-total")).isZero();
        double kafkaRecordSize = producerValue(Flavour.KAFKA, "producer-metrics", "record-size-avg");
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "record-size-avg"))
                .isCloseTo(kafkaRecordSize, within(kafkaRecordSize * 0.05));
        double kafkaBytes = producerValue(Flavour.KAFKA, "producer-topic-metrics", "byte-total");
        // Batching differs, and with it the batch headers: within 10%.
        assertThat(producerValue(Flavour.FASTLEADER, "producer-topic-metrics", "byte-total"))
                .isCloseTo(kafkaBytes, within(kafkaBytes * 0.1));
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "compression-rate-avg"))
                .isEqualTo(producerValue(Flavour.KAFKA, "producer-metrics", "compression-rate-avg"));
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "buffer-total-bytes"))
                .isEqualTo(producerValue(Flavour.KAFKA, "producer-metrics", "buffer-total-bytes"));
    }

    @Test
    void testProducersReportTheirConnectionsAndRequests() {
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "connection-count")).isPositive();
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "records-per-request-avg")).isPositive();
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "outgoing-byte-total"))
                .isGreaterThan(producerValue(Flavour.FASTLEADER, "producer-topic-metrics", "byte-total"));
        assertThat(producerValue(Flavour.FASTLEADER, "producer-metrics", "response-total"))
                .isEqualTo(producerValue(Flavour.FASTLEADER, "producer-metrics", "request-total"));
    }

    @Test
    void testConsumersOnTheSameLogAgreeOnLagAndLeadWhereTheyStand() {
        Map<String, String> partition = Map.of("topic", CONSUMED.topic(), "partition", "0");
        for (Flavour flavour : Flavour.values()) {
            long position = positions.get(flavour);
            // The largest lag was measured after the first poll, the latest after the last.
            assertThat(consumerValue(flavour, "records-lag-max", Map.of())).as("%s records-lag-max", flavour)
                    .isEqualTo(highWatermark - firstPollRecords.get(flavour));
            assertThat(consumerValue(flavour, "records-lag", partition)).as("%s records-lag", flavour)
                    .isEqualTo(highWatermark - position);
            assertThat(consumerValue(flavour, "records-lead", partition)).as("%s records-lead", flavour).isEqualTo(position);
        }
        assertThat(consumerValue(Flavour.FASTLEADER, "preferred-read-replica", partition))
                .isEqualTo(consumerValue(Flavour.KAFKA, "preferred-read-replica", partition));
    }

    @Test
    void testConsumersReportTheirConnectionsAndFetches() {
        assertThat(value(consumerMetrics.get(Flavour.FASTLEADER), "consumer-metrics", "connection-count", Map.of())).isPositive();
        assertThat(consumerValue(Flavour.FASTLEADER, "fetch-total", Map.of())).isPositive();
        assertThat(value(consumerMetrics.get(Flavour.FASTLEADER), "consumer-metrics", "time-between-poll-max", Map.of()))
                .isNotNegative();
    }

    /** Kafka's (group, name, tag keys) the fastleader flavour lacks, but for {@link #NOT_REPORTED}. */
    private static Set<String> missing(Map<Flavour, Map<MetricName, Object>> byFlavour) {
        Set<String> missing = new TreeSet<>();
        Set<String> reported = new TreeSet<>();
        byFlavour.get(Flavour.FASTLEADER).keySet().forEach(name -> reported.add(key(name)));
        for (MetricName name : byFlavour.get(Flavour.KAFKA).keySet()) {
            if (!NOT_REPORTED.containsKey(name.name()) && !reported.contains(key(name))) {
                missing.add(key(name));
            }
        }
        return missing;
    }

    private static String key(MetricName name) {
        return name.group() + " " + name.name() + " " + new TreeSet<>(name.tags().keySet());
    }

    private static Map<MetricName, Object> snapshot(Map<MetricName, ? extends Metric> metrics) {
        Map<MetricName, Object> values = new HashMap<>();
        metrics.forEach((name, metric) -> values.put(name, metric.metricValue()));
        return values;
    }

    private static double producerValue(Flavour flavour, String group, String name) {
        Map<String, String> tags = group.equals("producer-topic-metrics") ? Map.of("topic", "parity-" + flavour.name().toLowerCase())
                : Map.of();
        return value(producerMetrics.get(flavour), group, name, tags);
    }

    private static double consumerValue(Flavour flavour, String name, Map<String, String> tags) {
        return value(consumerMetrics.get(flavour), "consumer-fetch-manager-metrics", name, tags);
    }

    /** The value of the metric of {@code group} and {@code name} whose tags, besides {@code client-id}, are {@code tags}. */
    private static double value(Map<MetricName, Object> metrics, String group, String name, Map<String, String> tags) {
        return metrics.entrySet().stream()
                .filter(entry -> entry.getKey().group().equals(group) && entry.getKey().name().equals(name)
                        && withoutClientId(entry.getKey().tags()).equals(tags))
                .map(entry -> ((Number) entry.getValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no " + group + " " + name + " " + tags));
    }

    private static Map<String, String> withoutClientId(Map<String, String> tags) {
        Map<String, String> rest = new HashMap<>(tags);
        rest.remove("client-id");
        return rest;
    }
}
