package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clusters with a {@link NetworkModel}, reached with kafka-clients 4.3.1: the relays are where
 * clients connect, every request pays the round trip, and a stopped broker's relay refuses like
 * the broker would. Wall times are only asserted as lower bounds.
 */
class NetworkModelTest {

    private static final Duration CLIENT_RTT = Duration.ofMillis(40);
    private static final Duration BROKER_RTT = Duration.ofMillis(10);

    /** Three in-JVM brokers, 40 ms from clients and 10 ms from each other. */
    private static KafkaTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = ClusterSpec.builder()
            .brokers(3)
            .execution(Execution.IN_JVM)
            .network(NetworkModel.loopback().withClientRtt(CLIENT_RTT).withBrokerRtt(BROKER_RTT).withJitter(Duration.ofMillis(2)))
            .start();
    }

    @AfterAll
    static void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void clientsBootstrapAndFindEveryBrokerAtItsRelay() throws Exception {
        List<Integer> bootstrapPorts = cluster.bootstrapAddresses().stream().map(InetSocketAddress::getPort).toList();
        List<Integer> advertisedPorts = cluster.brokerIds().stream().map(id -> cluster.brokerAddress(id).getPort()).toList();
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Set<Integer> metadataPorts = admin.describeCluster().nodes().get().stream().map(Node::port).collect(Collectors.toSet());

            assertThat(bootstrapPorts).containsExactlyInAnyOrderElementsOf(advertisedPorts);
            assertThat(metadataPorts).containsExactlyInAnyOrderElementsOf(advertisedPorts);
        }
        // Each of those ports is a relay's, not a broker's own: a link's accepting thread is named after its port.
        assertThat(relayAcceptorPorts()).containsAll(bootstrapPorts);
    }

    @Test
    void aMetadataRequestCostsAtLeastTheClientRoundTrip() throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.describeCluster().nodes().get(); // connects and negotiates versions first

            long start = System.nanoTime();
            admin.describeCluster().nodes().get();

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(CLIENT_RTT);
        }
    }

    @Test
    void recordsProducedThroughTheRelaysAreReadBack() throws Exception {
        String topic = "through-relays";
        createTopic(cluster, new NewTopic(topic, 3, (short) 3));

        assertThat(produceAndReadBack(cluster, topic, 30)).isEqualTo(30);
    }

    @Test
    void aStoppedBrokersRelayRefusesAndItsRestartAcceptsOnTheSameAddress() throws Exception {
        String topic = "across-a-restart";
        createTopic(cluster, new NewTopic(topic, 3, (short) 3).configs(Map.of("min.insync.replicas", "2")));
        int stopped = 2;
        InetSocketAddress address = cluster.brokerAddress(stopped);
        try (KafkaProducer<String, String> producer = producer(cluster)) {
            AtomicInteger sent = new AtomicInteger();
            sendAndAwait(producer, topic, sent, 10);

            cluster.stopBroker(stopped);

            assertThatThrownBy(() -> new Socket(address.getHostString(), address.getPort()).close()).isInstanceOf(ConnectException.class);
            sendAndAwait(producer, topic, sent, 10);

            cluster.startBroker(stopped);

            assertThat(cluster.brokerAddress(stopped)).isEqualTo(address);
            try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
                assertThat(socket.isConnected()).isTrue();
            }
            sendAndAwait(producer, topic, sent, 10);
            assertThat(readBack(cluster, topic, sent.get())).isEqualTo(sent.get());
        }
    }

    @Test
    void anAddedBrokerIsReachedThroughARelayToo() throws Exception {
        int added = cluster.addBroker();

        int port = cluster.brokerAddress(added).getPort();
        assertThat(relayAcceptorPorts()).contains(port);
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            assertThat(admin.describeCluster().nodes().get())
                .extracting(Node::id, Node::port)
                .contains(tuple(added, port));
        }
    }

    @Test
    void saslSslWorksEndToEndThroughTheRelays() throws Exception {
        try (KafkaTestCluster secured = ClusterSpec.builder()
            .brokers(1)
            .execution(Execution.IN_JVM)
            .security(Security.saslSsl("SCRAM-SHA-512", "fastleader", "fastleader-secret"))
            .network(NetworkModel.loopback().withClientRtt(CLIENT_RTT))
            .start()) {
            assertThat(relayAcceptorPorts()).contains(secured.brokerAddress(0).getPort());
            createTopic(secured, new NewTopic("secured", 1, (short) 1));

            assertThat(produceAndReadBack(secured, "secured", 5)).isEqualTo(5);
        }
    }

    @Test
    void impossibleModelsAreRefused() {
        assertThatThrownBy(() -> NetworkModel.loopback().withClientRtt(Duration.ofMillis(-1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientRtt must not be negative");
        assertThatThrownBy(() -> NetworkModel.loopback().withMetadataLag(-1, Duration.ofSeconds(1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node id -1");
        NetworkModel lagging = NetworkModel.loopback().withMetadataLag(1, Duration.ofSeconds(1));
        assertThatThrownBy(() -> ClusterSpec.builder().execution(Execution.IN_JVM).network(lagging).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metadataLag needs CHILD_JVM");
        assertThatThrownBy(() -> ClusterSpec.builder().execution(Execution.CHILD_JVM).network(NetworkModel.loopback().withMetadataLag(3, Duration.ofSeconds(1))).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node 3");
        assertThatThrownBy(() -> ClusterSpec.builder().execution(Execution.CHILD_JVM).network(lagging.withMetadataLag(2, Duration.ofSeconds(1))).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fewer than half");
        assertThatThrownBy(() -> ClusterSpec.builder().execution(Execution.CONTAINER).network(NetworkModel.loopback().withClientRtt(CLIENT_RTT)).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loopback");
    }

    static Set<Integer> relayAcceptorPorts() {
        return Thread.getAllStackTraces().keySet().stream()
            .map(Thread::getName)
            .filter(name -> name.startsWith("delay-link-") && name.endsWith("-accept"))
            .map(name -> Integer.parseInt(name.substring("delay-link-".length(), name.length() - "-accept".length())))
            .collect(Collectors.toSet());
    }

    private static void createTopic(KafkaTestCluster cluster, NewTopic topic) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(List.of(topic)).all().get();
        }
    }

    private static int produceAndReadBack(KafkaTestCluster cluster, String topic, int count) throws Exception {
        try (KafkaProducer<String, String> producer = producer(cluster)) {
            sendAndAwait(producer, topic, new AtomicInteger(), count);
        }
        return readBack(cluster, topic, count);
    }

    private static void sendAndAwait(KafkaProducer<String, String> producer, String topic, AtomicInteger sent, int count) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            acks.add(producer.send(new ProducerRecord<>(topic, "record-" + sent.getAndIncrement())));
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get();
        }
    }

    /** Reads the topic from the start until {@code expected} records came, and returns how many did. */
    private static int readBack(KafkaTestCluster cluster, String topic, int expected) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, String>> read = new ArrayList<>();
            Await.until(expected + " records of " + topic, Duration.ofSeconds(30), () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return read.size() >= expected;
            });
            return read.size();
        }
    }

    private static KafkaProducer<String, String> producer(KafkaTestCluster cluster) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return new KafkaProducer<>(config);
    }
}
