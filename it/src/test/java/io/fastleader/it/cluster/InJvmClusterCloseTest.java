package io.fastleader.it.cluster;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** Closing an in-JVM cluster leaves nothing running: no broker thread, no listening port. */
class InJvmClusterCloseTest {

    /**
     * Pools that belong to the JVM, not to a cluster: the common fork-join pool, and the tick
     * threads of Yammer's static default metrics registry, which Kafka's broker metrics use.
     * They start with the first cluster and serve every later one.
     */
    private static final List<String> JVM_WIDE_POOLS = List.of("ForkJoinPool.commonPool-worker-", "metrics-meter-tick-thread-");

    @Test
    void closeStopsEveryBrokerThreadAndFreesEveryPort() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        KafkaTestCluster cluster = ClusterSpec.builder().execution(Execution.IN_JVM).start();
        List<InetSocketAddress> listeners = cluster.bootstrapAddresses();

        cluster.close();

        Await.until("the cluster's threads to end", Duration.ofSeconds(30), () -> threadsStartedSince(before).isEmpty());
        FreedPorts.assertBindable(listeners);
    }

    private static Set<String> threadsStartedSince(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> !before.contains(thread) && thread.isAlive())
            .filter(thread -> JVM_WIDE_POOLS.stream().noneMatch(thread.getName()::startsWith))
            .map(Thread::getName)
            .collect(Collectors.toSet());
    }
}
