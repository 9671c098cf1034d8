package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;

@NeedsKafkaClientsNewerThan37
class ConsumerRecordsFactoryTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 0);
    private static final Map<TopicPartition, List<ConsumerRecord<String, String>>> RECORDS =
            Map.of(PARTITION, List.of(new ConsumerRecord<>("orders", 0, 7, "k", "v")));
    private static final Map<TopicPartition, OffsetAndMetadata> NEXT = Map.of(PARTITION, new OffsetAndMetadata(8, Optional.of(3), ""));

    @Test
    void testRecordsCarryTheirNextOffsetsWhereKafkaClientsKeepsThem() {
        ConsumerRecords<String, String> records = ConsumerRecordsFactory.ON_CLASSPATH.records(RECORDS, NEXT);

        assertThat(records.records(PARTITION)).extracting(ConsumerRecord::offset).containsExactly(7L);
        assertThat(records.nextOffsets()).isEqualTo(NEXT);
    }

    @Test
    void testRecordsGoWithoutNextOffsetsWhereKafkaClientsHasNoConstructorForThem() {
        ConsumerRecordsFactory asIn3x = new ConsumerRecordsFactory(Optional.empty());

        ConsumerRecords<String, String> records = asIn3x.records(RECORDS, NEXT);

        assertThat(records.records(PARTITION)).extracting(ConsumerRecord::offset).containsExactly(7L);
        assertThat(records.nextOffsets()).isEmpty();
    }
}
