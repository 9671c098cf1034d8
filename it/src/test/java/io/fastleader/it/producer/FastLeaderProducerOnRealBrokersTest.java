package io.fastleader.it.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.clients.producer.ProducerMetrics;
import io.fastleader.clients.producer.ProducerSettings;
import io.fastleader.it.cluster.AckedRecords;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.ReadBack;
import io.fastleader.it.cluster.SteadyProducer;

/**
 * {@link FastLeaderProducer} on a real 3-broker Kafka 4.3.1 cluster: every acknowledged record is
 * read back exactly once, at the offset it was acknowledged at, in send order per partition,
 * while leaders move and brokers restart; and the KIP-951 path shows in the metrics.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FastLeaderProducerOnRealBrokersTest {

    private static final int RECORDS_PER_SECOND = 1000;
    private static final int PARTITIONS = 30;
    private static final Map<String, String> MIN_ISR_2 = Map.of("min.insync.replicas", "2");

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @Test
    void producesKeyedRecordsToKafkasPartitionsAndReadsThemBack() throws Exception {
        String topic = "plain";
        disturbances.createTopic(new NewTopic(topic, 6, (short) 3).configs(MIN_ISR_2));
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (FastLeaderProducer<String, String> producer = new FastLeaderProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            assertThat(producer.partitionsFor(topic)).hasSize(6);
            for (int i = 0; i < 1000; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)));
            }
            producer.flush();
            assertThat(futures).allMatch(Future::isDone);
            Map<TopicPartition, Map<Long, String>> read = ReadBack.readAll(cluster.clientConfig(), partitions(topic, 6));
            for (int i = 0; i < 1000; i++) {
                RecordMetadata metadata = futures.get(i).get();
                int kafkasPartition = Utils.toPositive(Utils.murmur2(("key-" + i).getBytes())) % 6;
                assertThat(metadata.partition()).as("partition of key-%d", i).isEqualTo(kafkasPartition);
                assertThat(read.get(new TopicPartition(topic, metadata.partition())))
                        .containsEntry(metadata.offset(), "value-" + i);
            }
            assertThat(read.values().stream().mapToInt(Map::size).sum()).isEqualTo(1000);
            // Every record is sent once, and again for each retry (a new topic's leaders can refuse the first batches).
            assertThat(metric(producer, ProducerMetrics.KAFKA_GROUP, "record-send-total"))
                    .isEqualTo(1000 + metric(producer, ProducerMetrics.KAFKA_GROUP, "record-retry-total"));
            assertThat(metric(producer, ProducerMetrics.KAFKA_GROUP, "record-error-total")).isZero();
        }
    }

    @Test
    void aPartitionerPluginChoosesFromTheClusterTheLeaderCacheDescribes() throws Exception {
        String topic = "plugged";
        disturbances.createTopic(new NewTopic(topic, 4, (short) 3).configs(MIN_ISR_2));
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, LastLedPartition.class.getName());
        try (FastLeaderProducer<String, String> producer = new FastLeaderProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)));
            }
            producer.flush();
            for (Future<RecordMetadata> future : futures) {
                assertThat(future.get().partition()).isEqualTo(3);
            }
        }
    }

    /** Sends everything to the topic's last partition that has a leader, as the kafka {@code Cluster} it is given says. */
    public static final class LastLedPartition implements Partitioner {

        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes,
                             org.apache.kafka.common.Cluster cluster) {
            return cluster.partitionsForTopic(topic).stream().filter(p -> p.leader() != null && p.leader().port() > 0)
                    .mapToInt(PartitionInfo::partition).max().orElseThrow();
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    @Test
    void leadershipOfEveryPartitionMovesWhileProducingAndRetriesFollowTheHints() throws Exception {
        KipCounts counts = produceWhile("rotate-hints", Map.of(), () -> disturbances.rotateReplicas("rotate-hints"));

        assertThat(counts.hintsAccepted()).isGreaterThan(0);
        assertThat(counts.backoffsSkipped()).isGreaterThan(0);
    }

    @Test
    void leadershipOfEveryPartitionMovesWhileProducingWithHintsDisabled() throws Exception {
        KipCounts counts = produceWhile("rotate-no-hints", Map.of(FastLeaderConfigs.LEADER_HINTS_ENABLED, false),
                () -> disturbances.rotateReplicas("rotate-no-hints"));

        assertThat(counts.hintsAccepted()).isZero();
        assertThat(counts.backoffsSkipped()).isZero();
    }

    @Test
    void aBrokerRestartsGracefullyWhileProducing() throws Exception {
        produceWhile("restart", Map.of(), () -> {
            int broker = cluster.brokerIds().first();
            cluster.stopBroker(broker);
            cluster.startBroker(broker);
            disturbances.awaitFullIsr("restart");
        });
    }

    @Test
    void aRestartedBrokerIsConnectedAgainBeforeItLeadsAgain() throws Exception {
        disturbances.createTopic(new NewTopic("rewarm", PARTITIONS, (short) 3).configs(MIN_ISR_2));
        try (FastLeaderProducer<String, String> producer = new FastLeaderProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>("rewarm", "before")).get();
            int broker = cluster.brokerIds().first();
            cluster.stopBroker(broker);
            // Sends while it is down move its leaderships, and the refreshes that confirm the moves answer
            // without it: a broker that is down is left out of Metadata answers, though it stays a replica.
            Await.until("a Metadata answer without the stopped broker", Duration.ofSeconds(30), () -> {
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    producer.send(new ProducerRecord<>("rewarm", partition, null, "while down")).get();
                }
                return producer.partitionsFor("rewarm").stream()
                    .flatMap(info -> Arrays.stream(info.replicas()))
                    .anyMatch(replica -> replica.id() == broker && replica.port() == -1);
            });
            double connectionsMade = metric(producer, "producer-metrics", "connection-creation-total");

            cluster.startBroker(broker);

            // Nothing is sent and the restarted broker leads nothing: only the prewarm's upkeep connects to it.
            Await.until("a connection to the restarted broker", Duration.ofSeconds(30),
                () -> metric(producer, "producer-metrics", "connection-creation-total") > connectionsMade);
        }
    }

    /**
     * Produces round-robin to a new topic, runs the disturbance mid-stream, keeps producing, then
     * checks that every record sent was acknowledged and reads back once, at its offset, in send order.
     *
     * @return the producer's KIP-951 counts, read before it closed
     */
    private static KipCounts produceWhile(String topic, Map<String, Object> overrides, Runnable disturbance)
            throws Exception {
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3).configs(MIN_ISR_2));
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.putAll(overrides);
        FastLeaderProducer<String, String> fastleader = new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
        try (SteadyProducer producer = new SteadyProducer(fastleader, topic, PARTITIONS, RECORDS_PER_SECOND)) {
            producer.awaitMoreAcks(300);
            long sentBefore = producer.sentCount();
            disturbance.run();
            assertThat(producer.sentCount()).as("records sent during the disturbance").isGreaterThan(sentBefore);
            producer.awaitMoreAcks(300);
            producer.stopAndFlush();
            AckedRecords.assertAllReadBackOnceInSendOrder(producer, cluster.clientConfig());
            return new KipCounts(producer.metric(MetadataMetrics.GROUP, "leader-hints-accepted-total"),
                    producer.metric(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total"));
        }
    }

    /** Hints that advanced an epoch, and retries sent without backoff because of an advance. */
    private record KipCounts(double hintsAccepted, double backoffsSkipped) {
    }

    private static double metric(FastLeaderProducer<?, ?> producer, String group, String name) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        Set<TopicPartition> partitions = new HashSet<>();
        for (int i = 0; i < count; i++) {
            partitions.add(new TopicPartition(topic, i));
        }
        return partitions;
    }
}
