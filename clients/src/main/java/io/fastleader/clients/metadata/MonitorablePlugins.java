package io.fastleader.clients.metadata;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.metrics.Metrics;

/**
 * Plugin metrics (KIP-877, kafka-clients 4.1): a client's plugin that implements kafka-clients'
 * {@code Monitorable} is given a {@code PluginMetrics} of its own once configured, as kafka-clients'
 * clients give it: kafka-clients' own implementation, over the client's metrics, tagging what the
 * plugin adds with the key it was configured by ({@code config}) and its class's simple name
 * ({@code class}). Beside a release before 4.1 there is no {@code Monitorable}, and nothing to give.
 *
 * <p>The classes are reached by reflection, as they are not in every release fastleader runs beside;
 * {@code PluginMetricsImpl} is internal to kafka-clients, and made here as its {@code Plugin.wrapInstance}
 * makes it, so that what a plugin adds is named as there.
 */
final class MonitorablePlugins {

    private static final String MONITORABLE = "org.apache.kafka.common.metrics.Monitorable";
    private static final String PLUGIN_METRICS = "org.apache.kafka.common.metrics.PluginMetrics";
    private static final String PLUGIN_METRICS_IMPL = "org.apache.kafka.common.metrics.internals.PluginMetricsImpl";
    /** Null beside a release without plugin metrics. */
    private static final Handles HANDLES = Handles.find();

    private MonitorablePlugins() {
    }

    /**
     * Gives {@code plugin} its plugin metrics if it is {@code Monitorable}.
     *
     * @param key the configuration key it was made from: {@code key.serializer}, {@code interceptor.classes}, ...
     * @return what closes its plugin metrics, removing what it added to {@code metrics}; empty when it was given none
     */
    static Optional<AutoCloseable> monitor(Object plugin, Metrics metrics, String key) {
        if (HANDLES == null || !HANDLES.monitorable.isInstance(plugin)) {
            return Optional.empty();
        }
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("config", key);
        tags.put("class", plugin.getClass().getSimpleName());
        try {
            AutoCloseable pluginMetrics = (AutoCloseable) HANDLES.newPluginMetrics.invoke(metrics, tags);
            HANDLES.withPluginMetrics.invoke(plugin, (Object) pluginMetrics);
            return Optional.of(pluginMetrics);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new KafkaException("Could not give " + plugin.getClass().getName() + " its plugin metrics", e);
        }
    }

    /** kafka-clients' {@code Monitorable}, and how to make and give a {@code PluginMetrics}. */
    private record Handles(Class<?> monitorable, MethodHandle newPluginMetrics, MethodHandle withPluginMetrics) {

        static Handles find() {
            ClassLoader loader = Metrics.class.getClassLoader();
            Class<?> monitorable;
            try {
                monitorable = Class.forName(MONITORABLE, false, loader);
            } catch (ClassNotFoundException beforeKafkaClients41) {
                return null;
            }
            try {
                Class<?> pluginMetrics = Class.forName(PLUGIN_METRICS, false, loader);
                Class<?> implementation = Class.forName(PLUGIN_METRICS_IMPL, false, loader);
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodHandle constructor = lookup.findConstructor(implementation,
                        MethodType.methodType(void.class, Metrics.class, Map.class));
                MethodHandle give = lookup.findVirtual(monitorable, "withPluginMetrics",
                        MethodType.methodType(void.class, pluginMetrics));
                return new Handles(monitorable,
                        constructor.asType(MethodType.methodType(Object.class, Metrics.class, Map.class)),
                        give.asType(MethodType.methodType(void.class, Object.class, Object.class)));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("kafka-clients has Monitorable but not the plugin metrics it takes", e);
            }
        }
    }
}
