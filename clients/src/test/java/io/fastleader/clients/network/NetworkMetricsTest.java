package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NetworkMetricsTest {

    private static final String CLIENT_GROUP = "producer-metrics";
    private static final String NODE_GROUP = "producer-node-metrics";

    private final Metrics metrics = new Metrics();
    private final NetworkMetrics network = new NetworkMetrics(metrics, CLIENT_GROUP, NODE_GROUP);

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void testRequestTotalCountsEveryRequestOfEveryConnection() {
        network.connectionTo(1).sent(ApiKey.PRODUCE, 100);
        network.connectionTo(2).sent(ApiKey.METADATA, 40);
        network.connectionTo(1).sent(ApiKey.PRODUCE, 100);

        assertThat(clientMetric("request-total")).isEqualTo(3.0);
    }

    @Test
    void testRequestsTotalCountsEachApiUnderItsProtocolGuideName() {
        ConnectionListener connection = network.connectionTo(1);
        connection.sent(ApiKey.PRODUCE, 100);
        connection.sent(ApiKey.OFFSET_FOR_LEADER_EPOCH, 30);
        connection.sent(ApiKey.PRODUCE, 100);

        assertThat(value(perApi("Produce"))).isEqualTo(2.0);
        assertThat(value(perApi("OffsetForLeaderEpoch"))).isEqualTo(1.0);
    }

    @Test
    void testAnApisMetricAppearsWithItsFirstRequest() {
        network.connectionTo(1).sent(ApiKey.FETCH, 60);

        assertThat(metrics.metrics()).containsKey(perApi("Fetch")).doesNotContainKey(perApi("Metadata"));
    }

    @Test
    void testConnectionCountIsConnectionsOpenedMinusClosed() {
        ConnectionListener first = network.connectionTo(1);
        ConnectionListener second = network.connectionTo(2);
        first.connected();
        second.connected();
        first.closed();

        assertThat(clientMetric("connection-count")).isEqualTo(1.0);
        assertThat(clientMetric("connection-creation-total")).isEqualTo(2.0);
        assertThat(clientMetric("connection-close-total")).isEqualTo(1.0);
    }

    @Test
    void testBytesAndSizesAreSummedOverRequestsAndResponses() {
        ConnectionListener connection = network.connectionTo(1);
        connection.sent(ApiKey.PRODUCE, 100);
        connection.sent(ApiKey.PRODUCE, 300);
        connection.received(50);

        assertThat(clientMetric("outgoing-byte-total")).isEqualTo(400.0);
        assertThat(clientMetric("request-size-avg")).isEqualTo(200.0);
        assertThat(clientMetric("request-size-max")).isEqualTo(300.0);
        assertThat(clientMetric("incoming-byte-total")).isEqualTo(50.0);
        assertThat(clientMetric("response-total")).isEqualTo(1.0);
    }

    @Test
    void testNetworkIoCountsRequestsAndResponses() {
        ConnectionListener connection = network.connectionTo(1);
        connection.sent(ApiKey.FETCH, 60);
        connection.received(500);
        connection.sent(ApiKey.FETCH, 60);

        assertThat(clientMetric("network-io-total")).isEqualTo(3.0);
    }

    @Test
    void testEachNodesTrafficIsReportedUnderItsNodeId() {
        network.connectionTo(1).sent(ApiKey.PRODUCE, 100);
        network.connectionTo(-1).sent(ApiKey.METADATA, 40);
        network.connectionTo(1).received(30);

        assertThat(value(nodeMetric("outgoing-byte-total", "node-1"))).isEqualTo(100.0);
        assertThat(value(nodeMetric("request-total", "node-1"))).isEqualTo(1.0);
        assertThat(value(nodeMetric("incoming-byte-total", "node-1"))).isEqualTo(30.0);
        assertThat(value(nodeMetric("outgoing-byte-total", "node--1"))).isEqualTo(40.0);
    }

    @Test
    void testANodesLatencySensorIsThereOnceItsFirstConnectionIs() {
        assertThat(metrics.getSensor(NetworkMetrics.latencySensorName(3))).isNull();

        network.connectionTo(3);
        metrics.getSensor(NetworkMetrics.latencySensorName(3)).record(12);

        assertThat(value(nodeMetric("request-latency-max", "node-3"))).isEqualTo(12.0);
    }

    @Test
    void testRequestsInFlightAreWrittenAndNotYetAnswered() {
        ConnectionListener connection = network.connectionTo(1);
        connection.sent(ApiKey.PRODUCE, 100);
        connection.sent(ApiKey.PRODUCE, 100);
        connection.received(30);

        assertThat(network.requestsInFlight()).isEqualTo(1);
    }

    @Test
    void testARequestWithoutResponseLeavesFlightOnceWrittenAndCountsNoResponse() {
        ConnectionListener connection = network.connectionTo(1);
        connection.sent(ApiKey.PRODUCE, 100);

        connection.writtenWithoutResponse();

        assertThat(network.requestsInFlight()).isZero();
        assertThat(clientMetric("request-total")).isEqualTo(1.0);
        assertThat(clientMetric("response-total")).isZero();
    }

    @Test
    void testAClosedConnectionTakesItsUnansweredRequestsOutOfFlight() {
        ConnectionListener broken = network.connectionTo(1);
        ConnectionListener healthy = network.connectionTo(2);
        broken.connected();
        healthy.connected();
        broken.sent(ApiKey.PRODUCE, 100);
        broken.sent(ApiKey.PRODUCE, 100);
        healthy.sent(ApiKey.PRODUCE, 100);

        broken.closed();

        assertThat(network.requestsInFlight()).isEqualTo(1);
    }

    @Test
    void testAuthenticationsAreCountedBySuccessAndFailure() {
        ConnectionListener connection = network.connectionTo(1);
        connection.authenticated();
        connection.authenticationFailed();
        connection.authenticated();

        assertThat(clientMetric("successful-authentication-total")).isEqualTo(2.0);
        assertThat(clientMetric("failed-authentication-total")).isEqualTo(1.0);
    }

    @Test
    void testEachSelectCountsItsWaitAndItsIoApart() {
        network.selected(300, 100);
        network.selected(500, 0);

        assertThat(clientMetric("select-total")).isEqualTo(2.0);
        assertThat(clientMetric("io-wait-time-ns-total")).isEqualTo(800.0);
        assertThat(clientMetric("io-wait-time-ns-avg")).isEqualTo(400.0);
        assertThat(clientMetric("io-time-ns-total")).isEqualTo(100.0);
        assertThat(clientMetric("io-time-ns-avg")).isEqualTo(50.0);
    }

    private double clientMetric(String name) {
        return value(metrics.metricName(name, CLIENT_GROUP));
    }

    private MetricName nodeMetric(String name, String nodeId) {
        return metrics.metricName(name, NODE_GROUP, Map.of("node-id", nodeId));
    }

    private MetricName perApi(String api) {
        return metrics.metricName("requests-total", NetworkMetrics.GROUP, Map.of("api", api));
    }

    private double value(MetricName name) {
        return ((Number) metrics.metric(name).metricValue()).doubleValue();
    }
}
