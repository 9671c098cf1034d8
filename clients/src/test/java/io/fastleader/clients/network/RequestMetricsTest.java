package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RequestMetricsTest {

    private final Metrics metrics = new Metrics();
    private final RequestMetrics requests = new RequestMetrics(metrics, "producer-metrics");

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void countsEveryRequestInTheKafkaGroupsRequestTotal() {
        requests.sent(ApiKey.PRODUCE);
        requests.sent(ApiKey.METADATA);
        requests.sent(ApiKey.PRODUCE);

        assertThat(value(metrics.metricName("request-total", "producer-metrics"))).isEqualTo(3.0);
    }

    @Test
    void countsEachApiUnderItsProtocolGuideName() {
        requests.sent(ApiKey.PRODUCE);
        requests.sent(ApiKey.OFFSET_FOR_LEADER_EPOCH);
        requests.sent(ApiKey.PRODUCE);

        assertThat(value(perApi("Produce"))).isEqualTo(2.0);
        assertThat(value(perApi("OffsetForLeaderEpoch"))).isEqualTo(1.0);
    }

    @Test
    void registersAnApisMetricOnlyOnceItsFirstRequestIsSent() {
        requests.sent(ApiKey.FETCH);

        assertThat(metrics.metrics()).containsKey(perApi("Fetch")).doesNotContainKey(perApi("Metadata"));
    }

    private MetricName perApi(String api) {
        return metrics.metricName("requests-total", RequestMetrics.GROUP, Map.of("api", api));
    }

    private double value(MetricName name) {
        return (double) metrics.metric(name).metricValue();
    }
}
