package io.fastleader.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;

/**
 * Plugin metrics (KIP-877): a plugin that implements {@code Monitorable} adds metrics through the
 * {@code PluginMetrics} it is given, tagged with the key it was configured by and its class, and
 * they go when the client closes, as with kafka-clients' clients.
 */
@NeedsKafkaClientsNewerThan37
class PluginMetricsTest {

    private static final String GROUP = "plugins";

    @Test
    void testAProducersMonitorablePluginsAddTheMetricsTheyAddToKafkaProducer() {
        Map<String, Object> config = producerConfig();

        Set<String> kafka = pluginMetricsOf(new KafkaProducer<>(config));
        Set<String> fastLeader = pluginMetricsOf(new FastLeaderProducer<>(config));

        assertThat(fastLeader).isEqualTo(kafka).containsExactlyInAnyOrder(
                "added-total {class=MonitoredSerializer, config=key.serializer, plugin=serializer}",
                "added-total {class=MonitoredSerializer, config=value.serializer, plugin=serializer}",
                "added-total {class=MonitoredPartitioner, config=partitioner.class, plugin=partitioner}",
                "added-total {class=MonitoredProducerInterceptor, config=interceptor.classes, plugin=interceptor}");
    }

    @Test
    void testAConsumersMonitorablePluginsAddTheMetricsTheyAddToKafkaConsumer() {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, MonitoredPlugins.MonitoredDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, MonitoredPlugins.MonitoredConsumerInterceptor.class.getName());

        Set<String> kafka = pluginMetricsOf(new KafkaConsumer<>(config));
        Set<String> fastLeader = pluginMetricsOf(new FastLeaderConsumer<>(config));

        assertThat(fastLeader).isEqualTo(kafka).containsExactlyInAnyOrder(
                "added-total {class=MonitoredDeserializer, config=key.deserializer, plugin=deserializer}",
                "added-total {class=MonitoredConsumerInterceptor, config=interceptor.classes, plugin=interceptor}");
    }

    @Test
    void testAPluginsMetricsGoWhenTheProducerCloses() {
        FastLeaderProducer<String, String> producer = new FastLeaderProducer<>(producerConfig());
        Map<MetricName, ? extends Metric> metrics = producer.metrics();
        assertThat(metrics.keySet()).anyMatch(name -> name.group().equals(GROUP));

        producer.close(Duration.ZERO);

        assertThat(metrics.keySet()).noneMatch(name -> name.group().equals(GROUP));
    }

    private static Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, MonitoredPlugins.MonitoredSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, MonitoredPlugins.MonitoredSerializer.class);
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, MonitoredPlugins.MonitoredPartitioner.class);
        config.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, MonitoredPlugins.MonitoredProducerInterceptor.class.getName());
        return config;
    }

    /** The plugin metrics of a client, as "name {tags but client-id}", read before it closes. */
    private static Set<String> pluginMetricsOf(AutoCloseable client) {
        Map<MetricName, ? extends Metric> metrics = client instanceof Producer<?, ?> producer ? producer.metrics()
                : ((Consumer<?, ?>) client).metrics();
        Set<String> names = new TreeSet<>();
        metrics.keySet().stream().filter(name -> name.group().equals(GROUP)).forEach(name -> {
            Map<String, String> tags = new TreeMap<>(name.tags());
            tags.remove("client-id");
            names.add(name.name() + " " + tags);
        });
        try {
            client.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return names;
    }
}
