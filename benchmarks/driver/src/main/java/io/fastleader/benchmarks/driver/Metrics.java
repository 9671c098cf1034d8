package io.fastleader.benchmarks.driver;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** The client metrics a result reports: those that count requests, retries and leader hints, summed over tags. */
final class Metrics {

    /** {@code group:name} of each metric reported, where the client has it. */
    private static final List<String> REPORTED = List.of(
        "producer-metrics:record-retry-total",
        "producer-metrics:request-total",
        "consumer-metrics:request-total",
        "consumer-fetch-manager-metrics:fetch-total",
        "fastleader-metadata:metadata-requests-total",
        "fastleader-metadata:leader-hints-accepted-total",
        "fastleader-producer:retry-backoffs-skipped-total",
        "fastleader-consumer:fetch-backoffs-skipped-total");

    private Metrics() {
    }

    @SafeVarargs
    static Map<String, Double> totals(Map<MetricName, ? extends Metric>... clients) {
        Map<String, Double> totals = new TreeMap<>();
        for (Map<MetricName, ? extends Metric> metrics : clients) {
            metrics.forEach((name, metric) -> {
                String key = name.group() + ":" + name.name();
                if (REPORTED.contains(key) && metric.metricValue() instanceof Number value) {
                    totals.merge(key, value.doubleValue(), Double::sum);
                }
            });
        }
        return totals;
    }
}
