package io.fastleader.benchmarks.common;

import java.util.Map;
import java.util.function.Predicate;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** Reads counters out of a client's {@code metrics()} map. */
public final class MetricTotals {

    private MetricTotals() {
    }

    /**
     * The sum of every metric named {@code name} in {@code group} whose tags pass {@code tags}
     * (e.g. all {@code cause} tags of one counter), or null if the client has none.
     */
    public static Double sum(Map<MetricName, ? extends Metric> metrics, String group, String name,
                             Predicate<Map<String, String>> tags) {
        Double total = null;
        for (Map.Entry<MetricName, ? extends Metric> metric : metrics.entrySet()) {
            MetricName key = metric.getKey();
            if (key.name().equals(name) && key.group().equals(group) && tags.test(key.tags())) {
                double value = ((Number) metric.getValue().metricValue()).doubleValue();
                total = total == null ? value : total + value;
            }
        }
        return total;
    }

    /** {@link #sum} over every tag combination. */
    public static Double sum(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        return sum(metrics, group, name, tags -> true);
    }
}
