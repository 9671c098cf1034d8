package io.fastleader.clients.network;

import java.util.EnumMap;
import java.util.Map;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.WindowedCount;

/**
 * Counts the requests a client's connections send: {@code request-rate} and {@code request-total}
 * under the client's Kafka group ({@code producer-metrics}, {@code consumer-metrics}), as the Java
 * client reports them, and {@code requests-total} per API in {@value #GROUP}, tagged
 * {@code api=Produce}, {@code api=Metadata}, ... (the names of Kafka's protocol guide), which the
 * Java client does not break down. A per-API metric appears with the first request of its API.
 */
public final class RequestMetrics implements RequestListener {

    /** fastleader's network metric group. */
    public static final String GROUP = "fastleader-network";

    private final Metrics metrics;
    private final String sensorPrefix;
    private final Sensor requests;
    private final Map<ApiKey, Sensor> byApi = new EnumMap<>(ApiKey.class);

    /** Registers the metrics in {@code metrics}, the Kafka-named ones in {@code kafkaGroup}. */
    public RequestMetrics(Metrics metrics, String kafkaGroup) {
        this.metrics = metrics;
        this.sensorPrefix = kafkaGroup + ":requests";
        requests = metrics.sensor(sensorPrefix);
        requests.add(new Meter(new WindowedCount(),
                metrics.metricName("request-rate", kafkaGroup, "Requests sent per second"),
                metrics.metricName("request-total", kafkaGroup, "Requests sent")));
    }

    @Override
    public void sent(ApiKey api) {
        requests.record();
        apiSensor(api).record();
    }

    private synchronized Sensor apiSensor(ApiKey api) {
        return byApi.computeIfAbsent(api, key -> {
            Sensor sensor = metrics.sensor(sensorPrefix + ":" + key.displayName());
            sensor.add(metrics.metricName("requests-total", GROUP, "Requests sent of one API", "api", key.displayName()),
                    new CumulativeCount());
            return sensor;
        });
    }
}
