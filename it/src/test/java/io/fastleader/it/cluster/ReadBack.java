package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads partitions from their beginning to their current end with kafka-clients' own consumer. */
public final class ReadBack {

    private ReadBack() {
    }

    /** The end offset of each of {@code partitions}. */
    public static Map<TopicPartition, Long> endOffsets(Map<String, Object> clientConfig, Set<TopicPartition> partitions) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(clientConfig, new StringDeserializer(), new StringDeserializer())) {
            return consumer.endOffsets(partitions, Duration.ofSeconds(60));
        }
    }

    /** Every record of {@code partitions}: partition, then offset to value. */
    public static Map<TopicPartition, Map<Long, String>> readAll(Map<String, Object> clientConfig, Set<TopicPartition> partitions) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<TopicPartition, Map<Long, String>> records = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Await.until("reading " + partitions.size() + " partitions to their end", Duration.ofSeconds(120), () -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    records.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), tp -> new HashMap<>())
                        .put(record.offset(), record.value());
                }
                return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
            });
        }
        return records;
    }
}
