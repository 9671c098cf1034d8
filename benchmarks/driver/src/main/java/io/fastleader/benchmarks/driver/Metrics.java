package io.fastleader.benchmarks.driver;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The client metrics a result reports: those that count requests, retries and leader hints; and
 * for the steady benchmark's drivers, a few by name.
 */
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

    /** {@code group:name} of each metric reported per value of a tag, as {@code group:name{tag=value}}, and that tag. */
    private static final Map<String, String> REPORTED_BY_TAG = Map.of(
        "fastleader-metadata:metadata-refreshes-total", "cause",
        "fastleader-metadata:leader-hints-rejected-total", "reason");

    private static final String REQUESTS_BY_API_GROUP = "fastleader-network";
    private static final String REQUESTS_BY_API = "requests-total";

    private Metrics() {
    }

    /**
     * {@code name=value} of each of {@code names} in {@code group} that the client has, space-separated:
     * its client-wide value, not one of a topic's (a {@code topic} tag).
     */
    static String named(Map<MetricName, ? extends Metric> metrics, String group, List<String> names) {
        StringBuilder line = new StringBuilder();
        for (String name : names) {
            metrics.entrySet().stream()
                .filter(metric -> metric.getKey().group().equals(group) && metric.getKey().name().equals(name)
                    && !metric.getKey().tags().containsKey("topic"))
                .findFirst()
                .ifPresent(metric -> line.append(name).append('=').append(metric.getValue().metricValue()).append(' '));
        }
        return line.toString().trim();
    }

    /** fastleader's {@code fastleader-network:requests-total}, summed over the clients per {@code api} tag. */
    @SafeVarargs
    static Map<String, Long> requestsByApi(Map<MetricName, ? extends Metric>... clients) {
        Map<String, Long> byApi = new TreeMap<>();
        for (Map<MetricName, ? extends Metric> metrics : clients) {
            metrics.forEach((name, metric) -> {
                if (name.group().equals(REQUESTS_BY_API_GROUP) && name.name().equals(REQUESTS_BY_API)
                    && metric.metricValue() instanceof Number value) {
                    byApi.merge(name.tags().get("api"), value.longValue(), Long::sum);
                }
            });
        }
        return byApi;
    }

    /**
     * The {@link #REPORTED} metrics the clients have, each summed over its tags and over the clients,
     * and the {@link #REPORTED_BY_TAG} ones that are not zero, per value of their tag.
     */
    @SafeVarargs
    static Map<String, Double> totals(Map<MetricName, ? extends Metric>... clients) {
        Map<String, Double> totals = new TreeMap<>();
        for (Map<MetricName, ? extends Metric> metrics : clients) {
            metrics.forEach((name, metric) -> {
                String key = name.group() + ":" + name.name();
                if (!(metric.metricValue() instanceof Number value)) {
                    return;
                }
                if (REPORTED.contains(key)) {
                    totals.merge(key, value.doubleValue(), Double::sum);
                } else if (REPORTED_BY_TAG.containsKey(key) && value.doubleValue() != 0) {
                    String tag = REPORTED_BY_TAG.get(key);
                    totals.merge(key + "{" + tag + "=" + name.tags().get(tag) + "}", value.doubleValue(), Double::sum);
                }
            });
        }
        return totals;
    }
}
