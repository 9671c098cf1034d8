package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;

/** Waits until the controller reports exactly the expected brokers registered and unfenced. */
final class BrokerRegistrations {

    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private BrokerRegistrations() {
    }

    /** Returns once every broker in {@code running} is in the cluster's metadata and unfenced. */
    static void awaitUnfenced(Map<String, Object> clientConfig, Set<Integer> running) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        try (Admin admin = Admin.create(config)) {
            Await.until("brokers " + running + " registered and unfenced", TIMEOUT, () -> {
                Set<Integer> unfenced = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                    .filter(node -> !node.isFenced())
                    .map(Node::id)
                    .collect(Collectors.toSet());
                return unfenced.containsAll(running);
            });
        }
    }
}
