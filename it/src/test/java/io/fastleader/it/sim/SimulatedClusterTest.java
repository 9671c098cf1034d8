package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The simulated cluster's commands and its lifecycle, without clients. */
class SimulatedClusterTest {

    @Test
    void topicLeadersAreAssignedRoundRobinAndMovesBumpTheEpoch() {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            assertThat(cluster.brokerIds()).containsExactly(0, 1, 2);
            assertThat(cluster.bootstrapServers().split(",")).hasSize(3);
            cluster.createTopic("t", 4, 2);
            TopicPartition t0 = new TopicPartition("t", 0);
            assertThat(cluster.leader(t0)).isZero();
            assertThat(cluster.leader(new TopicPartition("t", 1))).isEqualTo(1);
            assertThat(cluster.leader(new TopicPartition("t", 3))).isZero();
            assertThat(cluster.leaderEpoch(t0)).isZero();

            assertThat(cluster.moveLeader(t0, 1)).isEqualTo(1);
            assertThat(cluster.leader(t0)).isEqualTo(1);
            assertThatThrownBy(() -> cluster.moveLeader(t0, 2)).isInstanceOf(IllegalArgumentException.class);
            assertThat(cluster.leaderEpoch(t0)).as("a refused move changes nothing").isEqualTo(1);
            Map<TopicPartition, Integer> epochs = cluster.moveLeaders(cluster.nextReplicas("t"));
            assertThat(epochs).containsEntry(t0, 2).hasSize(4);
            assertThat(cluster.leader(t0)).isZero();
            assertThat(cluster.records(t0)).isEmpty();
        }
    }

    @Test
    void closeLeavesNoThread() throws Exception {
        SimulatedCluster cluster = SimulatedCluster.start(3);
        for (String address : cluster.bootstrapServers().split(",")) {
            String[] hostPort = address.split(":");
            // an idle client connection, which close() must end too
            new java.net.Socket(hostPort[0], Integer.parseInt(hostPort[1])).close();
        }
        java.net.Socket idle = new java.net.Socket("127.0.0.1", Integer.parseInt(cluster.brokerAddress(0).split(":")[1]));
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
            .as("one network thread for every broker and connection; the timer starts when first used")
            .filteredOn(name -> name.startsWith(cluster.name() + "-")).containsExactly(cluster.name() + "-network");
        cluster.close();
        idle.close();
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
            .noneMatch(name -> name.startsWith(cluster.name() + "-"));
    }
}
