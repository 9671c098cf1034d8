package io.fastleader.clients.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsContext;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.NetworkMetrics;
import io.fastleader.protocol.ApiKey;

/**
 * What a client opens as it starts, closed when it closes, last opened first: the start-up the
 * producer and the consumer share, written once. A client's constructor opens its metrics
 * ({@link #openMetrics}), registers its plugins (serializers, interceptors, ...), opens its share of
 * the cluster ({@link #openCluster}: connection pool, cluster metadata, replica prewarm, telemetry) and
 * registers what else it opens, in that order; should it fail on the way, {@link #failedToStart}
 * closes what was opened so far. Not thread-safe: used by the constructor, then by the one close.
 */
public final class ClientResources implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientResources.class);

    private final String client;
    private final List<AutoCloseable> opened = new ArrayList<>();
    /** The client's telemetry, made with its metrics and started with its share of the cluster. */
    private ClientTelemetry telemetry;

    /** @param client the client's class name, as messages name it: {@code FastLeaderProducer} */
    public ClientResources(String client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** Registers {@code resource} to be closed by {@link #close}, before everything registered earlier. */
    public <T extends AutoCloseable> T register(T resource) {
        opened.add(Objects.requireNonNull(resource, "resource"));
        return resource;
    }

    /**
     * Gives {@code plugin}, made from {@code key} ({@code key.serializer}, {@code interceptor.classes},
     * ...), its plugin metrics if it implements kafka-clients' {@code Monitorable} (KIP-877), as the
     * clients of kafka-clients 4.1 and later do; they are removed by {@link #close}, after whatever
     * was registered later, so after the plugin itself when it is registered next.
     *
     * @return {@code plugin}
     */
    public <T> T monitor(T plugin, Metrics metrics, String key) {
        MonitorablePlugins.monitor(plugin, metrics, key).ifPresent(this::register);
        return plugin;
    }

    /** {@link #monitor}s {@code plugin} and registers it to be closed, before its plugin metrics go. */
    public <T extends AutoCloseable> T registerPlugin(T plugin, Metrics metrics, String key) {
        return register(monitor(plugin, metrics, key));
    }

    /**
     * Opens the client's metrics as {@code KafkaProducer} and {@code KafkaConsumer} open theirs: every
     * one tagged with {@code client-id}, sampled as {@code metrics.num.samples},
     * {@code metrics.sample.window.ms} and {@code metrics.recording.level} say, and reported to the
     * {@code metric.reporters} (with the JMX reporter as the application's kafka-clients release adds
     * it: {@code auto.include.jmx.reporter} up to 3.9, the default of {@code metric.reporters} since
     * 4.0) and to kafka-clients' client telemetry reporter under {@code enable.metrics.push}
     * ({@link ClientTelemetry}), in the context {@code jmxPrefix} and the {@code metrics.context.*}
     * keys; and the client's {@code app-info}.
     *
     * @param jmxPrefix the JMX domain of the client's MBeans: {@code kafka.producer}, {@code kafka.consumer}
     */
    public Metrics openMetrics(String clientId, AbstractConfig kafka, String jmxPrefix) {
        MetricConfig config = new MetricConfig()
                .samples(kafka.getInt(CommonClientConfigs.METRICS_NUM_SAMPLES_CONFIG))
                .timeWindow(kafka.getLong(CommonClientConfigs.METRICS_SAMPLE_WINDOW_MS_CONFIG), TimeUnit.MILLISECONDS)
                .recordLevel(Sensor.RecordingLevel.forName(kafka.getString(CommonClientConfigs.METRICS_RECORDING_LEVEL_CONFIG)))
                .tags(Map.of("client-id", clientId));
        List<MetricsReporter> reporters = CommonClientConfigs.metricsReporters(clientId, kafka);
        telemetry = ClientTelemetry.of(clientId, kafka);
        telemetry.reporter().ifPresent(reporters::add);
        MetricsContext context = new KafkaMetricsContext(jmxPrefix,
                kafka.originalsWithPrefix(CommonClientConfigs.METRICS_CONTEXT_PREFIX));
        Metrics metrics = register(new Metrics(config, reporters, Time.SYSTEM, context));
        register(ClientAppInfo.register(jmxPrefix, clientId, metrics, Time.SYSTEM.milliseconds()));
        return metrics;
    }

    /**
     * Opens the client's connection pool and cluster metadata, starts {@link ReplicaPrewarm} if
     * {@code settings} ask for it, and starts the telemetry {@link #openMetrics} made.
     *
     * @param clientGroup Kafka's group for the client's network metrics: {@code producer-metrics}, {@code consumer-metrics}
     * @param nodeGroup   Kafka's group for its per-broker metrics
     * @param topicsInUse the topics the client uses, given its metadata: those whose brokers prewarm connects to
     */
    public ClusterLink openCluster(String clientId, ClusterSettings settings, Metrics metrics, String clientGroup,
                                   String nodeGroup, Function<ClusterMetadata, Predicate<String>> topicsInUse) {
        NetworkMetrics network = new NetworkMetrics(metrics, clientGroup, nodeGroup);
        ConnectionPool pool = register(new ConnectionPool(settings.connectionConfig(clientId), settings.poolConfig(), network));
        ClusterMetadata metadata = register(new ClusterMetadata(settings.metadataConfig(), pool, settings.bootstrapServers(),
                metrics));
        ReplicaPrewarm prewarm = settings.connectionsPrewarm()
                ? ReplicaPrewarm.start(metadata, pool, topicsInUse.apply(metadata), settings.poolConfig().reconnectBackoff())
                : null;
        register(telemetry).start(pool, metadata, settings.connectionConfig(clientId).requestTimeoutFor(ApiKey.PUSH_TELEMETRY),
                settings.poolConfig().reconnectBackoff());
        return new ClusterLink(network, pool, metadata, prewarm, telemetry);
    }

    /**
     * The plugins a kafka-clients client tells the cluster id ({@link ClusterMetadata#tellClusterId}),
     * in its order: the key and value serializers or deserializers, the interceptors, the metrics reporters.
     */
    public static List<Object> clusterIdListeners(Object keys, Object values, List<?> interceptors, Metrics metrics) {
        List<Object> plugins = new ArrayList<>(List.of(keys, values));
        plugins.addAll(interceptors);
        plugins.addAll(metrics.reporters());
        return plugins;
    }

    /**
     * Closes what was opened so far, for a constructor that failed.
     *
     * @return the exception the constructor throws, naming the client and caused by {@code cause}
     */
    public KafkaException failedToStart(RuntimeException cause) {
        close();
        return new KafkaException("Failed to construct the " + client, cause);
    }

    /**
     * Closes everything registered, last registered first. One that fails to close is logged, and
     * the rest are closed all the same. Closing again does nothing.
     */
    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            AutoCloseable resource = opened.get(i);
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("Failed to close {} while closing the {}", resource.getClass().getName(), client, e);
            }
        }
        opened.clear();
    }

    /**
     * A client's share of the cluster, opened by {@link #openCluster}.
     *
     * @param network   the client's network metrics
     * @param prewarm   null without {@code fastleader.connections.prewarm}
     * @param telemetry disabled without {@code enable.metrics.push}
     */
    public record ClusterLink(NetworkMetrics network, ConnectionPool pool, ClusterMetadata metadata, ReplicaPrewarm prewarm,
                              ClientTelemetry telemetry) {
    }
}
