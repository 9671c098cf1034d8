package io.fastleader.clients.consumer;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.WindowedCount;
import org.apache.kafka.common.metrics.stats.WindowedSum;

/**
 * The consumer's metrics, under the names the Java client uses in {@value #KAFKA_GROUP}
 * ({@code fetch-rate/-total}, {@code fetch-latency-avg/-max}, {@code records-consumed-rate/-total},
 * {@code bytes-consumed-rate/-total}), plus fastleader's own in {@value #FASTLEADER_GROUP}:
 * {@code fetch-backoffs-skipped-total} (partitions fetched again at once because their leader
 * epoch advanced, KIP-951), {@code truncations-detected-total} and
 * {@code offset-validations-total} (OffsetsForLeaderEpoch requests sent).
 */
public final class ConsumerMetrics {

    /** The Java client's consumer-wide metric group, where its request counts are. */
    public static final String CLIENT_GROUP = "consumer-metrics";
    /** The Java client's per-broker consumer metric group. */
    public static final String NODE_GROUP = "consumer-node-metrics";
    /** The Java client's fetch metric group. */
    public static final String KAFKA_GROUP = "consumer-fetch-manager-metrics";
    /** fastleader's consumer metric group. */
    public static final String FASTLEADER_GROUP = "fastleader-consumer";

    private final Sensor fetches;
    private final Sensor fetchLatency;
    private final Sensor recordsConsumed;
    private final Sensor bytesConsumed;
    private final Sensor backoffsSkipped;
    private final Sensor truncations;
    private final Sensor validations;

    /** Registers the metrics in {@code metrics}. */
    public ConsumerMetrics(Metrics metrics) {
        fetches = metrics.sensor("fastleader-consumer:fetch");
        fetches.add(new Meter(new WindowedCount(), metrics.metricName("fetch-rate", KAFKA_GROUP, "Fetch requests per second"),
                metrics.metricName("fetch-total", KAFKA_GROUP, "Fetch requests sent")));
        fetchLatency = metrics.sensor("fastleader-consumer:fetch-latency");
        fetchLatency.add(metrics.metricName("fetch-latency-avg", KAFKA_GROUP, "Average Fetch round trip in ms"), new Avg());
        fetchLatency.add(metrics.metricName("fetch-latency-max", KAFKA_GROUP, "Longest Fetch round trip in ms"), new Max());
        recordsConsumed = meter(metrics, "records-consumed", "records handed to the application");
        bytesConsumed = meter(metrics, "bytes-consumed", "record bytes handed to the application");
        backoffsSkipped = counter(metrics, "fetch-backoffs-skipped-total",
                "Partitions fetched again without backoff because their leader epoch advanced");
        truncations = counter(metrics, "truncations-detected-total", "Positions found ahead of a truncated log");
        validations = counter(metrics, "offset-validations-total", "OffsetsForLeaderEpoch requests sent to validate positions");
    }

    void fetchSent() {
        fetches.record();
    }

    void fetchAnswered(long latencyMs) {
        fetchLatency.record(latencyMs);
    }

    void consumed(int records, long bytes) {
        recordsConsumed.record(records);
        bytesConsumed.record(bytes);
    }

    void backoffSkipped() {
        backoffsSkipped.record();
    }

    void truncationDetected() {
        truncations.record();
    }

    void validationSent() {
        validations.record();
    }

    private static Sensor meter(Metrics metrics, String prefix, String what) {
        Sensor sensor = metrics.sensor("fastleader-consumer:" + prefix);
        MetricName rate = metrics.metricName(prefix + "-rate", KAFKA_GROUP, "Average per second of " + what);
        MetricName total = metrics.metricName(prefix + "-total", KAFKA_GROUP, "Total " + what);
        sensor.add(new Meter(new WindowedSum(), rate, total));
        return sensor;
    }

    private static Sensor counter(Metrics metrics, String name, String description) {
        Sensor sensor = metrics.sensor("fastleader-consumer:" + name);
        sensor.add(metrics.metricName(name, FASTLEADER_GROUP, description), new CumulativeCount());
        return sensor;
    }
}
