package io.fastleader.it.transactions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Disturbances;

/** What a {@code read_committed} {@code KafkaConsumer} reads: the judge of what transactions wrote. */
final class ReadCommitted {

    private ReadCommitted() {
    }

    /**
     * Every record a read_committed KafkaConsumer returns from the first {@code partitions}
     * partitions of {@code topic}, in offset order per partition, read from the beginning up to the
     * end offsets once they are stable. A commit returns before the coordinator has written its
     * markers, and a marker counts only once replicated: until no transaction is open on the topic
     * and each partition's last stable offset is its high watermark, the end offsets may stand
     * before the transaction's records.
     */
    static List<ConsumerRecord<String, String>> records(Admin admin, Map<String, Object> clientConfig, String topic,
                                                        int partitions) {
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assigned.add(new TopicPartition(topic, p));
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        Await.until("no transaction open on " + topic + " and its last stable offsets at the high watermarks",
                Disturbances.TIMEOUT, () -> {
                    boolean open = admin.describeProducers(assigned).all().get().values().stream()
                            .flatMap(producers -> producers.activeProducers().stream())
                            .anyMatch(producer -> producer.currentTransactionStartOffset().isPresent());
                    Map<TopicPartition, Long> stable = latestOffsets(admin, assigned, IsolationLevel.READ_COMMITTED);
                    end.putAll(stable);
                    return !open && stable.equals(latestOffsets(admin, assigned, IsolationLevel.READ_UNCOMMITTED));
                });
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Await.until("reading " + topic + " up to " + end, Duration.ofSeconds(60), () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return assigned.stream().allMatch(p -> consumer.position(p) >= end.get(p));
            });
        }
        return records;
    }

    private static Map<TopicPartition, Long> latestOffsets(Admin admin, List<TopicPartition> partitions, IsolationLevel isolation)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(partition -> latest.put(partition, OffsetSpec.latest()));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get()
                .forEach((partition, info) -> offsets.put(partition, info.offset()));
        return offsets;
    }
}
