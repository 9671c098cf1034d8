package io.fastleader.it.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaRelease;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.SteadyProducer;
import io.fastleader.it.group.GroupMember.Flavour;

/**
 * The issue's acceptance: an application that {@code subscribe()}s with no {@code group.protocol}
 * set, against a Kafka 3.9 broker, runs unchanged after swapping {@code KafkaConsumer} for
 * {@link FastLeaderConsumer}. On a real 3-broker Kafka 3.9 cluster ({@link KafkaRelease#KAFKA_3_9},
 * child JVMs; 3.9 knows only the classic group protocol and sends KIP-951 leader hints), every
 * consumer here is configured without {@code group.protocol}, so classic, as {@code KafkaConsumer}
 * 4.3.1 defaults: a FastLeaderConsumer and a KafkaConsumer share a group; a committed position is
 * where the group's next member starts; a leader move while a member reads loses nothing and is
 * followed by the brokers' hints. Asking for {@code group.protocol=consumer} on this cluster fails
 * with an error that names the protocol.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClassicGroupOn39BrokersTest extends GroupTestBase {

    /** Partitions of the topic whose replica lists rotate: enough that fetches are in flight to old leaders. */
    private static final int MOVED_PARTITIONS = 30;

    /**
     * One 3.9 cluster for the class, in place of the base class's. A new group's first join is not held back (the broker's default
     * waits 3 s for more members), so each scenario starts at once; the group session bounds are
     * the broker's defaults (6 s to 30 min), which the members' 6 s sessions fit.
     */
    @BeforeAll
    static void startCluster(@Cluster(release = KafkaRelease.KAFKA_3_9, brokerConfig = "group.initial.rebalance.delay.ms=0")
                             KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
        assertThat(cluster.kafkaVersion()).startsWith("3.9.");
    }

    @Test
    void aFastLeaderConsumerAndAKafkaConsumerShareEveryPartitionAndReadEveryRecord() throws Exception {
        int records = produce(newTopic(), 400);

        GroupMember kafka = join("kafka", Flavour.KAFKA);
        GroupMember fastleader = join("fastleader", Flavour.FASTLEADER);

        awaitEveryPartitionOwnedByEachOf(members);
        Await.until("every record read", SETTLED, () -> GroupMember.union(members).size() == records);
        assertThat(ownership.of(kafka.name())).as("the KafkaConsumer member's share").isNotEmpty();
        assertThat(ownership.of(fastleader.name())).as("the FastLeaderConsumer member's share").isNotEmpty();
        ConsumerGroupDescription group = describeGroup();
        assertThat(group.type()).isEqualTo(GroupType.CLASSIC);
        assertThat(group.members()).hasSize(2);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void aCommittedPositionIsWhereTheGroupsNextMemberStarts() throws Exception {
        int first = produce(newTopic(), 200);
        Map<String, Object> config = config();
        // The commit under test is the application's own: nothing is committed behind its back on close.
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Set<TopicPartition> partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p))
                .collect(Collectors.toSet());

        Map<TopicPartition, OffsetAndMetadata> committed;
        try (Consumer<String, String> consumer = fastLeaderConsumer(config)) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> read = readAtLeast(consumer, first);
            assertThat(read).as("records before the commit").hasSize(first);
            assertThat(positions(read)).as("each read once").hasSize(first);
            consumer.commitSync();
            committed = consumer.committed(partitions);
        }
        Map<TopicPartition, Long> ends = endOffsets(partitions);
        assertThat(committed).hasSize(PARTITIONS)
                .allSatisfy((partition, offset) -> assertThat(offset.offset()).as("committed offset of %s", partition)
                        .isEqualTo(ends.get(partition)));

        int second = produce(topic, 80);
        try (Consumer<String, String> next = fastLeaderConsumer(config)) {
            next.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> read = readAtLeast(next, second);
            assertThat(read).as("the next member reads only what came after the commit").hasSize(second)
                    .allSatisfy(record -> assertThat(record.offset()).as("offset of %s", record)
                            .isGreaterThanOrEqualTo(ends.get(new TopicPartition(record.topic(), record.partition()))));
            assertThat(positions(read)).as("each read once").hasSize(second);
        }
    }

    @Test
    void groupProtocolConsumerFailsClearlyOnA39Cluster() {
        newTopic();
        Map<String, Object> config = config();
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        // The consumer protocol's session and heartbeat are the broker's to set; a client that names them is refused.
        config.remove(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        config.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        try (Consumer<String, String> consumer = fastLeaderConsumer(config)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + SETTLED.toNanos();
            Throwable failure = catchThrowable(() -> {
                while (System.nanoTime() - deadline < 0) {
                    consumer.poll(Duration.ofMillis(100));
                }
            });
            assertThat(failure).as("what poll raised within %s", SETTLED)
                    .isInstanceOf(UnsupportedVersionException.class)
                    .hasMessageContaining("consumer group protocol")
                    .hasMessageContaining("group-" + topic);
            assertThat(consumer.assignment()).isEmpty();
        }
    }

    @Test
    void aLeaderMoveWhileAGroupMemberReadsLosesNoRecord() throws Exception {
        TopicDescription before = newTopic(MOVED_PARTITIONS, Map.of("min.insync.replicas", "2"));
        GroupMember reader = join("reader", Flavour.FASTLEADER);
        awaitEveryPartitionOwnedByEachOf(members);

        Map<TopicPartition, Map<Long, String>> acked;
        try (SteadyProducer producer = SteadyProducer.kafkaClients(cluster.clientConfig(), topic, MOVED_PARTITIONS, 1000)) {
            producer.awaitMoreAcks(300);
            Await.until("the reader reading", SETTLED, () -> reader.seen().size() >= 100);
            TopicDescription after = disturbances.rotateReplicas(topic);
            producer.awaitMoreAcks(300);
            producer.stopAndFlush();
            assertThat(producer.failures()).isEmpty();
            acked = producer.acked();
            after.partitions().forEach(p -> assertThat(p.leader().id()).as("leader of partition %d", p.partition())
                    .isNotEqualTo(before.partitions().get(p.partition()).leader().id()));
        }

        Set<String> expected = new HashSet<>();
        acked.forEach((partition, offsets) -> offsets.keySet().forEach(offset -> expected.add(partition.partition() + "@" + offset)));
        Await.until("every acknowledged record read", SETTLED, () -> reader.seen().keySet().containsAll(expected));
        assertThat(reader.seen()).as("records handed out more than once").allSatisfy((record, times) -> assertThat(times).isOne());
        assertThat(reader.lost()).isEmpty();
        assertThat(ownership.of(reader.name())).hasSize(MOVED_PARTITIONS);
        assertThat(reader.metric(MetadataMetrics.GROUP, "leader-hints-accepted-total"))
                .as("leader hints the 3.9 brokers sent that the member accepted").isPositive();
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    /** A group member's settings: no {@code group.protocol}, as an application that never heard of it. */
    private Map<String, Object> config() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "group-" + topic);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        return config;
    }

    private GroupMember join(String name, Flavour flavour) {
        GroupMember member = new GroupMember(name, flavour, config(), topic, ownership, consumer -> consumer.commitSync());
        members.add(member);
        return member;
    }

    private static Consumer<String, String> fastLeaderConsumer(Map<String, Object> config) {
        return new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    /**
     * Polls until at least {@code count} records came, and once more: anything beyond {@code count}
     * is a record read twice or one that should not be there, for the caller to see.
     */
    private static List<ConsumerRecord<String, String>> readAtLeast(Consumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        Await.until(count + " records read", SETTLED, () -> {
            consumer.poll(Duration.ofMillis(100)).forEach(read::add);
            return read.size() >= count;
        });
        consumer.poll(Duration.ofMillis(200)).forEach(read::add);
        return read;
    }

    private static Set<String> positions(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(record -> record.partition() + "@" + record.offset()).collect(Collectors.toSet());
    }

    private Map<TopicPartition, Long> endOffsets(Set<TopicPartition> partitions) {
        try (Consumer<String, String> probe = fastLeaderConsumer(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                cluster.bootstrapServers()))) {
            return probe.endOffsets(partitions, Duration.ofSeconds(30));
        }
    }
}
