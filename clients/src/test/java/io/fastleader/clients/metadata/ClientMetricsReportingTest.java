package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsContext;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.ClientSoftware;

/** {@link ClientResources#openMetrics}: what a client's metrics report, and to whom, as kafka-clients' clients do. */
class ClientMetricsReportingTest {

    private static final String PREFIX = "kafka.producer";
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private final List<ClientResources> opened = new ArrayList<>();

    @AfterEach
    void closeClients() {
        opened.forEach(ClientResources::close);
    }

    @Test
    void testEveryMetricIsAnMBeanUnderTheClientsDomainUntilClose() throws Exception {
        ClientResources client = client();
        Metrics metrics = client.openMetrics("jmx-mbeans", config(Map.of()), PREFIX);
        countSensor(metrics, "record-send-total", "producer-metrics", Map.of()).record();
        countSensor(metrics, "record-send-total", "producer-topic-metrics", Map.of("topic", "orders")).record();

        ObjectName clientMetrics = new ObjectName("kafka.producer:type=producer-metrics,client-id=jmx-mbeans");
        ObjectName topicMetrics = new ObjectName("kafka.producer:type=producer-topic-metrics,client-id=jmx-mbeans,topic=orders");
        assertThat(SERVER.getAttribute(clientMetrics, "record-send-total")).isEqualTo(1.0);
        assertThat(SERVER.getAttribute(topicMetrics, "record-send-total")).isEqualTo(1.0);

        client.close();

        assertThat(SERVER.queryNames(new ObjectName("kafka.producer:client-id=jmx-mbeans,*"), null)).isEmpty();
        assertThat(SERVER.isRegistered(new ObjectName("kafka.producer:type=app-info,id=jmx-mbeans"))).isFalse();
    }

    @Test
    void testAppInfoNamesFastleadersVersionAsAnMBeanAndAsMetrics() throws Exception {
        long before = System.currentTimeMillis();
        Metrics metrics = client().openMetrics("jmx-app-info", config(Map.of()), PREFIX);

        ObjectName appInfo = new ObjectName("kafka.producer:type=app-info,id=jmx-app-info");
        assertThat(SERVER.getAttribute(appInfo, "Version")).isEqualTo(ClientSoftware.VERSION);
        assertThat(SERVER.getAttribute(appInfo, "CommitId")).isEqualTo("unknown");
        assertThat((Long) SERVER.getAttribute(appInfo, "StartTimeMs")).isBetween(before, System.currentTimeMillis());
        assertThat(metrics.metric(metrics.metricName("version", "app-info")).metricValue()).isEqualTo(ClientSoftware.VERSION);
        assertThat(SERVER.getAttribute(new ObjectName("kafka.producer:type=app-info,client-id=jmx-app-info"), "commit-id"))
                .isEqualTo("unknown");
    }

    @Test
    void testASecondClientOfTheSameIdLeavesTheFirstsAppInfoInPlace() throws Exception {
        client().openMetrics("jmx-same-id", config(Map.of()), PREFIX);
        ClientResources second = client();
        second.openMetrics("jmx-same-id", config(Map.of()), PREFIX);

        second.close();

        assertThat(SERVER.isRegistered(new ObjectName("kafka.producer:type=app-info,id=jmx-same-id"))).isTrue();
    }

    @Test
    void testAClientIdJmxCannotTakeAsIsIsQuotedAsKafkaClientsQuotesIt() throws Exception {
        client().openMetrics("jmx:quoted*id", config(Map.of()), PREFIX);

        assertThat(SERVER.isRegistered(new ObjectName("kafka.producer:type=app-info,id=" + ObjectName.quote("jmx:quoted*id"))))
                .isTrue();
    }

    /** Without it in {@code metric.reporters}, and, for 3.x, with {@code auto.include.jmx.reporter} off (4.x has no such key). */
    @Test
    void testWithoutTheJmxReporterOnlyTheAppInfoIsAnMBean() throws Exception {
        Metrics metrics = client().openMetrics("jmx-none", config(Map.of(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, "",
                "auto.include.jmx.reporter", false)), PREFIX);
        countSensor(metrics, "record-send-total", "producer-metrics", Map.of()).record();

        assertThat(SERVER.queryNames(new ObjectName("kafka.producer:client-id=jmx-none,*"), null)).isEmpty();
        assertThat(SERVER.isRegistered(new ObjectName("kafka.producer:type=app-info,id=jmx-none"))).isTrue();
    }

    @Test
    void testAnApplicationReporterIsConfiguredWithTheClientIdAndToldOfEveryMetricChangeAndOfClose() {
        ClientResources client = client();
        Metrics metrics = client.openMetrics("reported", config(Map.of(
                CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, RecordingReporter.class.getName())), PREFIX);
        RecordingReporter reporter = RecordingReporter.BY_CLIENT_ID.get("reported");

        Sensor sensor = countSensor(metrics, "record-send-total", "producer-metrics", Map.of());
        metrics.removeSensor(sensor.name());
        client.close();

        assertThat(reporter.events).startsWith("context kafka.producer", "init").contains(
                "change producer-metrics record-send-total", "removal producer-metrics record-send-total").endsWith("close");
    }

    @Test
    void testTheMetricsContextNamesTheClientsDomainAndTheMetricsContextKeys() {
        client().openMetrics("context", config(Map.of(
                CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, RecordingReporter.class.getName(),
                CommonClientConfigs.METRICS_CONTEXT_PREFIX + "cluster", "east")), PREFIX);

        assertThat(RecordingReporter.BY_CLIENT_ID.get("context").context)
                .containsEntry(MetricsContext.NAMESPACE, PREFIX).containsEntry("cluster", "east");
    }

    @Test
    void testSamplesWindowAndRecordingLevelAreTheConfiguredOnes() {
        Metrics metrics = client().openMetrics("sampled", config(Map.of(
                CommonClientConfigs.METRICS_NUM_SAMPLES_CONFIG, 5,
                CommonClientConfigs.METRICS_SAMPLE_WINDOW_MS_CONFIG, 7_000,
                CommonClientConfigs.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG")), PREFIX);

        assertThat(metrics.config().samples()).isEqualTo(5);
        assertThat(metrics.config().timeWindowMs()).isEqualTo(TimeUnit.SECONDS.toMillis(7));
        assertThat(metrics.sensor("debug-sensor", Sensor.RecordingLevel.DEBUG).shouldRecord()).isTrue();
        assertThat(metrics.sensor("trace-sensor", Sensor.RecordingLevel.TRACE).shouldRecord()).isFalse();
    }

    private ClientResources client() {
        ClientResources client = new ClientResources("FastLeaderTestClient");
        opened.add(client);
        return client;
    }

    private static ProducerConfig config(Map<String, Object> overrides) {
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        configs.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        configs.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        configs.putAll(overrides);
        return new ProducerConfig(configs);
    }

    private static Sensor countSensor(Metrics metrics, String name, String group, Map<String, String> tags) {
        Sensor sensor = metrics.sensor(group + "." + name + "." + tags);
        sensor.add(metrics.metricName(name, group, "counted", tags), new CumulativeCount());
        return sensor;
    }

    /** Writes down what it is told, under the client id it was configured with. */
    public static final class RecordingReporter implements MetricsReporter {

        static final Map<String, RecordingReporter> BY_CLIENT_ID = new ConcurrentHashMap<>();

        final List<String> events = new ArrayList<>();
        Map<String, String> context = Map.of();

        @Override
        public void configure(Map<String, ?> configs) {
            BY_CLIENT_ID.put((String) configs.get(CommonClientConfigs.CLIENT_ID_CONFIG), this);
        }

        @Override
        public void contextChange(MetricsContext metricsContext) {
            context = metricsContext.contextLabels();
            events.add("context " + context.get(MetricsContext.NAMESPACE));
        }

        @Override
        public void init(List<KafkaMetric> metrics) {
            events.add("init");
        }

        @Override
        public void metricChange(KafkaMetric metric) {
            events.add("change " + metric.metricName().group() + " " + metric.metricName().name());
        }

        @Override
        public void metricRemoval(KafkaMetric metric) {
            events.add("removal " + metric.metricName().group() + " " + metric.metricName().name());
        }

        @Override
        public void close() {
            events.add("close");
        }
    }
}
