package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.PreferredLeaderNotAvailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;

/**
 * Leadership changes with brokers down: as a controller elects only live replicas, no
 * reassignment, election or new topic makes a stopped, killed or failed-over broker leader, and
 * Admin keeps working while broker 0 is down. A 4-broker cluster, kafka-clients 4.3.1's Admin and
 * a bare socket.
 */
class SimulatedClusterLivenessTest {

    private static final String TOPIC = "liveness";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private SimulatedCluster cluster;
    private Admin admin;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start(4);
        admin = SimulatedClusterAdminTest.admin(cluster);
    }

    @AfterEach
    void stop() {
        admin.close();
        cluster.close();
    }

    @Test
    void aReassignmentLeavingTheLeaderOutSkipsATargetReplicaThatIsStopped() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        cluster.stopBroker(2);

        admin.alterPartitionReassignments(Map.of(P0, Optional.of(new NewPartitionReassignment(List.of(2, 3))))).all().get();

        assertThat(cluster.leader(P0)).isEqualTo(3);
        assertThat(cluster.leaderEpoch(P0)).isEqualTo(1);
    }

    @Test
    void aReassignmentLeavingTheLeaderOutSkipsATargetReplicaThatIsKilled() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        cluster.killBroker(2);

        admin.alterPartitionReassignments(Map.of(P0, Optional.of(new NewPartitionReassignment(List.of(2, 3))))).all().get();

        assertThat(cluster.leader(P0)).isEqualTo(3);
    }

    @Test
    void aReassignmentOntoBrokersNoneOfWhichRunsLeavesThePartitionWithoutALeader() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1))))).all().get();
        cluster.stopBroker(2);
        cluster.killBroker(3);
        cluster.failOver(3);

        admin.alterPartitionReassignments(Map.of(P0, Optional.of(new NewPartitionReassignment(List.of(2, 3))))).all().get();

        assertThat(cluster.leader(P0)).isEqualTo(-1);
    }

    @Test
    void metadataAnswersLeaderNotAvailableForAPartitionWithoutALeader() throws IOException {
        cluster.createTopic(TOPIC, 2, 1);
        int leaderOfP0 = cluster.leader(P0);
        cluster.stopBroker(leaderOfP0);

        int asked = leaderOfP0 == 0 ? 1 : 0;
        try (WireConnection wire = new WireConnection(cluster, asked, "liveness")) {
            List<MetadataResponsePartition> partitions = wire.metadata(TOPIC).topics().find(TOPIC).partitions();
            assertThat(partitions.get(0).errorCode()).isEqualTo(ErrorCode.LEADER_NOT_AVAILABLE.code());
            assertThat(partitions.get(0).leaderId()).isEqualTo(-1);
            assertThat(partitions.get(1).errorCode()).isZero();
        }
    }

    @Test
    void aPreferredElectionOfAStoppedPreferredReplicaIsAnsweredPreferredLeaderNotAvailable() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2))))).all().get();
        cluster.stopBroker(1);

        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(ElectionType.PREFERRED, Set.of(P0)).partitions().get();

        assertThat(results.get(P0)).containsInstanceOf(PreferredLeaderNotAvailableException.class);
        assertThat(cluster.leader(P0)).isEqualTo(2);
        assertThat(cluster.leaderEpoch(P0)).isEqualTo(1);
    }

    @Test
    void metadataNamesTheLowestRunningBrokerController() throws IOException {
        cluster.stopBroker(0);
        cluster.killBroker(1);

        try (WireConnection wire = new WireConnection(cluster, 3, "liveness")) {
            MetadataResponseData answer = wire.metadata();
            assertThat(answer.controllerId()).isEqualTo(2);
        }
    }

    @Test
    void adminCreatesReassignsElectsAndDeletesWhileBrokerZeroIsStopped() throws Exception {
        cluster.stopBroker(0);

        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(2, 1))))).all().get();
        cluster.moveLeader(P0, 1);
        admin.electLeaders(ElectionType.PREFERRED, Set.of(P0)).all().get();
        assertThat(cluster.leader(P0)).isEqualTo(2);
        admin.alterPartitionReassignments(Map.of(P0, Optional.of(new NewPartitionReassignment(List.of(3, 1))))).all().get();
        assertThat(cluster.leader(P0)).isEqualTo(3);
        admin.deleteTopics(TopicCollection.ofTopicNames(List.of(TOPIC))).all().get();

        assertThat(admin.listTopics().names().get()).isEmpty();
    }

    @Test
    void adminPlacesANewTopicsReplicasOnlyOnRunningBrokers() throws Exception {
        cluster.stopBroker(1);

        admin.createTopics(List.of(new NewTopic(TOPIC, 6, (short) 2))).all().get();

        assertThat(admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).partitions())
            .allSatisfy(p -> assertThat(SimulatedClusterAdminTest.replicaIds(p)).doesNotContain(1));
    }

    @Test
    void createTopicPlacesReplicasOnlyOnRunningBrokers() throws Exception {
        cluster.killBroker(2);

        cluster.createTopic(TOPIC, 6, 3);

        assertThat(admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).partitions())
            .allSatisfy(p -> assertThat(SimulatedClusterAdminTest.replicaIds(p)).doesNotContain(2));
        assertThatThrownBy(() -> cluster.createTopic("too-wide", 1, 4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTopicAssignedOnlyToBrokersThatDoNotRunIsRefused() throws Exception {
        cluster.stopBroker(1);
        cluster.stopBroker(2);

        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2))))).all().get())
            .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
    }

    @Test
    void aTopicAssignedToAStoppedBrokerFirstIsLedByTheNextRunningReplica() throws Exception {
        cluster.stopBroker(1);

        admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2))))).all().get();

        assertThat(cluster.leader(P0)).isEqualTo(2);
    }

    @Test
    void anEpochStartedByAStoppedLeadersSuccessorEndsWhereItsFirstRecordIs() throws IOException {
        cluster.createTopic(TOPIC, 1, 2);
        try (WireConnection first = new WireConnection(cluster, 0, "liveness")) {
            first.produce(TOPIC, 0, "a", "b");
        }
        cluster.stopBroker(0);
        try (WireConnection next = new WireConnection(cluster, 1, "liveness")) {
            next.produce(TOPIC, 0, "c");
            OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
            topics.add(new OffsetForLeaderTopic().setTopic(TOPIC).setPartitions(List.of(new OffsetForLeaderPartition()
                .setPartition(0).setCurrentLeaderEpoch(1).setLeaderEpoch(0))));
            OffsetForLeaderEpochResponseData answer = (OffsetForLeaderEpochResponseData) next.call(ApiKey.OFFSET_FOR_LEADER_EPOCH,
                (short) 4, new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(topics));

            EpochEndOffset end = answer.topics().find(TOPIC).partitions().get(0);
            assertThat(end.leaderEpoch()).isZero();
            assertThat(end.endOffset()).as("epoch 1 started at the log end when broker 1 took over").isEqualTo(2);
        }
    }
}
