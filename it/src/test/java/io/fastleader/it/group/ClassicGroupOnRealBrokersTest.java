package io.fastleader.it.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.group.GroupMember.Flavour;

/**
 * {@link io.fastleader.clients.consumer.FastLeaderConsumer}s as members of classic groups
 * (JoinGroup/SyncGroup, the assignor run by the group's leader) on a real 3-broker Kafka 4.3.1
 * cluster, beside {@code KafkaConsumer} members, both without {@code group.protocol} (so classic,
 * {@code KafkaConsumer}'s default), and in a consumer-protocol group beside members of both
 * protocols, as Kafka 4 lets classic members join one: with each of Kafka's assignors every partition is owned, each
 * member gets a share and every record is read, never a partition owned by two members at once
 * (checked from the listeners); a cooperative rebalance revokes only what moves; partitions added to
 * a topic are assigned once the leader sees them. Leaves, static members coming back, killed members
 * and rolling restarts run under both protocols in {@link GroupMembersOnRealBrokersTest}.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClassicGroupOnRealBrokersTest extends GroupTestBase {

    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {RangeAssignor.class, RoundRobinAssignor.class, StickyAssignor.class, CooperativeStickyAssignor.class})
    void eachAssignorSharesEveryPartitionBetweenThreeFastLeaderMembersAndAKafkaConsumer(Class<?> assignor) throws Exception {
        int records = produce(newTopic(), 400);
        Map<String, Object> strategy = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());

        GroupMember kafka = join("kafka", Flavour.KAFKA, strategy);
        for (int i = 1; i <= 3; i++) {
            join("fastleader-" + i, Flavour.FASTLEADER, strategy);
        }

        awaitEveryPartitionOwnedByEachOf(members);
        Await.until("every record read", SETTLED, () -> GroupMember.union(members).size() == records);
        assertThat(ownership.of(kafka.name())).as("the KafkaConsumer member's share").isNotEmpty();
        assertThat(describeGroup().type()).isEqualTo(GroupType.CLASSIC);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void aCooperativeRebalanceRevokesOnlyThePartitionsThatMove() throws Exception {
        newTopic();
        Map<String, Object> cooperative = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        GroupMember first = join("first", Flavour.FASTLEADER, cooperative);
        awaitEveryPartitionOwnedByEachOf(members);

        GroupMember second = join("second", Flavour.FASTLEADER, cooperative);
        awaitEveryPartitionOwnedByEachOf(members);

        Set<TopicPartition> kept = ownership.of(first.name());
        assertThat(kept).hasSize(PARTITIONS / 2);
        assertThat(first.events()).filteredOn(event -> event.startsWith("revoked"))
                .as("only the partitions the second member took were revoked")
                .allSatisfy(event -> assertThat(kept).noneMatch(partition -> event.contains(partition.toString())));
        assertThat(second.events()).noneMatch(event -> event.startsWith("revoked [" + topic));
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void classicMembersShareAConsumerProtocolGroupWithKafkaConsumersOfBothProtocols() throws Exception {
        int records = produce(newTopic(), 400);
        Map<String, Object> consumerProtocol = Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        Map<String, Object> cooperative = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());

        join("kafka-consumer-protocol", Flavour.KAFKA, consumerProtocol);
        awaitEveryPartitionOwnedByEachOf(members);
        join("fastleader-classic", Flavour.FASTLEADER, cooperative);
        join("kafka-classic", Flavour.KAFKA, cooperative);
        join("fastleader-consumer-protocol", Flavour.FASTLEADER, consumerProtocol);

        awaitEveryPartitionOwnedByEachOf(members);
        Await.until("every record read", SETTLED, () -> GroupMember.union(members).size() == records);
        assertThat(describeGroup().type()).as("a consumer-protocol group with classic members").isEqualTo(GroupType.CONSUMER);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void partitionsAddedToATopicAreAssignedOnceTheLeaderSeesThem() throws Exception {
        newTopic();
        Map<String, Object> quickMetadata = Map.of(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1_000);
        join("fastleader-1", Flavour.FASTLEADER, quickMetadata);
        join("fastleader-2", Flavour.FASTLEADER, quickMetadata);
        awaitEveryPartitionOwnedByEachOf(members);

        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(PARTITIONS + 4))).all().get(30, TimeUnit.SECONDS);
        }

        Await.until("the new partitions owned too", SETTLED, () -> ownership.snapshot().size() == PARTITIONS + 4);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    private GroupMember join(String name, Flavour flavour, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "group-" + topic);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (!"consumer".equals(extra.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG))) {
            // The classic protocol's session and heartbeat are the client's to set (the consumer protocol refuses them).
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
            config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        }
        config.putAll(extra);
        GroupMember member = new GroupMember(name, flavour, config, topic, ownership, consumer -> consumer.commitSync());
        members.add(member);
        return member;
    }
}
