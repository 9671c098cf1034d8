package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.ApiKey;

/**
 * kafka-clients 4.3.1's {@code Admin}, unmodified, against a 3-broker simulated cluster: each test
 * one call and what the cluster (read through Admin and through the simulation's own accessors)
 * shows after it.
 */
class SimulatedClusterAdminTest {

    private static final String TOPIC = "admin";

    private SimulatedCluster cluster;
    private Admin admin;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start(3);
        admin = admin(cluster);
    }

    @AfterEach
    void stop() {
        admin.close();
        cluster.close();
    }

    /** An Admin client of {@code cluster}, with timeouts that only bound a hang. */
    static Admin admin(SimulatedCluster cluster) {
        return Admin.create(Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000));
    }

    @Test
    void createsATopicPlacedRoundRobinFromAPartitionCountAndReplicationFactor() throws Exception {
        CreateTopicsResult created = admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 2)));
        Uuid id = created.topicId(TOPIC).get();

        TopicDescription description = describe(TOPIC);
        assertThat(description.topicId()).isEqualTo(id).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(description.partitions()).extracting(SimulatedClusterAdminTest::replicaIds)
            .containsExactly(List.of(0, 1), List.of(1, 2), List.of(2, 0));
        assertThat(description.partitions()).allSatisfy(p -> {
            assertThat(p.leader().id()).isEqualTo(p.replicas().get(0).id());
            assertThat(p.isr()).isEqualTo(p.replicas());
        });
        assertThat(created.numPartitions(TOPIC).get()).isEqualTo(3);
        assertThat(created.replicationFactor(TOPIC).get()).isEqualTo(2);
        assertThat(cluster.leaderEpoch(new TopicPartition(TOPIC, 0))).isZero();
    }

    @Test
    void createsATopicOnTheReplicasAssigned() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(2, 0), 1, List.of(1, 2))))).all().get();

        TopicDescription description = describe(TOPIC);
        assertThat(description.partitions()).extracting(SimulatedClusterAdminTest::replicaIds)
            .containsExactly(List.of(2, 0), List.of(1, 2));
        assertThat(description.partitions()).extracting(p -> p.leader().id()).containsExactly(2, 1);
    }

    @Test
    void refusesATopicThatExists() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();

        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get())
            .hasCauseInstanceOf(TopicExistsException.class);
    }

    @Test
    void refusesMoreReplicasThanBrokers() {
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 4))).all().get())
            .hasCauseInstanceOf(InvalidReplicationFactorException.class);
    }

    @Test
    void refusesZeroPartitions() {
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(TOPIC, 0, (short) 1))).all().get())
            .hasCauseInstanceOf(InvalidPartitionsException.class);
    }

    @Test
    void refusesAnAssignmentOntoABrokerThatDoesNotExist() {
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 7))))).all().get())
            .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
    }

    @Test
    void refusesATopicSettingKafkaDoesNotKnow() {
        NewTopic topic = new NewTopic(TOPIC, 1, (short) 1).configs(Map.of("no.such.setting", "1"));

        assertThatThrownBy(() -> admin.createTopics(List.of(topic)).all().get())
            .hasCauseInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void validateOnlyCreatesNothing() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 3)), new CreateTopicsOptions().validateOnly(true)).all().get();

        assertThat(admin.listTopics().names().get()).doesNotContain(TOPIC);
    }

    @Test
    void listTopicsNamesEveryTopic() throws Exception {
        admin.createTopics(List.of(new NewTopic("a", 1, (short) 1), new NewTopic("b", 2, (short) 3))).all().get();

        assertThat(admin.listTopics().names().get()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void describeConfigsGivesATopicsOwnSettingsAndDefaults() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3)
            .configs(Map.of("min.insync.replicas", "2", "retention.ms", "60000")))).all().get();
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);

        Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);

        assertThat(config.get("min.insync.replicas").value()).isEqualTo("2");
        assertThat(config.get("min.insync.replicas").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(config.get("retention.ms").value()).isEqualTo("60000");
        assertThat(config.get("cleanup.policy").value()).isEqualTo("delete");
        assertThat(config.get("cleanup.policy").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void createTopicsAnswersWithTheTopicsSettings() throws Exception {
        CreateTopicsResult created = admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)
            .configs(Map.of("min.insync.replicas", "1"))));

        Config config = created.config(TOPIC).get();

        assertThat(config.get("min.insync.replicas").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(config.get("segment.bytes").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void describeConfigsOfABrokerIsEmpty() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");

        assertThat(admin.describeConfigs(List.of(broker)).all().get().get(broker).entries()).isEmpty();
    }

    @Test
    void describeConfigsOfAnUnknownTopicFails() {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "missing");

        assertThatThrownBy(() -> admin.describeConfigs(List.of(resource)).all().get())
            .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void aTopicDeletedAndCreatedAgainGetsANewIdAndStartsAtEpochZero() throws Exception {
        Uuid first = admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 3))).topicId(TOPIC).get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        cluster.moveLeader(tp, cluster.nextReplicas(TOPIC).get(tp));
        assertThat(cluster.leaderEpoch(tp)).isEqualTo(1);

        admin.deleteTopics(List.of(TOPIC)).all().get();
        assertThat(admin.listTopics().names().get()).doesNotContain(TOPIC);
        Uuid second = admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 3))).topicId(TOPIC).get();

        assertThat(second).isNotEqualTo(first);
        assertThat(describe(TOPIC).topicId()).isEqualTo(second);
        assertThat(cluster.leaderEpoch(tp)).isZero();
    }

    @Test
    void aDeletedTopicsIdIsUnknownOnceItsNameIsTakenAgain() throws Exception {
        Uuid first = admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).topicId(TOPIC).get();
        admin.deleteTopics(List.of(TOPIC)).all().get();
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();

        assertThatThrownBy(() -> admin.describeTopics(TopicCollection.ofTopicIds(List.of(first))).allTopicIds().get())
            .hasCauseInstanceOf(UnknownTopicIdException.class);
    }

    @Test
    void deletesATopicById() throws Exception {
        Uuid id = admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).topicId(TOPIC).get();

        admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id))).all().get();

        assertThat(admin.listTopics().names().get()).doesNotContain(TOPIC);
    }

    @Test
    void deletingATopicThatDoesNotExistFails() {
        assertThatThrownBy(() -> admin.deleteTopics(List.of("missing")).all().get())
            .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void aReassignmentLeavingTheLeaderOutHandsLeadershipToTheTargetsFirstReplica() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(2, 1))))).all().get();

        TopicPartitionInfo partition = describe(TOPIC).partitions().get(0);
        assertThat(replicaIds(partition)).containsExactly(2, 1);
        assertThat(partition.leader().id()).isEqualTo(2);
        assertThat(partition.isr()).isEqualTo(partition.replicas());
        assertThat(cluster.leaderEpoch(tp)).isEqualTo(1);
        assertThat(admin.listPartitionReassignments(Set.of(tp)).reassignments().get()).isEmpty();
    }

    @Test
    void aReassignmentRemovingAFollowerKeepsTheLeaderAndBumpsItsEpoch() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1, 2))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(0, 1))))).all().get();

        TopicPartitionInfo partition = describe(TOPIC).partitions().get(0);
        assertThat(replicaIds(partition)).containsExactly(0, 1);
        assertThat(partition.leader().id()).isZero();
        assertThat(cluster.leaderEpoch(tp)).isEqualTo(1);
    }

    @Test
    void aReassignmentAddingAndReorderingReplicasKeepsTheLeaderAndItsEpoch() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(1, 0, 2))))).all().get();

        TopicPartitionInfo partition = describe(TOPIC).partitions().get(0);
        assertThat(replicaIds(partition)).containsExactly(1, 0, 2);
        assertThat(partition.leader().id()).isZero();
        assertThat(cluster.leaderEpoch(tp)).isZero();
    }

    @Test
    void aMoveOntoABrokerThatAReassignmentRemovedIsRefused() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(2, 1))))).all().get();

        assertThatThrownBy(() -> cluster.moveLeader(tp, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(cluster.leader(tp)).isEqualTo(2);
        assertThat(cluster.leaderEpoch(tp)).isEqualTo(1);
    }

    @Test
    void aReassignmentOntoABrokerThatDoesNotExistIsRefused() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        assertThatThrownBy(() -> admin.alterPartitionReassignments(
                Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(7, 1))))).all().get())
            .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
        assertThat(replicaIds(describe(TOPIC).partitions().get(0))).containsExactly(0, 1);
    }

    @Test
    void cancellingAReassignmentFindsNoneInProgress() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 2))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        assertThatThrownBy(() -> admin.alterPartitionReassignments(Map.of(tp, Optional.empty())).all().get())
            .hasCauseInstanceOf(NoReassignmentInProgressException.class);
        assertThat(cluster.leaderEpoch(tp)).isZero();
    }

    @Test
    void aPreferredElectionHandsLeadershipBackToTheFirstReplica() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1, 2))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        cluster.moveLeader(tp, 1);

        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions().get();

        assertThat(results).containsEntry(tp, Optional.empty());
        assertThat(describe(TOPIC).partitions().get(0).leader().id()).isZero();
        assertThat(cluster.leaderEpoch(tp)).isEqualTo(2);
    }

    @Test
    void aPreferredElectionWhereTheFirstReplicaLeadsIsNotNeeded() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1, 2))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions().get();

        assertThat(results.get(tp)).containsInstanceOf(ElectionNotNeededException.class);
        assertThat(cluster.leaderEpoch(tp)).isZero();
    }

    @Test
    void anUncleanElectionIsNotNeededSinceEveryReplicaIsInSync() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1, 2))))).all().get();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        cluster.moveLeader(tp, 1);

        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp)).partitions().get();

        assertThat(results.get(tp)).containsInstanceOf(ElectionNotNeededException.class);
        assertThat(cluster.leader(tp)).isEqualTo(1);
        assertThat(cluster.leaderEpoch(tp)).isEqualTo(1);
    }

    @Test
    void anAddedBrokerIsListedAndLeadsNothingUntilAReassignmentPutsItThere() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 3))).all().get();

        int added = cluster.addBroker();

        assertThat(added).isEqualTo(3);
        assertThat(admin.describeCluster().nodes().get()).extracting(Node::id).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(describe(TOPIC).partitions()).allSatisfy(p -> assertThat(replicaIds(p)).doesNotContain(added));
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(added))))).all().get();
        assertThat(describe(TOPIC).partitions().get(0).leader().id()).isEqualTo(added);
    }

    @Test
    void describeTopicsIsAnsweredThroughMetadataSinceDescribeTopicPartitionsIsNotAdvertised() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        long metadataBefore = cluster.requestsServed(ApiKey.METADATA);

        describe(TOPIC);

        assertThat(cluster.requestsServed(ApiKey.METADATA)).isGreaterThan(metadataBefore);
    }

    private TopicDescription describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    }

    static List<Integer> replicaIds(TopicPartitionInfo partition) {
        return partition.replicas().stream().map(Node::id).toList();
    }
}
