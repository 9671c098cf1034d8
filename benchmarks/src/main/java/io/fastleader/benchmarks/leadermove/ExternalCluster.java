package io.fastleader.benchmarks.leadermove;

import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;

import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * A cluster the benchmark did not start ({@code --bootstrap}): its leaders can be moved through
 * Admin, but its brokers cannot be stopped, started or added from here.
 */
final class ExternalCluster implements KafkaTestCluster {

    private final String bootstrap;

    ExternalCluster(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    @Override
    public String kafkaVersion() {
        return "unknown (external)";
    }

    @Override
    public Execution execution() {
        throw new UnsupportedOperationException("the cluster at " + bootstrap + " runs outside this tool");
    }

    @Override
    public String bootstrapServers() {
        return bootstrap;
    }

    @Override
    public Map<String, Object> clientConfig() {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    }

    @Override
    public SortedSet<Integer> brokerIds() {
        try (Admin admin = Admin.create(clientConfig())) {
            SortedSet<Integer> ids = new TreeSet<>();
            for (Node node : admin.describeCluster().nodes().get()) {
                ids.add(node.id());
            }
            return ids;
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the brokers at " + bootstrap + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        return Set.of();
    }

    @Override
    public void stopBroker(int nodeId) {
        throw unsupported("stop");
    }

    @Override
    public void killBroker(int nodeId) {
        throw unsupported("kill");
    }

    @Override
    public boolean supportsKill() {
        return false;
    }

    @Override
    public void startBroker(int nodeId) {
        throw unsupported("start");
    }

    @Override
    public int addBroker() {
        throw unsupported("add");
    }

    @Override
    public void close() {
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("cannot " + what + " a broker of the cluster at " + bootstrap + " from here");
    }
}
