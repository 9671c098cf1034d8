package io.fastleader.it.transactions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.fastleader.it.cluster.Await;

/** What a {@code read_committed} {@code KafkaConsumer} reads: the judge of what transactions wrote. */
final class ReadCommitted {

    private ReadCommitted() {
    }

    /**
     * Every record a read_committed KafkaConsumer returns from the first {@code partitions}
     * partitions of {@code topic}, read from the beginning up to the end offsets it is given (the
     * last stable ones).
     */
    static List<ConsumerRecord<String, String>> records(Map<String, Object> clientConfig, String topic, int partitions) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assigned.add(new TopicPartition(topic, p));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> end = consumer.endOffsets(assigned);
            Await.until("reading " + topic + " up to " + end, Duration.ofSeconds(60), () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return assigned.stream().allMatch(p -> consumer.position(p) >= end.get(p));
            });
        }
        return records;
    }

    /** The values of {@link #records}. */
    static List<String> values(Map<String, Object> clientConfig, String topic, int partitions) {
        return records(clientConfig, topic, partitions).stream().map(ConsumerRecord::value).toList();
    }
}
