package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/** The end-to-end check of every smoke test: nothing acknowledged was lost or moved. */
final class AckedRecords {

    private AckedRecords() {
    }

    /** Every record the producer sent was acknowledged, and reads back at the offset it was acknowledged at. */
    static void assertAllReadBack(SteadyProducer producer, Map<String, Object> clientConfig) {
        assertThat(producer.failures()).isEmpty();
        assertThat(producer.ackedCount()).isEqualTo(producer.sentCount());

        Map<TopicPartition, Map<Long, String>> read = ReadBack.readAll(clientConfig, producer.acked().keySet());

        producer.acked().forEach((partition, acked) ->
            assertThat(read.get(partition)).as("records of %s", partition).containsAllEntriesOf(acked));
    }
}
