package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;

/** The end-to-end check of every smoke test: nothing acknowledged was lost or moved. */
public final class AckedRecords {

    private AckedRecords() {
    }

    /** Every record the producer sent was acknowledged, and reads back at the offset it was acknowledged at. */
    public static void assertAllReadBack(SteadyProducer producer, Map<String, Object> clientConfig) {
        assertThat(producer.failures()).isEmpty();
        assertThat(producer.ackedCount()).isEqualTo(producer.sentCount());

        Map<TopicPartition, Map<Long, String>> read = ReadBack.readAll(clientConfig, producer.acked().keySet());

        producer.acked().forEach((partition, acked) ->
            assertThat(read.get(partition)).as("records of %s", partition).containsAllEntriesOf(acked));
    }

    /**
     * Stronger, for a producer that sent round-robin over partitions: every record sent was
     * acknowledged and reads back at its offset, and each partition's log holds exactly what was
     * sent to it, in send order (nothing lost, duplicated or reordered).
     */
    public static void assertAllReadBackOnceInSendOrder(SteadyProducer producer, Map<String, Object> clientConfig) {
        assertWrittenOnceInSendOrder(producer, ReadBack.readAll(clientConfig, producer.sentInOrder().keySet()));
    }

    /**
     * As {@link #assertAllReadBackOnceInSendOrder}, against the part of the log this producer
     * wrote: {@code written} holds, per partition, the records from the offset where the
     * producer started on.
     */
    public static void assertWrittenOnceInSendOrder(SteadyProducer producer, Map<TopicPartition, Map<Long, String>> written) {
        assertThat(producer.failures()).isEmpty();
        assertThat(producer.ackedCount()).isEqualTo(producer.sentCount());
        producer.acked().forEach((partition, acked) ->
            assertThat(written.get(partition)).as("records of %s", partition).containsAllEntriesOf(acked));
        producer.sentInOrder().forEach((partition, sent) ->
            assertThat(new TreeMap<>(written.getOrDefault(partition, Map.of())).values()).as("log of %s", partition)
                .containsExactlyElementsOf(sent));
    }
}
