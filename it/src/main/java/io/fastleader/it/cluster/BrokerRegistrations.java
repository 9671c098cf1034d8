package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;

/** Waits until the cluster reports brokers registered and unfenced, or fenced. */
final class BrokerRegistrations {

    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private BrokerRegistrations() {
    }

    /** Returns once every broker in {@code running} is in the cluster's metadata and unfenced. */
    static void awaitUnfenced(Map<String, Object> clientConfig, Set<Integer> running) {
        await(clientConfig, "brokers " + running + " registered and unfenced", unfenced -> unfenced.containsAll(running));
    }

    /**
     * Returns once the cluster no longer lists {@code nodeId} as an unfenced broker: a killed
     * broker stays listed until its session times out.
     */
    static void awaitFenced(Map<String, Object> clientConfig, int nodeId) {
        await(clientConfig, "broker " + nodeId + " fenced", unfenced -> !unfenced.contains(nodeId));
    }

    private static void await(Map<String, Object> clientConfig, String what, Predicate<Set<Integer>> unfencedIdsMatch) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        try (Admin admin = Admin.create(config)) {
            Await.until(what, TIMEOUT, () -> {
                // Without includeFencedBrokers (4.0+) the cluster lists only unfenced brokers: this runs beside any kafka-clients.
                List<Node> unfenced = List.copyOf(admin.describeCluster().nodes().get(5, TimeUnit.SECONDS));
                return unfencedIdsMatch.test(unfenced.stream().map(Node::id).collect(Collectors.toSet()));
            });
        }
    }
}
