package io.fastleader.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.sim.SimulatedCluster;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link OrderEventsPublisher} keeps its promise (each order's events once, in order) while every
 * partition's leader moves and a broker restarts, on a {@link SimulatedCluster}: brokers in this
 * JVM that the real clients reach over loopback, where a leader move or a restart is one call
 * taking microseconds, so each case runs in well under a second.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OrderEventsThroughALeaderMoveTest {

    private static final String TOPIC = "order-events";
    private static final int PARTITIONS = 6;
    private static final int ORDERS = 100;
    private static final List<String> LIFECYCLE = List.of("created", "paid", "packed", "shipped");
    private static final Duration READ_DEADLINE = Duration.ofSeconds(10);

    /** The application runs on either client: the test runs it on both. */
    enum Client {
        FASTLEADER(FastLeaderProducer::new, FastLeaderConsumer::new),
        KAFKA(KafkaProducer::new, KafkaConsumer::new);

        private final Function<Properties, Producer<String, String>> producer;
        private final Function<Properties, Consumer<String, String>> consumer;

        Client(Function<Properties, Producer<String, String>> producer, Function<Properties, Consumer<String, String>> consumer) {
            this.producer = producer;
            this.consumer = consumer;
        }
    }

    private SimulatedCluster cluster;

    @BeforeEach
    void startCluster() {
        cluster = SimulatedCluster.start(3);
        cluster.createTopic(TOPIC, PARTITIONS, 3);
    }

    @AfterEach
    void closeCluster() {
        cluster.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Client.class)
    void testEachOrdersEventsArriveOnceAndInOrderThroughALeaderMoveAndAControlledRestart(Client client) {
        try (Producer<String, String> producer = client.producer.apply(OrderEventsPublisher.producerConfig(cluster.bootstrapServers()))) {
            OrderEventsPublisher publisher = new OrderEventsPublisher(producer, TOPIC);

            publishForEveryOrder(publisher, "created");
            // Before those events are acknowledged (nothing waits for them), every partition's leader moves to its next replica.
            cluster.moveLeaders(cluster.nextReplicas(TOPIC));
            publishForEveryOrder(publisher, "paid");
            // A controlled shutdown, as in a rolling restart: broker 1's leadership moves off, then it closes.
            cluster.stopBroker(1);
            publishForEveryOrder(publisher, "packed");
            cluster.startBroker(1);
            // A restarted broker leads nothing until a move gives it some (the simulation elects no preferred
            // leaders): rotating again hands some partitions back to it, so the clients reconnect to it.
            cluster.moveLeaders(cluster.nextReplicas(TOPIC));
            publishForEveryOrder(publisher, "shipped");
            publisher.awaitPublished();
        }

        assertThat(readEveryOrdersEvents(client)).isEqualTo(expectedEvents());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Client.class)
    void testEachOrdersEventsArriveOnceAndInOrderThroughALeaderMoveAndACrashedBrokerRestarting(Client client) {
        try (Producer<String, String> producer = client.producer.apply(OrderEventsPublisher.producerConfig(cluster.bootstrapServers()))) {
            OrderEventsPublisher publisher = new OrderEventsPublisher(producer, TOPIC);

            publishForEveryOrder(publisher, "created");
            cluster.moveLeaders(cluster.nextReplicas(TOPIC));
            publishForEveryOrder(publisher, "paid");
            // A crash: connections to broker 1 reset, and until the controller notices, Metadata still names it leader.
            cluster.killBroker(1);
            publishForEveryOrder(publisher, "packed");
            cluster.failOver(1);
            cluster.startBroker(1);
            // A restarted broker leads nothing until a move gives it some (the simulation elects no preferred
            // leaders): rotating again hands some partitions back to it, so the clients reconnect to it.
            cluster.moveLeaders(cluster.nextReplicas(TOPIC));
            publishForEveryOrder(publisher, "shipped");
            publisher.awaitPublished();
        }

        assertThat(readEveryOrdersEvents(client)).isEqualTo(expectedEvents());
    }

    private static void publishForEveryOrder(OrderEventsPublisher publisher, String event) {
        for (int order = 0; order < ORDERS; order++) {
            publisher.publish(orderId(order), event);
        }
    }

    /** What a reader of the topic sees: each order's events in the order its partition holds them. */
    private Map<String, List<String>> readEveryOrdersEvents(Client client) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        Map<String, List<String>> eventsByOrder = new LinkedHashMap<>();
        try (Consumer<String, String> consumer = client.consumer.apply(config)) {
            // assign(), not subscribe(): reading a topic back needs no consumer group.
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(TOPIC, p)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // Reads to each partition's end, so a duplicate is read too, not just the first ORDERS x LIFECYCLE records.
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    eventsByOrder.computeIfAbsent(record.key(), order -> new ArrayList<>()).add(record.value());
                }
            }
        }
        return eventsByOrder;
    }

    private static Map<String, List<String>> expectedEvents() {
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (int order = 0; order < ORDERS; order++) {
            expected.put(orderId(order), LIFECYCLE);
        }
        return expected;
    }

    private static String orderId(int order) {
        return "order-" + order;
    }
}
