package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.parity.TelemetryCollector.Push;

/**
 * Client telemetry (KIP-714) on a real broker with a telemetry plugin installed
 * ({@link TelemetryCollector}) and a client metrics subscription asking every client for every
 * {@code org.apache.kafka.} metric each 500 ms: KafkaProducer / KafkaConsumer 4.3.1 and
 * fastleader's drop-ins each push under the client instance id {@code clientInstanceId} returns,
 * name themselves, push what kafka-clients pushes (fastleader's own extra metrics aside, and the
 * ones {@link MetricNamesParityTest#NOT_REPORTED} lists), a consumer labelled with its group member
 * id; fastleader's clients each send one terminating push as they close, and it is their last.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClientTelemetryParityTest {

    private static final String TOPIC = "telemetry";
    private static final String METRIC_PREFIX = "org.apache.kafka.";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void start() throws Exception {
        cluster = ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM)
                .brokerConfig("metric.reporters", TelemetryCollector.class.getName())
                .start();
        disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(TOPIC, 1, (short) 1));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "every-client"), List.of(
                    new AlterConfigOp(new ConfigEntry("metrics", METRIC_PREFIX), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("interval.ms", "500"), AlterConfigOp.OpType.SET)))).all().get();
        }
    }

    @AfterAll
    static void stop() {
        if (disturbances != null) {
            disturbances.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void testProducerPushesKafkaProducersMetricsUnderItsClientInstanceIdAndATerminatingPushOnClose() throws Exception {
        Map<Flavour, Uuid> instanceIds = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String clientId = "telemetry-producer-" + flavour.name().toLowerCase();
            try (Producer<String, String> producer = flavour.producer(config(Map.of("client.id", clientId)))) {
                producer.send(new ProducerRecord<>(TOPIC, "key", "value")).get();
                Uuid instanceId = producer.clientInstanceId(WAIT);
                assertThat(instanceId).as(flavour + " client instance id").isNotNull();
                Await.until(flavour + "'s push of record-send-total", WAIT,
                        () -> pushedNames(instanceId).contains(METRIC_PREFIX + "producer.record.send.total"));
                instanceIds.put(flavour, instanceId);
            }
            assertThat(TelemetryCollector.pushesFrom(instanceIds.get(flavour))).as(flavour + " pushes")
                    .allMatch(push -> push.clientId().equals(clientId));
        }

        // Only fastleader's producer is held to the terminating push: KafkaProducer 4.3.1 makes one only if a request
        // is still in flight as it closes (a difference listed in clients/README.md).
        assertTerminatedOnce(instanceIds.get(Flavour.FASTLEADER));
        assertThat(pushedNames(instanceIds.get(Flavour.FASTLEADER)))
                .containsAll(reportedByBoth(pushedNames(instanceIds.get(Flavour.KAFKA))));
    }

    @Test
    void testConsumerPushesLabelledWithItsGroupMemberIdAndATerminatingPushOnClose() throws Exception {
        for (Flavour flavour : Flavour.values()) {
            String memberId;
            Uuid instanceId;
            try (Consumer<String, String> consumer = flavour.consumer(config(Map.of(
                    ConsumerConfig.GROUP_ID_CONFIG, "telemetry-" + flavour.name().toLowerCase(),
                    ConsumerConfig.CLIENT_ID_CONFIG, "telemetry-consumer-" + flavour.name().toLowerCase())))) {
                consumer.subscribe(List.of(TOPIC));
                Await.until(flavour + "'s assignment", WAIT, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return !consumer.assignment().isEmpty();
                });
                memberId = consumer.groupMetadata().memberId();
                instanceId = consumer.clientInstanceId(WAIT);
                assertThat(instanceId).as(flavour + " client instance id").isNotNull();
                Await.until(flavour + "'s push labelled with member id " + memberId, WAIT, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return TelemetryCollector.pushesFrom(instanceId).stream()
                            .anyMatch(push -> memberId.equals(push.resourceAttributes().get("group_member_id")));
                });
            }

            if (flavour == Flavour.FASTLEADER) {
                assertTerminatedOnce(instanceId);
            }
            assertThat(pushedNames(instanceId)).as(flavour + " pushed names").contains(METRIC_PREFIX + "consumer.fetch.manager.records.consumed.total");
        }
    }

    /** The client's last push is its one terminating push: its close waits for the broker to take it. */
    private static void assertTerminatedOnce(Uuid instanceId) {
        List<Push> pushes = TelemetryCollector.pushesFrom(instanceId);
        assertThat(pushes.stream().filter(Push::terminating)).as("terminating pushes").hasSize(1);
        assertThat(pushes.get(pushes.size() - 1).terminating()).as("the last push terminates").isTrue();
    }

    private static Map<String, Object> config(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.putAll(overrides);
        return config;
    }

    private static Set<String> pushedNames(Uuid instanceId) {
        return TelemetryCollector.pushesFrom(instanceId).stream()
                .flatMap(push -> push.metricNames().stream())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** {@code names} without those of the metrics fastleader does not report, as their telemetry names end. */
    private static Set<String> reportedByBoth(Set<String> names) {
        Set<String> notReported = MetricNamesParityTest.NOT_REPORTED.keySet().stream()
                .map(name -> "." + name.replace('-', '.'))
                .collect(Collectors.toSet());
        return names.stream()
                .filter(name -> notReported.stream().noneMatch(name::endsWith))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
