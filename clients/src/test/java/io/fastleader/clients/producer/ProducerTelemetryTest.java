package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.telemetry.internals.ClientTelemetryUtils;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Eventually;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.GetTelemetrySubscriptionsRequestData;
import io.fastleader.protocol.message.GetTelemetrySubscriptionsResponseData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.PushTelemetryRequestData;
import io.fastleader.protocol.message.PushTelemetryResponseData;

/**
 * Client telemetry (KIP-714) of {@link FastLeaderProducer} against scripted brokers that play a
 * broker with a telemetry plugin: the subscription asked for, the client instance id it gives,
 * the pushes (OTLP, as kafka-clients' reporter encodes them) and the terminating push on close.
 */
@Timeout(60)
class ProducerTelemetryTest {

    private static final Uuid INSTANCE_ID = Uuid.randomUuid();
    private static final int SUBSCRIPTION_ID = 7;
    private static final String PRODUCER_METRICS = "org.apache.kafka.producer.";
    /** The prefix a subscription names to ask for every metric. */
    private static final String EVERY_METRIC = "";

    private final List<ApiKey> requests = new CopyOnWriteArrayList<>();
    private final List<GetTelemetrySubscriptionsRequestData> subscriptionRequests = new CopyOnWriteArrayList<>();
    private final List<PushTelemetryRequestData> pushes = new CopyOnWriteArrayList<>();
    private ScriptedBrokers brokers;
    private FastLeaderProducer<String, String> producer;

    @AfterEach
    void stop() throws Exception {
        if (producer != null) {
            producer.close(Duration.ZERO);
        }
        brokers.close();
    }

    @Test
    void testClientInstanceIdIsTheOneTheBrokerAssigned() throws Exception {
        start(true, Map.of());

        assertThat(producer.clientInstanceId(Duration.ofSeconds(10))).isEqualTo(INSTANCE_ID);
        assertThat(subscriptionRequests.get(0).clientInstanceId()).as("the first request asks for an id").isEqualTo(Uuid.ZERO_UUID);
    }

    @Test
    void testPushesTheSubscribedMetricsAsOtlpNamingTheSubscription() throws Exception {
        start(true, Map.of());

        Eventually.until("a push", Duration.ofSeconds(20), () -> !pushes.isEmpty());

        PushTelemetryRequestData push = pushes.get(0);
        assertThat(push.clientInstanceId()).isEqualTo(INSTANCE_ID);
        assertThat(push.subscriptionId()).isEqualTo(SUBSCRIPTION_ID);
        assertThat(push.terminating()).isFalse();
        assertThat(push.compressionType()).as("none accepted, none used").isZero();
        assertThat(metricNames(push)).allMatch(name -> name.startsWith("org.apache.kafka."))
                .contains(PRODUCER_METRICS + "record.send.total");
    }

    @Test
    void testPushesAnApplicationMetricRegisteredForSubscription() throws Exception {
        start(true, Map.of());
        MetricName name = new MetricName("orders-placed-total", "application-metrics", "", Map.of());
        producer.registerMetricForSubscription(new KafkaMetric(new Object(), name, new CumulativeSum(), new MetricConfig(), Time.SYSTEM));
        int before = pushes.size();

        Eventually.until("a push holding the application's metric", Duration.ofSeconds(20), () -> pushes.size() > before
                && metricNames(pushes.get(pushes.size() - 1)).stream().anyMatch(n -> n.contains("orders.placed")));
    }

    @Test
    void testSendsATerminatingPushOnClose() throws Exception {
        start(true, Map.of());
        Eventually.until("a first push", Duration.ofSeconds(20), () -> !pushes.isEmpty());

        producer.close(Duration.ofSeconds(10));
        producer = null;

        assertThat(pushes.get(pushes.size() - 1).terminating()).isTrue();
        assertThat(pushes.stream().filter(PushTelemetryRequestData::terminating)).hasSize(1);
    }

    @Test
    void testCloseWithoutTimeoutDoesNotWaitForABrokerToTakeTheTerminatingPush() throws Exception {
        start(true, Map.of());
        Eventually.until("a first push", Duration.ofSeconds(20), () -> !pushes.isEmpty());
        brokers.close();

        producer.close();
        producer = null;

        assertThat(pushes).noneMatch(PushTelemetryRequestData::terminating);
    }

    @Test
    void testHasNoClientInstanceIdAndAsksNothingWithEnableMetricsPushFalse() throws Exception {
        start(true, Map.of(ProducerConfig.ENABLE_METRICS_PUSH_CONFIG, false));
        producer.partitionsFor("orders");

        assertThatThrownBy(() -> producer.clientInstanceId(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Telemetry is not enabled. Set config `enable.metrics.push` to `true`.");
        producer.close(Duration.ofSeconds(10));
        producer = null;
        assertThat(requests).doesNotContain(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, ApiKey.PUSH_TELEMETRY);
    }

    @Test
    void testAsksNothingOfBrokersWithoutTelemetry() throws Exception {
        start(false, Map.of());
        producer.partitionsFor("orders");

        assertThat(producer.clientInstanceId(Duration.ofMillis(200))).as("no id without a broker to give one").isNull();
        producer.close(Duration.ofSeconds(10));
        producer = null;
        assertThat(requests).contains(ApiKey.METADATA).doesNotContain(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, ApiKey.PUSH_TELEMETRY);
    }

    private void start(boolean telemetryPlugin, Map<String, Object> overrides) throws Exception {
        brokers = new ScriptedBrokers(1, this::answer);
        if (telemetryPlugin) {
            brokers.advertiseClientTelemetry();
        }
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        configs.put(FastLeaderConfigs.CONNECTIONS_PREWARM, false);
        configs.putAll(overrides);
        producer = new FastLeaderProducer<>(configs, new StringSerializer(), new StringSerializer());
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        requests.add(api);
        return switch (api) {
            case METADATA -> {
                MetadataResponseData answer = brokers.metadataAnswer("orders", Uuid.randomUuid(), 0, 1);
                yield answer.setClusterId("telemetry-cluster");
            }
            case GET_TELEMETRY_SUBSCRIPTIONS -> {
                subscriptionRequests.add((GetTelemetrySubscriptionsRequestData) request);
                yield new GetTelemetrySubscriptionsResponseData()
                        .setClientInstanceId(INSTANCE_ID)
                        .setSubscriptionId(SUBSCRIPTION_ID)
                        .setPushIntervalMs(100)
                        .setTelemetryMaxBytes(1 << 20)
                        .setDeltaTemporality(true)
                        .setRequestedMetrics(List.of(EVERY_METRIC));
            }
            case PUSH_TELEMETRY -> {
                pushes.add((PushTelemetryRequestData) request);
                yield new PushTelemetryResponseData();
            }
            case INIT_PRODUCER_ID -> new InitProducerIdResponseData().setProducerId(1).setProducerEpoch((short) 0);
            default -> null;
        };
    }

    private static List<String> metricNames(PushTelemetryRequestData push) {
        ByteBuffer payload = push.metrics().duplicate();
        return ClientTelemetryUtils.deserializeMetricsData(payload).getResourceMetricsList().stream()
                .flatMap(resource -> resource.getScopeMetricsList().stream())
                .flatMap(scope -> scope.getMetricsList().stream())
                .map(metric -> metric.getName())
                .collect(Collectors.toList());
    }

}
