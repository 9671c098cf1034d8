package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.NetworkMetrics;

class ProducerMetricsTest {

    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final TopicPartition PAYMENTS = new TopicPartition("payments", 0);
    private static final Header[] NO_HEADERS = new Header[0];

    private final Metrics metrics = new Metrics();
    private final ProducerMetrics producer = new ProducerMetrics(metrics);

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void testRecordsPerRequestCountsEveryBatchOfTheRequest() {
        producer.requestSent(List.of(batch(ORDERS, 0, 10, 10, 10), batch(PAYMENTS, 0, 10)), 0);
        producer.requestSent(List.of(batch(ORDERS, 0, 10)), 0);

        assertThat(kafka("records-per-request-avg")).isEqualTo(2.5);
        assertThat(kafka("record-send-total")).isEqualTo(5.0);
    }

    @Test
    void testRecordQueueTimeRunsFromTheBatchsCreationToItsSend() {
        producer.requestSent(List.of(batch(ORDERS, 100, 10)), 130);
        producer.requestSent(List.of(batch(ORDERS, 100, 10)), 110);

        assertThat(kafka("record-queue-time-max")).isEqualTo(30.0);
        assertThat(kafka("record-queue-time-avg")).isEqualTo(20.0);
    }

    @Test
    void testRecordSizeIsTheLargestRecordOfEachBatchAsKafkaEstimatesIt() {
        producer.requestSent(List.of(batch(ORDERS, 0, 10, 50)), 0);

        int largest = AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE.type(), null, new byte[50], NO_HEADERS);
        assertThat(kafka("record-size-max")).isEqualTo(largest);
        assertThat(kafka("record-size-avg")).isEqualTo(largest);
    }

    @Test
    void testBatchSizeAndCompressionRateAreThoseOfTheClosedBatch() {
        ProducerBatch batch = batch(ORDERS, 0, 10, 10);
        int closedBytes = batch.records().sizeInBytes();

        producer.requestSent(List.of(batch), 0);

        assertThat(kafka("batch-size-max")).isEqualTo(closedBytes);
        assertThat(kafka("compression-rate-avg")).isEqualTo(1.0);
    }

    @Test
    void testTopicMetricsAppearWithTheTopicsFirstBatch() {
        producer.requestSent(List.of(batch(ORDERS, 0, 10, 10)), 0);

        assertThat(topic("orders", "record-send-total")).isEqualTo(2.0);
        assertThat(topic("orders", "byte-total")).isPositive();
        assertThat(topic("orders", "record-retry-total")).isZero();
        assertThat(metrics.metrics().keySet()).noneMatch(name -> "payments".equals(name.tags().get("topic")));
    }

    @Test
    void testABatchSentAgainCountsItsRecordsAsRetriedForItsTopic() {
        ProducerBatch batch = batch(ORDERS, 0, 10, 10, 10);
        batch.markSent(0);

        producer.requestSent(List.of(batch), 0);

        assertThat(kafka("record-retry-total")).isEqualTo(3.0);
        assertThat(topic("orders", "record-retry-total")).isEqualTo(3.0);
    }

    @Test
    void testAFailedBatchCountsItsRecordsAsErrorsForItsTopic() {
        producer.batchFailed(batch(PAYMENTS, 0, 10, 10));

        assertThat(kafka("record-error-total")).isEqualTo(2.0);
        assertThat(topic("payments", "record-error-total")).isEqualTo(2.0);
    }

    @Test
    void testAnAnswerRecordsLatencyThrottleAndTheNodesLatency() {
        new NetworkMetrics(metrics, ProducerMetrics.KAFKA_GROUP, ProducerMetrics.NODE_GROUP).connectionTo(1);

        producer.requestAnswered(1, 25, 7);

        assertThat(kafka("request-latency-max")).isEqualTo(25.0);
        assertThat(kafka("produce-throttle-time-max")).isEqualTo(7.0);
        assertThat(value(metrics.metricName("request-latency-avg", ProducerMetrics.NODE_GROUP, Map.of("node-id", "node-1"))))
                .isEqualTo(25.0);
    }

    @Test
    void testBufferGaugesReadTheMemoryBudget() throws Exception {
        MemoryBudget memory = new MemoryBudget(1_000, 100, producer);
        producer.watchBuffer(memory);

        memory.reserve(300, 0);

        assertThat(kafka("buffer-total-bytes")).isEqualTo(1_000.0);
        assertThat(kafka("buffer-available-bytes")).isEqualTo(700.0);
        assertThat(kafka("waiting-threads")).isZero();
    }

    @Test
    void testAnAppendThatGivesUpWaitingForMemoryCountsAsExhausted() throws Exception {
        MemoryBudget memory = new MemoryBudget(100, 100, producer);
        memory.reserve(100, 0);

        assertThatThrownBy(() -> memory.reserve(10, 0)).isInstanceOf(BufferExhaustedException.class);

        assertThat(kafka("buffer-exhausted-total")).isEqualTo(1.0);
    }

    @Test
    void testRequestsInFlightAndMetadataAgeReadTheirSources() {
        producer.watch(() -> 3, () -> 2_500);

        assertThat(kafka("requests-in-flight")).isEqualTo(3.0);
        assertThat(kafka("metadata-age")).isEqualTo(2.5);
    }

    @Test
    void testTimesSpentInFlushAndWaitingForMetadataAddUp() {
        producer.flushed(1_000);
        producer.flushed(500);
        producer.metadataWaited(200);

        assertThat(kafka("flush-time-ns-total")).isEqualTo(1_500.0);
        assertThat(kafka("metadata-wait-time-ns-total")).isEqualTo(200.0);
    }

    /** A batch created at {@code createdMs} with records of these value sizes. */
    private static ProducerBatch batch(TopicPartition partition, long createdMs, int... valueSizes) {
        ProducerBatch batch = new ProducerBatch(partition, Compression.NONE, 16_384, createdMs);
        for (int size : valueSizes) {
            batch.tryAppend(createdMs, null, new byte[size], NO_HEADERS, null);
        }
        return batch;
    }

    private double kafka(String name) {
        return value(metrics.metricName(name, ProducerMetrics.KAFKA_GROUP));
    }

    private double topic(String topic, String name) {
        return value(metrics.metricName(name, ProducerMetrics.TOPIC_GROUP, Map.of("topic", topic)));
    }

    private double value(MetricName name) {
        return ((Number) metrics.metric(name).metricValue()).doubleValue();
    }
}
