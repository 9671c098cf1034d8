package io.fastleader.it.parity;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.Consumer;

import io.fastleader.it.cluster.KafkaTestCluster;

/** Runs one consumer workload with each {@link Flavour}, one after the other, on one cluster. */
public final class SideBySide {

    private SideBySide() {
    }

    /** Runs {@code workload} with a consumer of each flavour, built from the cluster's client configuration with {@code config} on top. */
    public static <T> Map<Flavour, T> each(KafkaTestCluster cluster, Map<String, Object> config, Function<Consumer<String, String>, T> workload) {
        Map<Flavour, T> results = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            results.put(flavour, with(cluster, flavour, config, workload));
        }
        return results;
    }

    /** A consumer of each flavour, built as {@link #each} builds them, open together until closed. */
    public static Open open(KafkaTestCluster cluster, Map<String, Object> config) {
        return new Open(cluster, config);
    }

    /** A consumer of each flavour, open together: for workloads that read on across a change of the log. */
    public static final class Open implements AutoCloseable {
        private final Map<Flavour, Consumer<String, String>> consumers = new EnumMap<>(Flavour.class);

        private Open(KafkaTestCluster cluster, Map<String, Object> config) {
            Map<String, Object> full = new HashMap<>(cluster.clientConfig());
            full.putAll(config);
            for (Flavour flavour : Flavour.values()) {
                consumers.put(flavour, flavour.consumer(full));
            }
        }

        /** Runs {@code workload} with each flavour's consumer, one after the other. */
        public <T> Map<Flavour, T> each(Function<Consumer<String, String>, T> workload) {
            Map<Flavour, T> results = new EnumMap<>(Flavour.class);
            consumers.forEach((flavour, consumer) -> results.put(flavour, workload.apply(consumer)));
            return results;
        }

        @Override
        public void close() {
            consumers.values().forEach(Consumer::close);
        }
    }

    /** Runs {@code workload} with a consumer of {@code flavour}, closed afterwards. */
    public static <T> T with(KafkaTestCluster cluster, Flavour flavour, Map<String, Object> config,
                      Function<Consumer<String, String>, T> workload) {
        Map<String, Object> full = new HashMap<>(cluster.clientConfig());
        full.putAll(config);
        try (Consumer<String, String> consumer = flavour.consumer(full)) {
            return workload.apply(consumer);
        }
    }
}
