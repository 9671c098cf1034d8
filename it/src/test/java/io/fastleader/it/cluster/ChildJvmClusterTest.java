package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
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

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;

/**
 * {@link ChildJvmCluster} on real 4.3.1 brokers, one cluster per nested class shared by its tests
 * in order because starting three broker JVMs is the slow part. The 3.6.2 release runs the shared
 * scenarios in {@link LegacyClusterTest}.
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
            cluster = ClusterSpec.builder().execution(Execution.CHILD_JVM).brokerJvmOption(ClusterSpec.C1_ONLY).start();
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

        /**
         * A node's port chosen inside the kernel's ephemeral range could be handed to a relay bound
         * to port 0, or to an outgoing connection, before the node binds it (a soak's start failed
         * with "Address already in use" that way).
         */
        @Test
        @Order(1)
        void nodesListenBelowTheKernelsEphemeralPortRange() throws IOException {
            // readAllLines, not readString: the JDK 17 reads a single byte of this file, whose size says 0.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
            int firstEphemeral = Integer.parseInt(range.trim().split("\\s+")[0]);
            assertThat(cluster.bootstrapAddresses()).allSatisfy(address -> assertThat(address.getPort()).isLessThan(firstEphemeral));
        }

        @Test
        @Order(2)
        void rejectsUnknownBrokersAndImpossibleTransitions() {
            assertThatThrownBy(() -> cluster.stopBroker(42)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("42");
            assertThatThrownBy(() -> cluster.killBroker(42)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cluster.startBroker(42)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cluster.startBroker(0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("running");
            assertThatThrownBy(() -> cluster.cutClientLinks(42)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        @Order(3)
        void clientLinkFaultsNeedAClientRoundTrip() {
            assertThatThrownBy(() -> cluster.cutClientLinks(0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("directly");
            assertThatThrownBy(() -> cluster.restoreClientLinks(0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> cluster.delayClientLinks(0, Duration.ofMillis(5))).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> cluster.dropClientConnections(0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> cluster.clientBytesFrom(0)).isInstanceOf(IllegalStateException.class);
        }

        @Test
        @Order(4)
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
        @Order(5)
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
        @Order(6)
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

    /**
     * The network faults on one broker's client links, on a cluster whose clients reach the brokers
     * through relays of a 1 ms round trip, as a chaos test runs them.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    class ClientLinkFaults {

        /** The broker whose links the tests break; it leads partition 0 of the produced topic. */
        private static final int BROKER = 0;

        private KafkaTestCluster cluster;

        @BeforeAll
        void startCluster() {
            cluster = ClusterSpec.builder().execution(Execution.CHILD_JVM).brokerJvmOption(ClusterSpec.C1_ONLY)
                .network(NetworkModel.loopback().withClientRtt(Duration.ofMillis(1)))
                .start();
        }

        @AfterAll
        void closeCluster() {
            if (cluster != null) {
                cluster.close();
            }
        }

        @Test
        @Order(1)
        void aCutBrokerRefusesClientConnectionsUntilRestoredAndRunsOn() throws IOException {
            cluster.cutClientLinks(BROKER);

            assertRefused(cluster.brokerAddress(BROKER));
            assertThat(cluster.stoppedBrokers()).isEmpty();

            cluster.restoreClientLinks(BROKER);

            assertAnswers(cluster.brokerAddress(BROKER));
        }

        @Test
        @Order(2)
        void aProducerKeepsProducingToTheOtherBrokersWhileOneIsCutAndDeliversEverythingOnceRestored() throws Exception {
            String topic = "cut-client-links";
            TopicPartition cutPartition = new TopicPartition(topic, BROKER);
            try (Admin admin = Admin.create(adminConfig(cluster))) {
                // Partition n led by broker n, so that two of three partitions are led by brokers clients still reach.
                admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(0, 1, 2), 1, List.of(1, 2, 0), 2, List.of(2, 0, 1)))))
                    .all().get(30, TimeUnit.SECONDS);
            }
            try (SteadyProducer producer = SteadyProducer.kafkaClients(cluster.clientConfig(), topic, 3, 300)) {
                producer.awaitMoreAcks(100);

                cluster.cutClientLinks(BROKER);
                // Past any answer the producer read from the cut broker just before the cut.
                producer.awaitMoreAcks(50);
                int cutPartitionAcks = ackedOn(producer, cutPartition);
                producer.awaitMoreAcks(200);

                assertThat(ackedOn(producer, cutPartition)).as("acknowledgements from the cut leader").isEqualTo(cutPartitionAcks);
                assertThat(cluster.stoppedBrokers()).isEmpty();

                cluster.restoreClientLinks(BROKER);
                producer.stopAndFlush();

                assertThat(ackedOn(producer, cutPartition)).isGreaterThan(cutPartitionAcks);
                AckedRecords.assertAllReadBackOnceInSendOrder(producer, cluster.clientConfig());
            }
        }

        @Test
        @Order(3)
        void droppedClientConnectionsAreClosedAndNewOnesAccepted() throws IOException {
            try (Socket open = new Socket(cluster.brokerAddress(1).getAddress(), cluster.brokerAddress(1).getPort())) {
                assertThat(apiVersionsError(open)).isZero();

                cluster.dropClientConnections(1);

                assertClosedByPeer(open);
            }
            assertAnswers(cluster.brokerAddress(1));
        }

        @Test
        @Order(4)
        void clientBytesFromCountsEveryByteOfTheBrokersAnswers() {
            long before = cluster.clientBytesFrom(2);

            byte[] answer = RawExchange.roundTrip(cluster.brokerAddress(2), ApiKey.API_VERSIONS, API_VERSIONS_V3, 1, apiVersionsRequest());

            assertThat(cluster.clientBytesFrom(2) - before).isEqualTo(Framing.SIZE_PREFIX_BYTES + answer.length);
        }

        @Test
        @Order(5)
        void addedClientDelayLengthensARoundTripUntilRemoved() throws IOException {
            Duration extra = Duration.ofMillis(400);
            Duration delayedRoundTrip = extra.multipliedBy(2);
            try (Socket socket = new Socket(cluster.brokerAddress(2).getAddress(), cluster.brokerAddress(2).getPort())) {
                cluster.delayClientLinks(2, extra);
                assertThat(timedApiVersions(socket)).isGreaterThanOrEqualTo(delayedRoundTrip);

                cluster.delayClientLinks(2, Duration.ZERO);

                // Far below the delayed round trip, which a loaded machine does not reach either.
                assertThat(timedApiVersions(socket)).isLessThan(delayedRoundTrip);
            }
        }

        @Test
        @Order(6)
        void aBrokerRestartedWhileCutStaysCutUntilRestored() throws IOException {
            cluster.cutClientLinks(BROKER);
            cluster.stopBroker(BROKER);

            cluster.startBroker(BROKER);

            assertThat(cluster.stoppedBrokers()).isEmpty();
            assertRefused(cluster.brokerAddress(BROKER));

            cluster.restoreClientLinks(BROKER);

            assertAnswers(cluster.brokerAddress(BROKER));
        }

        @Test
        @Order(7)
        void aBrokerRestoredWhileStoppedAcceptsClientsOnceStarted() throws IOException {
            cluster.cutClientLinks(BROKER);
            cluster.stopBroker(BROKER);

            cluster.restoreClientLinks(BROKER);

            assertRefused(cluster.brokerAddress(BROKER));

            cluster.startBroker(BROKER);

            assertAnswers(cluster.brokerAddress(BROKER));
        }
    }

    private static final short API_VERSIONS_V3 = 3;

    private static ApiVersionsRequestData apiVersionsRequest() {
        return new ApiVersionsRequestData().setClientSoftwareName("fastleader-it").setClientSoftwareVersion("1");
    }

    /** The error code of an ApiVersions exchange on {@code socket}, which stays open. */
    private static short apiVersionsError(Socket socket) throws IOException {
        byte[] frame = RawExchange.roundTrip(socket, ApiKey.API_VERSIONS, API_VERSIONS_V3, 1, apiVersionsRequest());
        return ((ApiVersionsResponseData) RawExchange.body(ApiKey.API_VERSIONS, API_VERSIONS_V3, frame)).errorCode();
    }

    private static Duration timedApiVersions(Socket socket) throws IOException {
        long start = System.nanoTime();
        assertThat(apiVersionsError(socket)).isZero();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** Nothing listens at {@code address}: a connect is refused, as to a host that is gone. */
    private static void assertRefused(InetSocketAddress address) {
        assertThatThrownBy(() -> new Socket(address.getAddress(), address.getPort()).close()).isInstanceOf(ConnectException.class);
    }

    /** A new connection to {@code address} reaches a broker that answers ApiVersions. */
    private static void assertAnswers(InetSocketAddress address) throws IOException {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            assertThat(apiVersionsError(socket)).isZero();
        }
    }

    /** The peer closed the socket: a read sees the end of the stream or a reset, not the timeout. */
    private static void assertClosedByPeer(Socket socket) throws IOException {
        try {
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        } catch (SocketException reset) {
            assertThat(reset).hasMessageContaining("reset");
        }
    }

    private static int ackedOn(SteadyProducer producer, TopicPartition partition) {
        return producer.acked().getOrDefault(partition, Map.of()).size();
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
