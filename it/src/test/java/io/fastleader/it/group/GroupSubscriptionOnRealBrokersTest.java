package io.fastleader.it.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupSubscriptionOnRealBrokersTest {

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM, brokerConfig = {
            "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"}) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void close() {
        disturbances.close();
    }

    @Test
    void twoMembersSplitTheTopicAndReadEveryRecord() throws Exception {
        disturbances.createTopic(new NewTopic("split", 6, (short) 3));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 60; i++) {
                producer.send(new ProducerRecord<>("split", i % 6, "k", "v" + i)).get();
            }
        }
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "splitters");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> events = new ArrayList<>();
        try (FastLeaderConsumer<String, String> a = new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
             FastLeaderConsumer<String, String> b = new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            a.subscribe(List.of("split"), listener("a", events));
            b.subscribe(List.of("split"), listener("b", events));
            Set<String> seen = new HashSet<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((seen.size() < 60 || a.assignment().size() + b.assignment().size() != 6 || a.assignment().isEmpty() || b.assignment().isEmpty())
                    && System.nanoTime() < end) {
                for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(100))) {
                    seen.add(r.value());
                }
                for (ConsumerRecord<String, String> r : b.poll(Duration.ofMillis(100))) {
                    seen.add(r.value());
                }
            }
            System.out.println("EVENTS " + events);
            System.out.println("A " + a.assignment() + " B " + b.assignment() + " " + a.groupMetadata());
            assertThat(seen).hasSize(60);
            assertThat(a.assignment()).doesNotContainAnyElementsOf(b.assignment());
        }
    }

    private static ConsumerRebalanceListener listener(String name, List<String> events) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                events.add(name + " revoked " + partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                events.add(name + " assigned " + partitions);
            }
        };
    }
}
