package io.fastleader.it.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaRelease;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * KIP-1242 on Kafka 4.4 brokers: a producer whose partition leader stopped, and whose address a
 * broker of another cluster then took (a reused pod IP, a host given to another team's cluster), is
 * refused there with REBOOTSTRAP_REQUIRED, goes back to its bootstrap server and writes to its own
 * cluster's new leader, never to the other cluster. Its cluster is a combined node 0, which the
 * producer bootstraps at, and a broker-only node 1 that leads the partition until it stops; the
 * other cluster is one node listening at node 1's port, holding a topic of the same name.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MisroutedConnectionOnRealBrokersTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aProducerWhoseLeadersAddressServesAnotherClusterGoesBackToItsBootstrapServerAndWritesToItsOwnCluster() throws Exception {
        try (KafkaTestCluster own = fourFour(1).start()) {
            int bootstrapNode = own.brokerIds().first();
            int leader = own.addBroker();
            new Disturbances(own).createTopic(new NewTopic(TOPIC, Map.of(0, List.of(leader, bootstrapNode))));
            Map<String, Object> config = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, address(own, bootstrapNode));
            try (Producer<String, String> producer = new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(TOPIC, "to the leader, node " + leader)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                int leadersPort = own.brokerAddress(leader).getPort();
                own.stopBroker(leader);

                try (KafkaTestCluster other = fourFour(1).clientPorts(List.of(leadersPort)).start()) {
                    new Disturbances(other).createTopic(new NewTopic(TOPIC, 1, (short) 1));

                    producer.send(new ProducerRecord<>(TOPIC, "after the leader stopped")).get(WAIT.toSeconds(), TimeUnit.SECONDS);

                    assertThat(endOffset(other)).as("records written to the other cluster").isZero();
                }
            }
            assertThat(endOffset(own)).as("records written to the producer's own cluster").isEqualTo(2);
        }
    }

    private static ClusterSpec.Builder fourFour(int brokers) {
        return ClusterSpec.builder().brokers(brokers).execution(Execution.CHILD_JVM).release(KafkaRelease.KAFKA_4_4)
            .brokerJvmOption(ClusterSpec.C1_ONLY);
    }

    private static String address(KafkaTestCluster cluster, int nodeId) {
        return cluster.brokerAddress(nodeId).getHostString() + ":" + cluster.brokerAddress(nodeId).getPort();
    }

    private static long endOffset(KafkaTestCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.listOffsets(Map.of(PARTITION, OffsetSpec.latest())).partitionResult(PARTITION)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS).offset();
        }
    }
}
