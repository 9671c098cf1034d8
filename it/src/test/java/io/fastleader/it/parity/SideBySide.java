package io.fastleader.it.parity;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.Consumer;

import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Runs one consumer workload with each {@link Flavour}, one after the other, on one cluster; or each
 * flavour's own task at the same time ({@link #atOnce}).
 */
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

    /**
     * Runs each flavour's task at once, each on a thread of its own named after {@code role} and the
     * flavour, and gives back what each returned once every one has ended: for workloads that wait out
     * the same timer and share nothing across flavours. A task that failed is rethrown, named with its
     * flavour and role, any other's failure suppressed in it. No task's thread outlives the call, a
     * test's timeout included: it interrupts them and waits for them to end.
     */
    public static <T> Map<Flavour, T> atOnce(String role, Map<Flavour, Callable<T>> tasks) {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            Map<Flavour, Future<T>> running = new EnumMap<>(Flavour.class);
            tasks.forEach((flavour, task) -> running.put(flavour, threads.submit(() -> {
                Thread.currentThread().setName(role + "-" + flavour.name().toLowerCase(Locale.ROOT));
                return task.call();
            })));
            Map<Flavour, T> results = new EnumMap<>(Flavour.class);
            IllegalStateException failed = null;
            for (Map.Entry<Flavour, Future<T>> task : running.entrySet()) {
                try {
                    results.put(task.getKey(), task.getValue().get());
                } catch (ExecutionException e) {
                    IllegalStateException named = new IllegalStateException(
                            "the " + task.getKey() + " " + role + "'s workload failed: " + e.getCause(), e.getCause());
                    if (failed == null) {
                        failed = named;
                    } else {
                        failed.addSuppressed(named);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the " + role + "s' workloads ran", e);
                }
            }
            if (failed != null) {
                throw failed;
            }
            return results;
        } finally {
            threads.shutdownNow();
            try {
                threads.awaitTermination(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
