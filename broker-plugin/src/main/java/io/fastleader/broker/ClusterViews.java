package io.fastleader.broker;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every connection through one filter definition shares: the settings, and one
 * {@link MetadataView} per virtual cluster (Kroxylicious initialises a filter definition once per
 * proxy, and one proxy can front several clusters).
 */
public final class ClusterViews {

    private final LeaderHintConfig config;
    private final Map<String, MetadataView> views = new ConcurrentHashMap<>();

    ClusterViews(LeaderHintConfig config) {
        this.config = config;
    }

    LeaderHintConfig config() {
        return config;
    }

    MetadataView view(String virtualCluster) {
        return views.computeIfAbsent(virtualCluster, name -> new MetadataView(config.metadataMaxAge(), System::nanoTime));
    }
}
