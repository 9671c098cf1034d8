package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsTest {

    private final org.apache.kafka.common.metrics.Metrics producer = new org.apache.kafka.common.metrics.Metrics();
    private final org.apache.kafka.common.metrics.Metrics consumer = new org.apache.kafka.common.metrics.Metrics();

    @AfterEach
    void close() {
        producer.close();
        consumer.close();
    }

    @Test
    void sumsEachApisRequestsOverBothClients() {
        count(producer, "fastleader-network", "requests-total", Map.of("api", "Metadata"), 2);
        count(consumer, "fastleader-network", "requests-total", Map.of("api", "Metadata"), 3);
        count(consumer, "fastleader-network", "requests-total", Map.of("api", "Fetch"), 7);

        assertThat(Metrics.requestsByApi(producer.metrics(), consumer.metrics())).isEqualTo(Map.of("Metadata", 5L, "Fetch", 7L));
    }

    @Test
    void reportsRefreshesPerCauseLeavingOutCausesThatNeverHappened() {
        count(producer, "fastleader-metadata", "metadata-refreshes-total", Map.of("cause", "hint-confirmation"), 1);
        count(consumer, "fastleader-metadata", "metadata-refreshes-total", Map.of("cause", "hint-confirmation"), 2);
        count(consumer, "fastleader-metadata", "metadata-refreshes-total", Map.of("cause", "periodic"), 0);

        assertThat(Metrics.totals(producer.metrics(), consumer.metrics()))
            .isEqualTo(Map.of("fastleader-metadata:metadata-refreshes-total{cause=hint-confirmation}", 3.0));
    }

    @Test
    void sumsAReportedMetricOverItsTags() {
        count(producer, "producer-metrics", "record-retry-total", Map.of("client-id", "a"), 4);
        count(consumer, "producer-metrics", "record-retry-total", Map.of("client-id", "b"), 1);

        assertThat(Metrics.totals(producer.metrics(), consumer.metrics())).isEqualTo(Map.of("producer-metrics:record-retry-total", 5.0));
    }

    @Test
    void namesTheClientWideValuesOfTheMetricsAskedForThatTheClientHas() {
        count(consumer, "consumer-fetch-manager-metrics", "fetch-size-avg", Map.of("client-id", "c", "topic", "t"), 1);
        count(consumer, "consumer-fetch-manager-metrics", "fetch-size-avg", Map.of("client-id", "c"), 2);
        count(consumer, "consumer-fetch-manager-metrics", "fetch-rate", Map.of("client-id", "c"), 3);

        assertThat(Metrics.named(consumer.metrics(), "consumer-fetch-manager-metrics", List.of("fetch-rate", "fetch-latency-avg", "fetch-size-avg")))
            .isEqualTo("fetch-rate=3.0 fetch-size-avg=2.0");
    }

    private static void count(org.apache.kafka.common.metrics.Metrics metrics, String group, String name, Map<String, String> tags,
                              int times) {
        Sensor sensor = metrics.sensor(group + name + tags);
        sensor.add(metrics.metricName(name, group, "", tags), new CumulativeCount());
        for (int i = 0; i < times; i++) {
            sensor.record();
        }
    }
}
