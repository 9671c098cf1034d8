package io.fastleader.clients.producer;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.WindowedSum;

/**
 * The producer's metrics, under the names the Java client uses in {@value #KAFKA_GROUP}
 * ({@code record-send-rate/-total}, {@code record-retry-rate/-total}, {@code record-error-rate/-total},
 * {@code request-latency-avg/-max}, {@code batch-size-avg/-max}, {@code batch-split-rate/-total}), plus fastleader's own in
 * {@value #FASTLEADER_GROUP}: {@code retry-backoffs-skipped-total}, the retries sent at once
 * because the partition's leader epoch advanced (KIP-951).
 */
public final class ProducerMetrics {

    /** The Java client's producer metric group. */
    public static final String KAFKA_GROUP = "producer-metrics";
    /** fastleader's producer metric group. */
    public static final String FASTLEADER_GROUP = "fastleader-producer";

    private final Sensor recordsSent;
    private final Sensor recordsRetried;
    private final Sensor recordErrors;
    private final Sensor batchSplits;
    private final Sensor requestLatency;
    private final Sensor batchSize;
    private final Sensor backoffsSkipped;

    /** Registers the metrics in {@code metrics}. */
    public ProducerMetrics(Metrics metrics) {
        recordsSent = meter(metrics, "record-send", "records sent");
        recordsRetried = meter(metrics, "record-retry", "records sent again after a failed attempt");
        recordErrors = meter(metrics, "record-error", "records that failed for good");
        batchSplits = meter(metrics, "batch-split", "batches split in two because the broker refused them as too large");
        requestLatency = metrics.sensor("fastleader-producer:request-latency");
        requestLatency.add(metrics.metricName("request-latency-avg", KAFKA_GROUP, "Average Produce round trip in ms"), new Avg());
        requestLatency.add(metrics.metricName("request-latency-max", KAFKA_GROUP, "Longest Produce round trip in ms"), new Max());
        batchSize = metrics.sensor("fastleader-producer:batch-size");
        batchSize.add(metrics.metricName("batch-size-avg", KAFKA_GROUP, "Average bytes per batch sent"), new Avg());
        batchSize.add(metrics.metricName("batch-size-max", KAFKA_GROUP, "Largest batch sent, in bytes"), new Max());
        backoffsSkipped = metrics.sensor("fastleader-producer:retry-backoffs-skipped");
        backoffsSkipped.add(metrics.metricName("retry-backoffs-skipped-total", FASTLEADER_GROUP,
                "Retries sent without backoff because the partition's leader epoch advanced"), new CumulativeCount());
    }

    void batchSent(ProducerBatch batch, boolean firstAttempt) {
        if (firstAttempt) {
            recordsSent.record(batch.recordCount());
            batchSize.record(batch.estimatedSizeBytes());
        } else {
            recordsRetried.record(batch.recordCount());
        }
    }

    void batchFailed(ProducerBatch batch) {
        recordErrors.record(batch.recordCount());
    }

    void batchSplit() {
        batchSplits.record();
    }

    void requestAnswered(long latencyMs) {
        requestLatency.record(latencyMs);
    }

    void backoffSkipped() {
        backoffsSkipped.record();
    }

    private static Sensor meter(Metrics metrics, String prefix, String what) {
        Sensor sensor = metrics.sensor("fastleader-producer:" + prefix);
        MetricName rate = metrics.metricName(prefix + "-rate", KAFKA_GROUP, "Average per second of " + what);
        MetricName total = metrics.metricName(prefix + "-total", KAFKA_GROUP, "Total " + what);
        sensor.add(new Meter(new WindowedSum(), rate, total));
        return sensor;
    }
}
