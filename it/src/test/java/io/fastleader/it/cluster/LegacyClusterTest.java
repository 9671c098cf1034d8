package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.protocol.ApiKey;
import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.ConnectionConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The scenarios on three Kafka 3.6.2 brokers (before KIP-951) in child JVMs, plus a roll by SIGKILL. */
class LegacyClusterTest extends ClusterScenarioTestBase {

    @BeforeAll
    static void startCluster(@Cluster(release = KafkaRelease.LEGACY) KafkaTestCluster started) {
        use(started);
    }

    @Test
    @Order(0)
    void runsThePreKip951Release() {
        assertThat(cluster.kafkaVersion()).isEqualTo("3.6.2");
        assertThat(cluster.execution()).isEqualTo(Execution.CHILD_JVM);
        assertThat(cluster.supportsKill()).isTrue();
        try (BrokerConnection connection = BrokerConnection.open(cluster.firstBootstrapAddress(), ConnectionConfig.defaults("fastleader-it"))) {
            assertThat(connection.versions().version(ApiKey.PRODUCE)).isEqualTo((short) 9);
            assertThat(connection.versions().version(ApiKey.FETCH)).isEqualTo((short) 15);
        }
    }

    @Test
    @Order(4)
    void everyBrokerIsKilledAndRestartedWhileProducing() throws Exception {
        rollWhileProducing(StopStyle.KILL);
    }
}
