package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A child-JVM node with {@link NetworkModel#metadataLag()} answers Metadata from a view that
 * trails the controller: right after a leader election it still names the old leader, at the old
 * epoch, while the other nodes name the new one; later it catches up. Asserts epochs, not times.
 * Clients and brokers are a few milliseconds apart too, so the child-JVM relays carry everything.
 */
class MetadataLagTest {

    private static final Duration LAG = Duration.ofSeconds(2);
    private static final int LAGGING = 2;
    private static final String TOPIC = "lagging-view";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aLaggingNodeStillNamesTheOldLeaderRightAfterAnElectionThatTheOthersAlreadyReport() throws Exception {
        try (KafkaTestCluster cluster = ClusterSpec.builder()
                .brokers(3)
                .execution(Execution.CHILD_JVM)
                .brokerJvmOption(ClusterSpec.C1_ONLY)
                .network(NetworkModel.loopback()
                    .withClientRtt(Duration.ofMillis(20))
                    .withBrokerRtt(Duration.ofMillis(10))
                    .withMetadataLag(LAGGING, LAG))
                .start();
             Admin admin = Admin.create(cluster.clientConfig())) {
            assertThat(NetworkModelTest.relayAcceptorPorts()).contains(cluster.brokerAddress(0).getPort(), cluster.brokerAddress(LAGGING).getPort());
            // The lag holds while the node follows the KRaft quorum; as its leader, its view is the controller's own.
            if (admin.describeMetadataQuorum().quorumInfo().get().leaderId() == LAGGING) {
                cluster.stopBroker(LAGGING);
                cluster.startBroker(LAGGING);
            }
            admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(0, 1, LAGGING))))).all().get();
            // Node 1 becomes the preferred leader, so that an election moves the leader from 0 to 1.
            admin.alterPartitionReassignments(Map.of(PARTITION, Optional.of(new NewPartitionReassignment(List.of(1, 0, LAGGING))))).all().get();
            MetadataResponsePartition before = awaitPartition(cluster, LAGGING, "replicas [1, 0, 2] led by 0",
                partition -> partition.replicaNodes().equals(List.of(1, 0, LAGGING)) && partition.leaderId() == 0);

            admin.electLeaders(ElectionType.PREFERRED, Set.of(PARTITION)).all().get();

            // The election is committed once electLeaders returns; the lagging node hears of it LAG later.
            MetadataResponsePartition laggingView = partitionAt(cluster, LAGGING);
            MetadataResponsePartition currentView = awaitPartition(cluster, 0, "leader 1",
                partition -> partition.leaderId() == 1);
            assertThat(laggingView.leaderId()).isEqualTo(0);
            assertThat(laggingView.leaderEpoch()).isEqualTo(before.leaderEpoch());
            assertThat(currentView.leaderEpoch()).isGreaterThan(before.leaderEpoch());

            MetadataResponsePartition caughtUp = awaitPartition(cluster, LAGGING, "leader 1",
                partition -> partition.leaderId() == 1);
            assertThat(caughtUp.leaderEpoch()).isEqualTo(currentView.leaderEpoch());
        }
    }

    /** Asks {@code nodeId} for Metadata until its answer for the partition satisfies {@code condition}. */
    private static MetadataResponsePartition awaitPartition(KafkaTestCluster cluster, int nodeId, String what,
                                                            Predicate<MetadataResponsePartition> condition) {
        AtomicReference<MetadataResponsePartition> seen = new AtomicReference<>();
        Await.until("node " + nodeId + " to report " + PARTITION + " with " + what, TIMEOUT, () -> {
            seen.set(partitionAt(cluster, nodeId));
            return condition.test(seen.get());
        });
        return seen.get();
    }

    /** The partition as {@code nodeId} answers a Metadata request sent straight to it. */
    private static MetadataResponsePartition partitionAt(KafkaTestCluster cluster, int nodeId) {
        MetadataResponseTopic topic = BrokerViews.topicAt(cluster, nodeId, TOPIC);
        if (topic == null || topic.partitions().isEmpty()) {
            throw new IllegalStateException("node " + nodeId + " does not know " + TOPIC + " yet");
        }
        return topic.partitions().get(0);
    }
}
