package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.message.FetchResponseData;

class FetchTallyTest {

    private static final RecordDecoding<String, String> STRINGS = new RecordDecoding<>(
            new StringDeserializer(), new StringDeserializer(), IsolationLevel.READ_UNCOMMITTED, true);

    private final Metrics metrics = new Metrics();
    private final ConsumerMetrics consumer = new ConsumerMetrics(metrics, Time.SYSTEM);

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void testAResponseIsReportedOnlyOnceEveryPartitionInItIsDoneWith() {
        FetchTally tally = new FetchTally(consumer, Set.of("orders"));
        PartitionRecords<String, String> first = records(0, "a", "b");
        PartitionRecords<String, String> second = records(1, "c");
        tally.awaits();
        tally.awaits();
        tally.seal();
        first.take(2);
        second.take(1);

        tally.taken(first);
        assertThat(total("records-consumed-total")).isZero();
        tally.taken(second);

        assertThat(total("records-consumed-total")).isEqualTo(3.0);
        assertThat(total("records-per-request-avg")).isEqualTo(3.0);
        assertThat(total("bytes-consumed-total")).isEqualTo(first.bytesTaken() + second.bytesTaken());
    }

    @Test
    void testRecordsDroppedUntakenDoNotCount() {
        FetchTally tally = new FetchTally(consumer, Set.of("orders"));
        PartitionRecords<String, String> dropped = records(0, "a", "b", "c");
        tally.awaits();
        tally.seal();
        dropped.take(1);

        tally.taken(dropped);

        assertThat(total("records-consumed-total")).isEqualTo(1.0);
    }

    @Test
    void testAResponseWithoutRecordsIsReportedWhenSealedWithEveryTopicAtZero() {
        FetchTally tally = new FetchTally(consumer, Set.of("orders"));

        tally.seal();

        assertThat(total("fetch-size-max")).isZero();
        assertThat(value(metrics.metricName("records-consumed-total", ConsumerMetrics.KAFKA_GROUP, Map.of("topic", "orders"))))
                .isZero();
    }

    private static PartitionRecords<String, String> records(int partition, String... values) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), Compression.NONE, TimestampType.CREATE_TIME, 0);
        for (String value : values) {
            builder.append(1_000L, null, value.getBytes());
        }
        FetchResponseData.PartitionData data = new FetchResponseData.PartitionData().setPartitionIndex(partition)
                .setRecords(builder.build());
        return new PartitionRecords<>(new TopicPartition("orders", partition), 0, data, STRINGS);
    }

    private double total(String name) {
        return value(metrics.metricName(name, ConsumerMetrics.KAFKA_GROUP));
    }

    private double value(MetricName name) {
        return ((Number) metrics.metric(name).metricValue()).doubleValue();
    }
}
