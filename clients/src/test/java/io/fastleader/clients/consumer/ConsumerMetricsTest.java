package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.NetworkMetrics;

class ConsumerMetricsTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final ManualTime time = new ManualTime();
    private final Metrics metrics = new Metrics(new MetricConfig(), time);
    private final ConsumerMetrics consumer = new ConsumerMetrics(metrics, time);

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void testLastPollSecondsAgoIsMinusOneBeforeTheFirstPoll() {
        assertThat(clientMetric("last-poll-seconds-ago")).isEqualTo(-1.0);
    }

    @Test
    void testLastPollSecondsAgoCountsWholeSecondsSinceThePollStarted() {
        consumer.pollStarted();
        consumer.pollEnded();
        time.sleep(2_500);

        assertThat(clientMetric("last-poll-seconds-ago")).isEqualTo(2.0);
    }

    @Test
    void testTimeBetweenPollsRunsFromOnePollsStartToTheNext() {
        consumer.pollStarted();
        time.sleep(30);
        consumer.pollEnded();
        time.sleep(70);
        consumer.pollStarted();

        assertThat(clientMetric("time-between-poll-max")).isEqualTo(100.0);
    }

    @Test
    void testPollIdleRatioIsTheShareOfTimeBetweenPollsSpentInsidePoll() {
        consumer.pollStarted();
        consumer.pollEnded();
        time.sleep(60);
        consumer.pollStarted();
        time.sleep(20);
        consumer.pollEnded();

        // The first poll took no time and nothing came before it: wholly idle (1.0); the second 20 of 80 ms.
        assertThat(clientMetric("poll-idle-ratio-avg")).isEqualTo((1.0 + 0.25) / 2);
    }

    @Test
    void testRecordsLagMaxIsTheLargestLagOfAnyPartition() {
        consumer.lag(P0, 461);
        consumer.lag(P1, 12);
        consumer.lag(P0, 300);

        assertThat(fetchMetric("records-lag-max", Map.of())).isEqualTo(461.0);
        assertThat(fetchMetric("records-lag", partition(P0))).isEqualTo(300.0);
        assertThat(fetchMetric("records-lag-max", partition(P0))).isEqualTo(461.0);
        assertThat(fetchMetric("records-lag-avg", partition(P0))).isEqualTo(380.5);
    }

    @Test
    void testRecordsLeadMinIsTheSmallestLeadOfAnyPartition() {
        consumer.lead(P0, 40);
        consumer.lead(P1, 7);

        assertThat(fetchMetric("records-lead-min", Map.of())).isEqualTo(7.0);
        assertThat(fetchMetric("records-lead", partition(P0))).isEqualTo(40.0);
        assertThat(fetchMetric("records-lead-min", partition(P1))).isEqualTo(7.0);
    }

    @Test
    void testPreferredReadReplicaIsTheLeaderForEveryAssignedPartition() {
        consumer.assigned(P0);

        assertThat(fetchMetric("preferred-read-replica", partition(P0))).isEqualTo(-1.0);
    }

    @Test
    void testPartitionMetricsAreTaggedTopicThenPartitionAsJmxNamesOrderThem() {
        consumer.assigned(P0);
        consumer.lag(P0, 5);

        assertThat(metrics.metrics().keySet()).filteredOn(name -> name.tags().containsKey("partition"))
                .isNotEmpty().allSatisfy(name -> assertThat(name.tags().keySet()).containsExactly("topic", "partition"));
    }

    @Test
    void testUnassigningRemovesThePartitionsMetrics() {
        consumer.assigned(P0);
        consumer.lag(P0, 5);
        consumer.lead(P0, 5);

        consumer.unassigned(P0);

        assertThat(metrics.metrics().keySet()).noneMatch(name -> name.tags().containsKey("partition"));
    }

    @Test
    void testAResponsesTotalsMakeFetchSizeAndRecordsPerRequest() {
        consumer.responseFetched(1_000, 10);
        consumer.responseFetched(3_000, 30);

        assertThat(fetchMetric("fetch-size-avg", Map.of())).isEqualTo(2_000.0);
        assertThat(fetchMetric("fetch-size-max", Map.of())).isEqualTo(3_000.0);
        assertThat(fetchMetric("bytes-consumed-total", Map.of())).isEqualTo(4_000.0);
        assertThat(fetchMetric("records-per-request-avg", Map.of())).isEqualTo(20.0);
        assertThat(fetchMetric("records-consumed-total", Map.of())).isEqualTo(40.0);
    }

    @Test
    void testATopicsShareOfAResponseIsReportedUnderItsName() {
        consumer.topicFetched("orders", 500, 5);

        assertThat(fetchMetric("bytes-consumed-total", Map.of("topic", "orders"))).isEqualTo(500.0);
        assertThat(fetchMetric("records-consumed-total", Map.of("topic", "orders"))).isEqualTo(5.0);
        assertThat(fetchMetric("fetch-size-max", Map.of("topic", "orders"))).isEqualTo(500.0);
    }

    @Test
    void testADottedTopicIsAlsoReportedWithUnderscoresAsKafkaClients4Does() {
        TopicPartition dotted = new TopicPartition("shop.orders", 0);
        consumer.assigned(dotted);
        consumer.topicFetched("shop.orders", 500, 5);
        consumer.lag(dotted, 9);

        for (String topic : List.of("shop.orders", "shop_orders")) {
            assertThat(fetchMetric("bytes-consumed-total", Map.of("topic", topic))).as(topic).isEqualTo(500.0);
            assertThat(fetchMetric("records-lag", partition(new TopicPartition(topic, 0)))).as(topic).isEqualTo(9.0);
            assertThat(fetchMetric("preferred-read-replica", partition(new TopicPartition(topic, 0)))).as(topic).isEqualTo(-1.0);
        }
    }

    @Test
    void testATopicNamedWithUnderscoresKeepsItsMetricsBesideADottedOne() {
        consumer.topicFetched("shop_orders", 100, 1);
        consumer.topicFetched("shop.orders", 500, 5);

        assertThat(fetchMetric("bytes-consumed-total", Map.of("topic", "shop_orders"))).isEqualTo(100.0);
        assertThat(fetchMetric("bytes-consumed-total", Map.of("topic", "shop.orders"))).isEqualTo(500.0);
    }

    @Test
    void testUnassigningADottedTopicsPartitionRemovesBothItsNames() {
        TopicPartition dotted = new TopicPartition("shop.orders", 0);
        consumer.assigned(dotted);
        consumer.lag(dotted, 9);

        consumer.unassigned(dotted);

        assertThat(metrics.metrics().keySet()).noneMatch(name -> name.tags().containsKey("partition"));
    }

    @Test
    void testAFetchsLatencyCountsForItsNode() {
        new NetworkMetrics(metrics, ConsumerMetrics.CLIENT_GROUP, ConsumerMetrics.NODE_GROUP).connectionTo(2);

        consumer.fetchAnswered(2, 40);

        assertThat(value(metrics.metricName("request-latency-max", ConsumerMetrics.NODE_GROUP, Map.of("node-id", "node-2"))))
                .isEqualTo(40.0);
        assertThat(fetchMetric("fetch-latency-max", Map.of())).isEqualTo(40.0);
    }

    @Test
    void testCommitTimesAddUp() {
        consumer.commitSyncTook(1_000);
        consumer.commitSyncTook(2_000);
        consumer.committedTook(500);

        assertThat(clientMetric("commit-sync-time-ns-total")).isEqualTo(3_000.0);
        assertThat(clientMetric("committed-time-ns-total")).isEqualTo(500.0);
    }

    private static Map<String, String> partition(TopicPartition partition) {
        return Map.of("topic", partition.topic(), "partition", String.valueOf(partition.partition()));
    }

    private double clientMetric(String name) {
        return value(metrics.metricName(name, ConsumerMetrics.CLIENT_GROUP));
    }

    private double fetchMetric(String name, Map<String, String> tags) {
        return value(metrics.metricName(name, ConsumerMetrics.KAFKA_GROUP, tags));
    }

    private double value(MetricName name) {
        return ((Number) metrics.metric(name).metricValue()).doubleValue();
    }
}
