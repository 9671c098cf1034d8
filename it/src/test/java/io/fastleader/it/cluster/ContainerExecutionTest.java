package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Testcontainers execution. Without a Docker engine (as on the project's own machines) the
 * extension aborts this test with the reason, and every other test keeps its in-JVM brokers.
 */
@ExtendWith(KafkaClusterExtension.class)
class ContainerExecutionTest {

    @Test
    void containerClusterServesClientsAndCanKillABroker(@Cluster(execution = Execution.CONTAINER) KafkaTestCluster cluster) throws Exception {
        assertThat(cluster.supportsKill()).isTrue();

        cluster.killBroker(2);
        cluster.startBroker(2);

        try (Admin admin = Admin.create(cluster.clientConfig())) {
            List<Integer> ids = admin.describeCluster().nodes().get().stream().map(Node::id).sorted().toList();
            assertThat(ids).containsExactly(0, 1, 2);
        }
    }
}
