package io.fastleader.clients;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Monitorable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Plugins that implement kafka-clients 4.1's {@code Monitorable}, for {@link PluginMetricsTest}. A
 * class of their own, so that a test class that names them loads beside kafka-clients 3.7 too,
 * where the unit tests that need them are left out.
 */
final class MonitoredPlugins {

    private MonitoredPlugins() {
    }

    /** Adds one metric, tagged with what kind of plugin it is, as a monitored plugin would. */
    static void addMetric(PluginMetrics metrics, String plugin) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("plugin", plugin);
        metrics.addMetric(metrics.metricName("added-total", "A metric a plugin added", tags), (Measurable) (config, now) -> 1);
    }

    public static final class MonitoredSerializer extends StringSerializer implements Monitorable {
        @Override
        public void withPluginMetrics(PluginMetrics metrics) {
            addMetric(metrics, "serializer");
        }
    }

    public static final class MonitoredDeserializer extends StringDeserializer implements Monitorable {
        @Override
        public void withPluginMetrics(PluginMetrics metrics) {
            addMetric(metrics, "deserializer");
        }
    }

    public static final class MonitoredPartitioner implements Partitioner, Monitorable {
        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
            return 0;
        }

        @Override
        public void withPluginMetrics(PluginMetrics metrics) {
            addMetric(metrics, "partitioner");
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    public static final class MonitoredProducerInterceptor implements ProducerInterceptor<String, String>, Monitorable {
        @Override
        public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        }

        @Override
        public void withPluginMetrics(PluginMetrics metrics) {
            addMetric(metrics, "interceptor");
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    public static final class MonitoredConsumerInterceptor implements ConsumerInterceptor<String, String>, Monitorable {
        @Override
        public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        }

        @Override
        public void withPluginMetrics(PluginMetrics metrics) {
            addMetric(metrics, "interceptor");
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }
}
