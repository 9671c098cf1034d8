package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ChildJvmCluster} on real 4.3.1 brokers, one cluster shared by the tests in order because
 * starting three broker JVMs is the slow part. The 3.6.2 release runs the shared scenarios in
 * {@link LegacyClusterTest}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ChildJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    class CurrentRelease {

        private KafkaTestCluster cluster;

        @BeforeAll
        void startCluster() {
            cluster = ClusterSpec.builder().execution(Execution.CHILD_JVM).start();
        }

        @AfterAll
        void closeCluster() {
            if (cluster != null) {
                cluster.close();
            }
        }

        @Test
        @Order(1)
        void describesItself() {
            assertThat(cluster).isInstanceOf(ChildJvmCluster.class);
            assertThat(cluster.execution()).isEqualTo(Execution.CHILD_JVM);
            assertThat(cluster.kafkaVersion()).isEqualTo(KafkaRelease.CURRENT.version()).startsWith("4.");
            assertThat(cluster.brokerIds()).containsExactly(0, 1, 2);
            assertThat(cluster.stoppedBrokers()).isEmpty();
            assertThat(cluster.supportsKill()).isTrue();
            assertThat(cluster.clientConfig()).containsOnlyKeys(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)
                .containsEntry(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            assertThat(cluster.bootstrapAddresses()).hasSize(3).allMatch(address -> address.getHostString().equals("127.0.0.1"));
        }

        @Test
        @Order(2)
        void rejectsUnknownBrokersAndImpossibleTransitions() {
            assertThatThrownBy(() -> cluster.stopBroker(42)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("42");
            assertThatThrownBy(() -> cluster.killBroker(42)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cluster.startBroker(42)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cluster.startBroker(0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("running");
        }

        @Test
        @Order(3)
        void killedLeaderIsReplacedAndNoAckedRecordIsLost() throws Exception {
            TopicPartition partition = new TopicPartition("kill-leader", 0);
            List<String> acked = new ArrayList<>();
            try (Admin admin = Admin.create(adminConfig(cluster));
                 KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(cluster))) {
                createTopic(admin, partition.topic());
                acked.addAll(produce(producer, partition.topic(), "before-kill-", 50));
                int oldLeader = awaitLeader(admin, partition, -1);

                cluster.killBroker(oldLeader);

                assertThat(cluster.stoppedBrokers()).containsExactly(oldLeader);
                assertThatThrownBy(() -> cluster.stopBroker(oldLeader)).isInstanceOf(IllegalStateException.class);
                assertThat(awaitLeader(admin, partition, oldLeader)).isNotEqualTo(oldLeader);
                acked.addAll(produce(producer, partition.topic(), "while-down-", 50));

                cluster.startBroker(oldLeader);

                assertThat(cluster.stoppedBrokers()).isEmpty();
                acked.addAll(produce(producer, partition.topic(), "after-restart-", 50));
            }
            assertThat(new TreeMap<>(ReadBack.readAll(cluster.clientConfig(), Set.of(partition)).get(partition)).values())
                .containsExactlyElementsOf(acked);
        }

        @Test
        @Order(4)
        void addedBrokerTakesTheNextIdAndIsUnfenced() throws Exception {
            int added = cluster.addBroker();

            assertThat(added).isEqualTo(3);
            assertThat(cluster.brokerIds()).containsExactly(0, 1, 2, 3);
            assertThat(cluster.stoppedBrokers()).isEmpty();
            assertThat(cluster.bootstrapAddresses()).hasSize(4);
            try (Admin admin = Admin.create(adminConfig(cluster))) {
                List<Node> nodes = new ArrayList<>(admin.describeCluster(new DescribeClusterOptions().includeFencedBrokers(true))
                    .nodes().get(10, TimeUnit.SECONDS));
                assertThat(nodes).filteredOn(node -> node.id() == added).singleElement()
                    .satisfies(node -> assertThat(node.isFenced()).isFalse());
            }
        }

        @Test
        @Order(5)
        void closeLeavesNoBrokerProcessAndNoListeningPort() {
            List<ProcessHandle> brokers = ProcessHandle.current().children().filter(ChildJvmClusterTest::isKafkaBroker).toList();
            assertThat(brokers).hasSize(cluster.brokerIds().size()).allMatch(ProcessHandle::isAlive);
            List<InetSocketAddress> listeners = cluster.bootstrapAddresses();

            cluster.close();

            assertThat(brokers).noneMatch(ProcessHandle::isAlive);
            assertThat(ProcessHandle.current().descendants().filter(ChildJvmClusterTest::isKafkaBroker)).isEmpty();
            FreedPorts.assertBindable(listeners);
            assertThatCode(cluster::close).as("a second close").doesNotThrowAnyException();
        }
    }

    private static boolean isKafkaBroker(ProcessHandle process) {
        return process.info().arguments().map(arguments -> Arrays.asList(arguments).contains("kafka.Kafka")).orElse(false);
    }

    private static Map<String, Object> adminConfig(KafkaTestCluster cluster) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }

    private static Map<String, Object> producerConfig(KafkaTestCluster cluster) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return config;
    }

    private static void createTopic(Admin admin, String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
    }

    /** The partition's leader, once there is one other than {@code notThis}. */
    private static int awaitLeader(Admin admin, TopicPartition partition, int notThis) {
        int[] leader = {-1};
        Await.until("a leader of " + partition + " other than " + notThis, WAIT, () -> {
            Node current = admin.describeTopics(List.of(partition.topic())).allTopicNames().get(10, TimeUnit.SECONDS)
                .get(partition.topic()).partitions().get(partition.partition()).leader();
            leader[0] = current == null ? -1 : current.id();
            return leader[0] >= 0 && leader[0] != notThis;
        });
        return leader[0];
    }

    /** Sends {@code count} records and returns their values once every one is acknowledged. */
    private static List<String> produce(KafkaProducer<String, String> producer, String topic, String prefix, int count) throws Exception {
        List<String> values = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = prefix + i;
            values.add(value);
            acks.add(producer.send(new ProducerRecord<>(topic, value)));
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(2, TimeUnit.MINUTES);
        }
        return values;
    }
}
