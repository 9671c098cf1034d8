package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * What an operator's tools see of a client, side by side: a {@code KafkaProducer} and
 * {@code KafkaConsumer} 4.3.1 and fastleader's drop-ins in one JVM, each pair running the same
 * workload on a topic of its own (the consumer in a classic group). Compared: the JMX MBeans (object
 * names with their keys in kafka-clients' order, and attributes), the series Prometheus' JMX exporter
 * scrapes with rules written for kafka-clients ({@code jmx-exporter/kafka-clients.yml}), and the
 * meters Micrometer's {@code KafkaClientMetrics} binds. Client ids, topics and node ids differ
 * between the two and are compared as placeholders. What fastleader lacks may only be the metrics
 * {@link MetricNamesParityTest#NOT_REPORTED} lists.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OperationsViewParityTest {

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final int RECORDS = 200;

    private static final Map<Flavour, Set<String>> mbeans = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Set<String>> scraped = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Set<String>> meters = new EnumMap<>(Flavour.class);
    private static final Map<Flavour, Set<String>> mbeansAfterClose = new EnumMap<>(Flavour.class);
    private static Disturbances disturbances;

    @BeforeAll
    static void runBothFlavours(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster cluster) throws Exception {
        disturbances = new Disturbances(cluster);
        PrometheusRegistry exporter = new PrometheusRegistry();
        try (InputStream rules = OperationsViewParityTest.class.getResourceAsStream("/jmx-exporter/kafka-clients.yml")) {
            new JmxCollector(rules).register(exporter);
        }
        for (Flavour flavour : Flavour.values()) {
            // A dotted name, as many topics have: kafka-clients tags some metrics with it as is, and some with its dots as underscores.
            String name = "ops." + flavour.name().toLowerCase();
            disturbances.createTopic(new NewTopic(name, 3, (short) 3));
            Map<String, Object> producerConfig = new HashMap<>(cluster.clientConfig());
            producerConfig.put("client.id", name + "-producer");
            Map<String, Object> consumerConfig = new HashMap<>(cluster.clientConfig());
            consumerConfig.put("client.id", name + "-consumer");
            consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, name);
            consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (Producer<String, String> producer = flavour.producer(producerConfig);
                 Consumer<String, String> consumer = flavour.consumer(consumerConfig);
                 KafkaClientMetrics producerMeters = new KafkaClientMetrics(producer);
                 KafkaClientMetrics consumerMeters = new KafkaClientMetrics(consumer)) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(name, "key-" + i, "value-" + i));
                }
                producer.flush();
                consumer.subscribe(List.of(name));
                int read = 0;
                while (read < RECORDS) {
                    read += consumer.poll(Duration.ofSeconds(1)).count();
                }
                consumer.commitSync();
                producerMeters.bindTo(registry);
                consumerMeters.bindTo(registry);
                mbeans.put(flavour, mbeanAttributes(name));
                scraped.put(flavour, series(exporter, name));
                meters.put(flavour, meterIds(registry, name));
            }
            mbeansAfterClose.put(flavour, mbeanAttributes(name));
        }
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @Test
    void testEveryMBeanAndAttributeKafkaClientsRegistersIsRegisteredButTheDocumentedOnes() {
        assertThat(mbeans.get(Flavour.KAFKA)).hasSizeGreaterThan(100);
        assertThat(missingFromFastLeader(mbeans)).isEmpty();
    }

    @Test
    void testAJmxExporterConfiguredForKafkaClientsScrapesTheSameSeriesFromFastLeader() {
        assertThat(scraped.get(Flavour.KAFKA)).hasSizeGreaterThan(100);
        assertThat(missingFromFastLeader(scraped)).isEmpty();
    }

    @Test
    void testMicrometersKafkaClientMetricsBindsTheSameMetersToFastLeader() {
        assertThat(meters.get(Flavour.KAFKA)).hasSizeGreaterThan(100);
        assertThat(missingFromFastLeader(meters)).isEmpty();
    }

    @Test
    void testCloseUnregistersEveryMBeanOfTheClient() {
        assertThat(mbeansAfterClose.get(Flavour.KAFKA)).isEmpty();
        assertThat(mbeansAfterClose.get(Flavour.FASTLEADER)).isEmpty();
    }

    /** Kafka's entries fastleader's lack, but those of a metric {@link MetricNamesParityTest#NOT_REPORTED} lists. */
    private static Set<String> missingFromFastLeader(Map<Flavour, Set<String>> byFlavour) {
        Set<String> missing = new TreeSet<>(byFlavour.get(Flavour.KAFKA));
        missing.removeAll(byFlavour.get(Flavour.FASTLEADER));
        missing.removeIf(entry -> MetricNamesParityTest.NOT_REPORTED.keySet().stream()
                .anyMatch(metric -> metricOf(entry).endsWith(comparable(metric))));
        return missing;
    }

    /** The metric an entry is of: an MBean's attribute, a series' or a meter's name. */
    private static String metricOf(String entry) {
        String name = entry.contains(" ") ? entry.substring(entry.lastIndexOf(' ') + 1) : entry.substring(0, entry.indexOf('{'));
        return comparable(name);
    }

    /** A metric's name as JMX, Prometheus and Micrometer spell it alike: separators as one, without a counter's {@code total}. */
    private static String comparable(String name) {
        return name.replace('-', '_').replace('.', '_').replaceFirst("_total$", "");
    }

    /** Every attribute of every MBean of the clients named {@code name}-*, as {@code <domain>:<keys in order> <attribute>}. */
    private static Set<String> mbeanAttributes(String name) throws Exception {
        Set<String> attributes = new TreeSet<>();
        for (ObjectName mbean : SERVER.queryNames(null, null)) {
            String id = mbean.getKeyProperty("client-id") != null ? mbean.getKeyProperty("client-id") : mbean.getKeyProperty("id");
            if (id == null || !id.startsWith(name + "-")) {
                continue;
            }
            StringBuilder keys = new StringBuilder(mbean.getDomain()).append(':');
            for (String property : mbean.getKeyPropertyListString().split(",")) {
                String key = property.substring(0, property.indexOf('='));
                keys.append(key).append('=').append(placeholder(key, mbean.getKeyProperty(key), name)).append(',');
            }
            for (MBeanAttributeInfo attribute : SERVER.getMBeanInfo(mbean).getAttributes()) {
                attributes.add(keys + " " + attribute.getName());
            }
        }
        return attributes;
    }

    /** The series the exporter scrapes of the clients named {@code name}-*, as {@code <series>{<label>=<value>,...}}. */
    private static Set<String> series(PrometheusRegistry exporter, String name) {
        Set<String> series = new TreeSet<>();
        for (MetricSnapshot snapshot : exporter.scrape()) {
            for (DataPointSnapshot point : snapshot.getDataPoints()) {
                Map<String, String> labels = new TreeMap<>();
                for (Label label : point.getLabels()) {
                    labels.put(label.getName(), label.getValue());
                }
                if (labels.getOrDefault("client_id", "").startsWith(name + "-")) {
                    series.add(snapshot.getMetadata().getName() + placeholders(labels, name));
                }
            }
        }
        return series;
    }

    /** The meters bound for the clients named {@code name}-*, as {@code <meter>{<tag>=<value>,...}}. */
    private static Set<String> meterIds(SimpleMeterRegistry registry, String name) {
        Set<String> ids = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            Map<String, String> tags = new TreeMap<>();
            meter.getId().getTags().forEach(tag -> tags.put(tag.getKey(), tag.getValue()));
            if (tags.getOrDefault("client.id", "").startsWith(name + "-")) {
                tags.remove("kafka.version");
                ids.add(meter.getId().getName() + placeholders(tags, name));
            }
        }
        return ids;
    }

    private static String placeholders(Map<String, String> tags, String name) {
        Map<String, String> replaced = new TreeMap<>();
        tags.forEach((key, value) -> replaced.put(key, placeholder(key.replace('_', '-').replace('.', '-'), value, name)));
        return replaced.toString();
    }

    /** What stands for a tag's value: the client's role for its id, {@code <topic>}, {@code <node>}; other values as they are. */
    private static String placeholder(String key, String value, String name) {
        Function<String, String> role = id -> id.substring(name.length() + 1);
        return switch (key) {
            case "client-id", "id" -> role.apply(value);
            case "topic" -> value.equals(name) ? "<topic>" : value.equals(name.replace('.', '_')) ? "<topic_with_underscores>" : value;
            case "node-id" -> "<node>";
            default -> value;
        };
    }
}
