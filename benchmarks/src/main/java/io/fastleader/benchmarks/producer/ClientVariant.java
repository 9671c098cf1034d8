package io.fastleader.benchmarks.producer;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A producer under test, named as the benchmark tables name it. Every variant gets the same
 * configuration; a variant only adds what makes it what it is.
 */
public enum ClientVariant {

    /** FastLeaderProducer with its defaults: KIP-951 hints followed. */
    FASTLEADER("fastleader", "fastleader-", Map.of()),
    /** FastLeaderProducer with the whole KIP-951 path off: the baseline for what hints buy. */
    FASTLEADER_NO_HINTS("fastleader-no-hints", "fastleader-", Map.of("fastleader.leader.hints.enabled", false)),
    /** kafka-clients' KafkaProducer 4.3.1 (KIP-951 built in). */
    KAFKA_CLIENTS("kafka-clients-4.3.1", "kafka-producer-network-thread", Map.of());

    /** Metrics read after a run, by group and name; a variant reports those it has. */
    private static final Map<String, String> REPORTED_METRICS = Map.of(
        "leader-hints-accepted-total", "fastleader-metadata",
        "retry-backoffs-skipped-total", "fastleader-producer",
        "record-retry-total", "producer-metrics",
        "record-error-total", "producer-metrics");

    private final String label;
    private final String threadPrefix;
    private final Map<String, Object> overrides;

    ClientVariant(String label, String threadPrefix, Map<String, Object> overrides) {
        this.label = label;
        this.threadPrefix = threadPrefix;
        this.overrides = overrides;
    }

    /** The name in tables and JSON, e.g. {@code kafka-clients-4.3.1}. */
    public String label() {
        return label;
    }

    /** Whether {@code threadName} names one of the threads this variant's producers start. */
    public boolean ownsThread(String threadName) {
        return threadName.startsWith(threadPrefix);
    }

    /** A producer of byte-array keys and values with {@code config} plus this variant's own settings. */
    public Producer<byte[], byte[]> create(Map<String, Object> config) {
        Map<String, Object> all = new HashMap<>(config);
        all.putAll(overrides);
        return switch (this) {
            case FASTLEADER, FASTLEADER_NO_HINTS -> new FastLeaderProducer<>(all, new ByteArraySerializer(), new ByteArraySerializer());
            case KAFKA_CLIENTS -> new KafkaProducer<>(all, new ByteArraySerializer(), new ByteArraySerializer());
        };
    }

    /**
     * The counters of {@link #REPORTED_METRICS} that {@code producer} has, by name: fastleader's
     * hint and backoff-skip counters, and the retry and error totals both clients keep.
     */
    public static Map<String, Double> reportedMetrics(Producer<?, ?> producer) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> metric : producer.metrics().entrySet()) {
            MetricName name = metric.getKey();
            if (name.group().equals(REPORTED_METRICS.get(name.name())) && name.tags().keySet().equals(Set.of("client-id"))) {
                values.merge(name.name(), ((Number) metric.getValue().metricValue()).doubleValue(), Double::sum);
            }
        }
        return values;
    }
}
