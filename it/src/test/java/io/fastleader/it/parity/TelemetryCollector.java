package io.fastleader.it.parity;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.telemetry.internals.ClientTelemetryUtils;
import org.apache.kafka.server.telemetry.ClientTelemetryContext;
import org.apache.kafka.server.telemetry.ClientTelemetryExporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporterProvider;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.KeyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;

/**
 * A broker's client telemetry plugin, installed by a test as {@code metric.reporters} on a broker in
 * its JVM: it keeps every push the broker takes, decoded, where the test reads it. A broker without
 * such a plugin does not offer the telemetry APIs at all.
 */
public final class TelemetryCollector implements MetricsReporter, ClientTelemetryExporterProvider {

    /** One push as the broker handed it over. */
    public record Push(Uuid clientInstanceId, String clientId, boolean terminating, List<String> metricNames,
                       Map<String, String> resourceAttributes) {
    }

    private static final Queue<Push> PUSHES = new ConcurrentLinkedQueue<>();

    /** Every push taken so far by a broker of this JVM, in order. */
    public static List<Push> pushes() {
        return List.copyOf(PUSHES);
    }

    /** The pushes taken from the client {@code clientInstanceId}, in order. */
    public static List<Push> pushesFrom(Uuid clientInstanceId) {
        return PUSHES.stream().filter(push -> push.clientInstanceId().equals(clientInstanceId)).collect(Collectors.toList());
    }

    @Override
    public ClientTelemetryExporter clientTelemetryExporter() {
        return this::collect;
    }

    private void collect(ClientTelemetryContext context, ClientTelemetryPayload payload) {
        MetricsData data = ClientTelemetryUtils.deserializeMetricsData(ByteBuffer.wrap(bytes(payload.data())));
        List<String> names = data.getResourceMetricsList().stream()
                .flatMap(resource -> resource.getScopeMetricsList().stream())
                .flatMap(scope -> scope.getMetricsList().stream())
                .map(metric -> metric.getName())
                .distinct()
                .collect(Collectors.toList());
        Map<String, String> attributes = data.getResourceMetricsList().stream()
                .map(ResourceMetrics::getResource)
                .flatMap(resource -> resource.getAttributesList().stream())
                .collect(Collectors.toMap(KeyValue::getKey, attribute -> attribute.getValue().getStringValue(), (a, b) -> a));
        PUSHES.add(new Push(payload.clientInstanceId(), context.authorizableRequestContext().clientId(), payload.isTerminating(),
                names, attributes));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
    }

    @Override
    public void metricChange(KafkaMetric metric) {
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {
    }

    @Override
    public void close() {
    }
}
