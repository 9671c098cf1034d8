package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.fastleader.protocol.ApiKey;
import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.ConnectionConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The scenarios on a 3-broker in-JVM cluster of the current release, plus adding a broker. */
class InJvmClusterTest extends ClusterScenarioTestBase {

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) {
        use(started);
    }

    @Test
    @Order(0)
    void brokersSpeakTheKip951Versions() {
        try (BrokerConnection connection = BrokerConnection.open(cluster.firstBootstrapAddress(), ConnectionConfig.defaults("fastleader-it"))) {
            assertThat(connection.versions().version(ApiKey.PRODUCE)).isGreaterThanOrEqualTo((short) 10);
            assertThat(connection.versions().version(ApiKey.FETCH)).isGreaterThanOrEqualTo((short) 16);
        }
    }

    @Test
    @Order(4)
    void inJvmBrokersCannotBeKilled() {
        assertThat(cluster.supportsKill()).isFalse();
        assertThatThrownBy(() -> cluster.killBroker(0))
            .isInstanceOf(UnsupportedOperationException.class)
            .hasMessageContaining("CHILD_JVM");
    }

    @Test
    @Order(5)
    void addedBrokerTakesOverLeadershipAndOldLeadersNoLongerHostThePartitions() {
        String topic = "onto-new-broker";
        Map<TopicPartition, Integer> oldLeaders = leaders(disturbances.createTopic(new NewTopic(topic, 6, (short) 3).configs(MIN_ISR_2)));

        int added = cluster.addBroker();
        TopicDescription moved = disturbances.moveLeadershipOnto(topic, added);

        assertThat(added).isEqualTo(3);
        assertThat(cluster.brokerIds()).containsExactly(0, 1, 2, 3);
        assertThat(leaders(moved).values()).containsOnly(added);
        for (TopicPartitionInfo p : moved.partitions()) {
            Integer oldLeader = oldLeaders.get(new TopicPartition(topic, p.partition()));
            assertThat(p.replicas()).extracting(Node::id).doesNotContain(oldLeader).hasSize(3);
        }
    }
}
