package io.fastleader.it.cluster;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.invm.InVMKafkaCluster;
import kafka.server.BrokerServer;
import kafka.server.KafkaRaftServer;
import scala.Option;

/**
 * Works around a five-minute hang when an in-JVM cluster of combined broker+controller nodes is
 * closed: the library stops the nodes one after the other, so the last node's broker asks a quorum
 * that is already gone for controlled-shutdown approval and waits out its timeout. Shutting down
 * the broker half of every running node first, while all controllers are still up, lets each one
 * finish at once; the library's close then only has controllers left to stop.
 */
final class InJvmBrokerShutdown {

    private static final Duration BROKER_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

    private InJvmBrokerShutdown() {
    }

    static void shutDownBrokersBeforeControllers(KafkaCluster cluster) {
        Set<Integer> stopped = cluster.getStoppedBrokers();
        for (Map.Entry<Integer, Object> node : servers(cluster).entrySet()) {
            if (!stopped.contains(node.getKey()) && node.getValue() instanceof KafkaRaftServer raftServer) {
                brokerOf(raftServer).foreach(broker -> {
                    broker.shutdown(BROKER_SHUTDOWN_TIMEOUT);
                    return null;
                });
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<Integer, Object> servers(KafkaCluster cluster) {
        try {
            // A VarHandle resolves only this field: reflecting over every field of the class would
            // load the ZooKeeper types it also declares, which are not on a KRaft classpath.
            return (Map<Integer, Object>) MethodHandles.privateLookupIn(InVMKafkaCluster.class, MethodHandles.lookup())
                .findVarHandle(InVMKafkaCluster.class, "servers", ConcurrentMap.class)
                .get(cluster);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the testing library's in-JVM cluster changed shape", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Option<BrokerServer> brokerOf(KafkaRaftServer server) {
        try {
            Field broker = KafkaRaftServer.class.getDeclaredField("broker");
            broker.setAccessible(true);
            return (Option<BrokerServer>) broker.get(server);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Kafka's KafkaRaftServer changed shape", e);
        }
    }
}
