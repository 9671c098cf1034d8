package io.fastleader.it.sim;

import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import org.apache.kafka.clients.CommonClientConfigs;

import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * A {@link SimulatedCluster} seen as a {@link KafkaTestCluster}, so that fixtures written for real
 * brokers ({@code Disturbances}) drive it through Admin. Its brokers never stop, so stopping,
 * killing and starting them, and naming a Kafka release or an execution, are unsupported.
 */
final class SimulatedClusterAsKafkaTestCluster implements KafkaTestCluster {

    private final SimulatedCluster cluster;

    SimulatedClusterAsKafkaTestCluster(SimulatedCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public String kafkaVersion() {
        throw new UnsupportedOperationException("a simulated cluster runs no Kafka release");
    }

    @Override
    public Execution execution() {
        throw new UnsupportedOperationException("a simulated cluster has no broker process");
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public Map<String, Object> clientConfig() {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    }

    @Override
    public SortedSet<Integer> brokerIds() {
        return new TreeSet<>(cluster.brokerIds());
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        return Set.of();
    }

    @Override
    public void stopBroker(int nodeId) {
        throw new UnsupportedOperationException("simulated brokers do not stop yet");
    }

    @Override
    public void killBroker(int nodeId) {
        throw new UnsupportedOperationException("simulated brokers do not stop yet");
    }

    @Override
    public boolean supportsKill() {
        return false;
    }

    @Override
    public void startBroker(int nodeId) {
        throw new UnsupportedOperationException("simulated brokers do not stop yet");
    }

    @Override
    public int addBroker() {
        return cluster.addBroker();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
