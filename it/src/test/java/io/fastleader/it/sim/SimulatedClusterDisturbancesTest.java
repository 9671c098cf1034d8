package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.SimulatedTestCluster;

/**
 * The project's leader-move fixtures, {@link Disturbances}, unchanged, against a 3-broker
 * simulated cluster started as the fixtures start any ({@link Execution#SIMULATED}): each disturbance returns the description it promises, and the simulation's
 * own state (leaders, epochs) agrees. The topic has 3 partitions, replicas {@code [0, 1]},
 * {@code [1, 2]} and {@code [2, 0]}, each led by its first replica at epoch 0.
 */
class SimulatedClusterDisturbancesTest {

    private static final String TOPIC = "disturbed";
    private static final int PARTITIONS = 3;

    private SimulatedTestCluster testCluster;
    private SimulatedCluster cluster;
    private Disturbances disturbances;

    @BeforeEach
    void start() {
        testCluster = (SimulatedTestCluster) ClusterSpec.builder().brokers(3).execution(Execution.SIMULATED).start();
        cluster = testCluster.simulation();
        disturbances = new Disturbances(testCluster);
        disturbances.createTopic(new NewTopic(TOPIC, PARTITIONS, (short) 2).configs(Map.of("min.insync.replicas", "2")));
    }

    @AfterEach
    void stop() {
        disturbances.close();
        testCluster.close();
    }

    @Test
    void rotateReplicasLeavesEachPartitionLedByItsNewFirstReplica() {
        TopicDescription rotated = disturbances.rotateReplicas(TOPIC);

        assertThat(replicas(rotated)).containsExactly(List.of(1, 0), List.of(2, 1), List.of(0, 2));
        assertThat(leaders(rotated)).containsExactly(1, 2, 0);
        assertThat(epochs()).containsOnly(1);
    }

    @Test
    void electPreferredLeadersHandsLeadershipBackToEachFirstReplica() {
        cluster.moveLeaders(cluster.nextReplicas(TOPIC));
        assertThat(leaders(disturbances.describe(TOPIC))).containsExactly(1, 2, 0);

        TopicDescription elected = disturbances.electPreferredLeaders(TOPIC);

        assertThat(leaders(elected)).containsExactly(0, 1, 2);
        assertThat(epochs()).containsOnly(2);
    }

    @Test
    void recreateTopicGivesANewIdEpochZeroAndTheSameSettings() throws Exception {
        TopicDescription before = disturbances.describe(TOPIC);
        cluster.moveLeaders(cluster.nextReplicas(TOPIC));

        TopicDescription recreated = disturbances.recreateTopic(TOPIC);

        assertThat(recreated.topicId()).isNotEqualTo(before.topicId());
        assertThat(recreated.partitions()).hasSize(PARTITIONS);
        assertThat(recreated.partitions()).allSatisfy(p -> assertThat(p.replicas()).hasSize(2));
        assertThat(epochs()).containsOnly(0);
        try (Admin admin = SimulatedClusterAdminTest.admin(cluster)) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            ConfigEntry minIsr = admin.describeConfigs(List.of(resource)).all().get().get(resource).get("min.insync.replicas");
            assertThat(minIsr.value()).isEqualTo("2");
            assertThat(minIsr.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
    }

    @Test
    void moveLeadershipOntoAnAddedBrokerMakesItLeadEveryPartitionInTheOldLeadersPlace() {
        int added = cluster.addBroker();

        TopicDescription moved = disturbances.moveLeadershipOnto(TOPIC, added);

        assertThat(added).isEqualTo(3);
        assertThat(replicas(moved)).containsExactly(List.of(3, 1), List.of(3, 2), List.of(3, 0));
        assertThat(leaders(moved)).containsOnly(3);
        assertThat(epochs()).containsOnly(1);
    }

    private static List<List<Integer>> replicas(TopicDescription description) {
        return description.partitions().stream().map(SimulatedClusterAdminTest::replicaIds).toList();
    }

    private static List<Integer> leaders(TopicDescription description) {
        return description.partitions().stream().map(p -> p.leader().id()).toList();
    }

    private List<Integer> epochs() {
        return IntStream.range(0, PARTITIONS).mapToObj(p -> cluster.leaderEpoch(new TopicPartition(TOPIC, p))).toList();
    }
}
