package io.fastleader.it.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * One {@link FastLeaderConsumer} group member on a real 3-broker Kafka 4.3.1 cluster, for what a
 * lone member shows: a {@code Pattern} matched on the client picks up a matching topic created
 * later; a {@code SubscriptionPattern} is matched by the coordinator; a member whose application
 * stops polling for longer than {@code max.poll.interval.ms} leaves the group, and on its next
 * poll gives its partitions up as lost and joins again.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupSubscriptionsOnRealBrokersTest {

    private static final Duration SETTLED = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    private final List<String> events = new ArrayList<>();

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM, brokerConfig = {
            "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500",
            "group.consumer.min.session.timeout.ms=6000", "group.consumer.session.timeout.ms=6000"}) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @Test
    void aPatternSubscriptionReadsEveryMatchingTopicAndPicksUpOneCreatedLater() throws Exception {
        createAndFill("orders-eu", "orders-us", "payments");
        try (FastLeaderConsumer<String, String> consumer = member("pattern", Map.of(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1_000))) {
            consumer.subscribe(Pattern.compile("orders-.*"), listener());
            Set<String> read = new TreeSet<>();
            pollUntil(consumer, read, () -> read.size() == 20);
            assertThat(read).allMatch(record -> record.startsWith("orders-"));
            assertThat(consumer.subscription()).containsExactlyInAnyOrder("orders-eu", "orders-us");

            createAndFill("orders-asia");
            pollUntil(consumer, read, () -> read.size() == 30);

            assertThat(consumer.subscription()).containsExactlyInAnyOrder("orders-asia", "orders-eu", "orders-us");
            assertThat(read).noneMatch(record -> record.startsWith("payments"));
        }
    }

    @Test
    void aSubscriptionPatternIsMatchedByTheCoordinator() throws Exception {
        createAndFill("invoices-1", "invoices-2", "receipts");
        try (FastLeaderConsumer<String, String> consumer = member("broker-pattern", Map.of())) {
            consumer.subscribe(new SubscriptionPattern("invoices-.*"), listener());
            Set<String> read = new TreeSet<>();
            pollUntil(consumer, read, () -> read.size() == 20);

            assertThat(read).allMatch(record -> record.startsWith("invoices-"));
            assertThat(consumer.assignment()).extracting(TopicPartition::topic).containsOnly("invoices-1", "invoices-2");
            // As KafkaConsumer reports it (GroupParityTest): the coordinator alone matches a SubscriptionPattern.
            assertThat(consumer.subscription()).isEmpty();
        }
    }

    @Test
    void aMemberThatStopsPollingLeavesAndOnItsNextPollReleasesItsPartitionsAsLostAndJoinsAgain() throws Exception {
        createAndFill("slow-app");
        try (FastLeaderConsumer<String, String> consumer = member("slow", Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 2_000))) {
            consumer.subscribe(List.of("slow-app"), listener());
            Set<String> read = new TreeSet<>();
            pollUntil(consumer, read, () -> read.size() == 10);
            int epoch = consumer.groupMetadata().generationId();

            Await.until("the member to leave for its expired poll timer", SETTLED,
                    () -> consumer.metrics().entrySet().stream().anyMatch(metric -> metric.getKey().name().equals("last-poll-seconds-ago")
                            && ((Number) metric.getValue().metricValue()).doubleValue() >= 3));
            pollUntil(consumer, read, () -> events.contains("lost [slow-app-0]") && !consumer.assignment().isEmpty());

            assertThat(events).containsSubsequence("assigned [slow-app-0]", "lost [slow-app-0]", "assigned [slow-app-0]");
            assertThat(consumer.groupMetadata().generationId()).as("a new membership").isNotEqualTo(epoch);
        }
    }

    private FastLeaderConsumer<String, String> member(String group, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(extra);
        return new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    private ConsumerRebalanceListener listener() {
        return new RecordingListener(events, true);
    }

    private static void pollUntil(FastLeaderConsumer<String, String> consumer, Set<String> read, Callable<Boolean> done) {
        Await.until("the member to read on", SETTLED, () -> {
            consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.topic() + "@" + record.offset()));
            return done.call();
        });
    }

    /** Creates each topic with one partition and writes ten records to it. */
    private static void createAndFill(String... topics) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            for (String topic : topics) {
                disturbances.createTopic(new NewTopic(topic, 1, (short) 3));
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, "key", "value-" + i)).get();
                }
            }
        }
    }
}
