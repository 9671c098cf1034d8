package io.fastleader.clients.shaded;

import java.util.LinkedHashMap;

import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Monitorable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A serializer that adds one metric through its plugin metrics (KIP-877). Named by class name only,
 * so that it is loaded only beside a release that has {@code Monitorable} (4.1 and later).
 */
public final class MonitoredSerializer extends StringSerializer implements Monitorable {

    @Override
    public void withPluginMetrics(PluginMetrics metrics) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("plugin", "serializer");
        metrics.addMetric(metrics.metricName("added-total", "A metric the serializer added", tags), (Measurable) (config, now) -> 1);
    }
}
