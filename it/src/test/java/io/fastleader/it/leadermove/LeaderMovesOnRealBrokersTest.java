package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.consumer.Consumption;

/**
 * The events that move leaders, on a real 3-broker KRaft cluster, while a FastLeaderProducer and a
 * FastLeaderConsumer work one topic (RF 3, min.insync.replicas 2, acks=all, idempotence on): every
 * scenario proves every record sent was acknowledged and is in the log once, in send order, that
 * the consumer handed out exactly that log, and that no client thread outlives close; and, from
 * the clients' metrics, which path they took. Each runs with hints on and off.
 *
 * <p>The cluster runs where {@code -Dfastleader.it.execution} says (in-JVM by default,
 * Testcontainers' Kafka with {@code container}). Abrupt stops need brokers in processes of their
 * own: {@link BrokerKilledOnRealBrokersTest}.
 */
@ExtendWith(KafkaClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LeaderMovesOnRealBrokersTest {

    static final int PARTITIONS = 30;
    /** Partitions of the KIP-951 benchmark's topic, whose replica lists the rotation scenario turns. */
    static final int KIP_PARTITIONS = 100;
    static final Map<String, String> MIN_ISR_2 = Map.of("min.insync.replicas", "2");

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    /** The brokers the cluster started with: the ones topics are placed on. */
    private static List<Integer> original;

    @BeforeAll
    static void startCluster(@Cluster KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
        original = List.copyOf(cluster.brokerIds());
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    @Order(1)
    void everyPartitionsReplicaListRotates(Hints hints) throws Exception {
        String topic = topic("rotate", hints);
        Map<Integer, Integer> before = leaders(createTopic(topic, KIP_PARTITIONS));
        try (LeaderMoveTraffic traffic = new LeaderMoveTraffic(cluster.clientConfig(), topic, KIP_PARTITIONS, hints.overrides())) {
            traffic.startPhase(KIP_PARTITIONS);
            Map<Integer, Integer> after = leaders(traffic.whileFlowing(() -> disturbances.rotateReplicas(topic)));
            traffic.finishPhase();

            after.forEach((partition, leader) -> assertThat(leader).as("leader of partition %d", partition).isNotEqualTo(before.get(partition)));
            hints.assertPathTaken(traffic);
        }
    }

    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    @Order(2)
    void preferredLeadersAreElectedAfterLeadershipDrifted(Hints hints) throws Exception {
        String topic = topic("preferred", hints);
        createTopic(topic);
        int drifter = original.get(0);
        cluster.stopBroker(drifter);
        cluster.startBroker(drifter);
        TopicDescription drifted = disturbances.awaitFullIsr(topic);
        assertThat(drifted.partitions()).as("partitions the restarted broker prefers but does not lead")
                .anyMatch(p -> p.replicas().get(0).id() == drifter && p.leader().id() != drifter);

        try (LeaderMoveTraffic traffic = new LeaderMoveTraffic(cluster.clientConfig(), topic, PARTITIONS, hints.overrides())) {
            traffic.startPhase(PARTITIONS);
            TopicDescription elected = traffic.whileFlowing(() -> disturbances.electPreferredLeaders(topic));
            traffic.finishPhase();

            elected.partitions().forEach(p -> assertThat(p.leader().id()).as("leader of partition %d", p.partition())
                    .isEqualTo(p.replicas().get(0).id()));
            hints.assertPathTaken(traffic);
        }
    }

    /**
     * Each broker stops (controlled shutdown) and starts again in turn. Afterwards every partition
     * gets records, which both clients must deliver from wherever the roll left the leaders, idle
     * partitions included.
     */
    @ParameterizedTest(name = "hints {0}, traffic on {1}")
    @MethodSource("io.fastleader.it.leadermove.Load#withHints")
    @Order(3)
    void everyBrokerRestartsGracefullyInTurn(Hints hints, Load load) throws Exception {
        String topic = topic("roll-" + load.name().toLowerCase(Locale.ROOT), hints);
        createTopic(topic);
        try (LeaderMoveTraffic traffic = new LeaderMoveTraffic(cluster.clientConfig(), topic, PARTITIONS, hints.overrides())) {
            traffic.startPhase(load.busyPartitions(PARTITIONS));
            traffic.whileFlowing(() -> disturbances.rollingRestart(StopStyle.GRACEFUL, Set.of(topic)));
            traffic.finishPhase();
            traffic.assertEveryPartitionDelivers();

            hints.assertPathTaken(traffic);
        }
    }

    /**
     * The recreated topic's leader epochs start again below the ones the clients knew: a client that
     * kept the old epochs would refuse the new topic's leaders and stall.
     */
    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    @Order(4)
    void aTopicDeletedAndRecreatedUnderTheSameNameLeavesNoStaleEpoch(Hints hints) throws Exception {
        String topic = topic("recreate", hints);
        createTopic(topic);
        try (LeaderMoveTraffic traffic = new LeaderMoveTraffic(cluster.clientConfig(), topic, PARTITIONS, hints.overrides())) {
            traffic.startPhase(PARTITIONS);
            traffic.whileFlowing(() -> disturbances.rotateReplicas(topic));
            int epochBefore = highestLeaderEpoch(traffic.finishPhase(), topic);

            disturbances.recreateTopic(topic);
            traffic.startPhase(PARTITIONS);
            traffic.awaitProgress();
            int epochAfter = highestLeaderEpoch(traffic.finishPhase(), topic);

            assertThat(epochBefore).as("leader epoch of the first topic's last records").isGreaterThan(0);
            assertThat(epochAfter).as("leader epoch of the recreated topic's records").isLessThan(epochBefore);
        }
    }

    /**
     * A broker joins and takes each partition's leader's place in its replica list: the old leader
     * no longer hosts the partition at all and can only answer from its metadata.
     */
    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    @Order(5)
    void leadershipMovesOntoAnAddedBrokerThatReplacesTheOldLeader(Hints hints) throws Exception {
        String topic = topic("onto-added", hints);
        Map<Integer, Integer> before = leaders(createTopic(topic));
        int added = cluster.brokerIds().stream().filter(id -> !original.contains(id)).findFirst().orElseGet(cluster::addBroker);
        try (LeaderMoveTraffic traffic = new LeaderMoveTraffic(cluster.clientConfig(), topic, PARTITIONS, hints.overrides())) {
            traffic.startPhase(PARTITIONS);
            TopicDescription moved = traffic.whileFlowing(() -> disturbances.moveLeadershipOnto(topic, added));
            traffic.finishPhase();

            for (TopicPartitionInfo partition : moved.partitions()) {
                assertThat(partition.leader().id()).as("leader of partition %d", partition.partition()).isEqualTo(added);
                assertThat(partition.replicas()).extracting(Node::id).as("replicas of partition %d", partition.partition())
                        .doesNotContain(before.get(partition.partition()));
            }
            hints.assertPathTaken(traffic);
        }
    }

    /** A topic of {@link #PARTITIONS} partitions, placed as {@link #createTopic(String, int)} places them. */
    private static TopicDescription createTopic(String topic) {
        return createTopic(topic, PARTITIONS);
    }

    /** A topic placed on the brokers the cluster started with, each partition's replicas rotated by its index. */
    private static TopicDescription createTopic(String topic, int partitions) {
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int partition = 0; partition < partitions; partition++) {
            List<Integer> replicas = new ArrayList<>();
            for (int i = 0; i < original.size(); i++) {
                replicas.add(original.get((partition + i) % original.size()));
            }
            assignment.put(partition, replicas);
        }
        return disturbances.createTopic(new NewTopic(topic, assignment).configs(MIN_ISR_2));
    }

    static String topic(String scenario, Hints hints) {
        return scenario + "-hints-" + hints.name().toLowerCase(Locale.ROOT);
    }

    static Map<Integer, Integer> leaders(TopicDescription description) {
        Map<Integer, Integer> leaders = new HashMap<>();
        description.partitions().forEach(p -> leaders.put(p.partition(), p.leader().id()));
        return leaders;
    }

    private static int highestLeaderEpoch(Consumption consumed, String topic) {
        int highest = -1;
        for (int partition = 0; partition < PARTITIONS; partition++) {
            for (ConsumerRecord<String, String> record : consumed.of(new TopicPartition(topic, partition))) {
                highest = Math.max(highest, record.leaderEpoch().orElseThrow());
            }
        }
        return highest;
    }
}
