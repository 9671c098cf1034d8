package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.clients.consumer.ConsumerSettings;
import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.protocol.ApiKey;

/**
 * FastLeaderConsumer and KafkaConsumer 4.3.1, unmodified, read 3,000 records from 6 partitions of
 * a 3-broker simulated cluster, assigned without a group (group RPCs are not simulated) from the
 * earliest offset, while every partition's leader moves twice: once when a third of the records
 * have been read and once at two thirds, between two polls (a step fixed by counts). Small fetch
 * sizes keep the consumer fetching across both moves. Every partition must be read exactly as its
 * log holds it: each record once, in offset order. With hints on, fastleader must have followed a
 * move from a Fetch refusal's KIP-951 hint; with hints off, from Metadata only. fastleader checks
 * its position through Fetch's {@code LastFetchedEpoch}; with that turned off
 * ({@code fastleader-validating}), it validates it with OffsetForLeaderEpoch after each move, as
 * KafkaConsumer does.
 */
class SimulatedClusterConsumerLeaderMoveTest {

    private static final int PARTITIONS = 6;
    private static final int RECORDS = 3_000;
    private static final String TOPIC = "reads";

    @ParameterizedTest(name = "{0}, hints {1}")
    @CsvSource({"fastleader, true", "fastleader, false", "fastleader-validating, true", "fastleader-validating, false",
        "kafka, true", "kafka, false"})
    void everyRecordReadOnceAndInOffsetOrderThroughLeaderMoves(String client, boolean hints) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(3).hints(hints).start()) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            produce(cluster);
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            Map<TopicPartition, List<ConsumerRecord<String, String>>> read = new HashMap<>();
            List<Map<TopicPartition, Integer>> moves = new ArrayList<>();
            double movesFromHints;
            try (Consumer<String, String> consumer = consumer(client, cluster)) {
                consumer.assign(partitions);
                int count = 0;
                // bounds a hang, never asserted
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (count < RECORDS && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        read.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), k -> new ArrayList<>()).add(record);
                        count++;
                    }
                    if (moves.size() < 2 && count >= (moves.size() + 1) * RECORDS / 3) {
                        moves.add(cluster.moveLeaders(cluster.nextReplicas(TOPIC)));
                    }
                }
                movesFromHints = metric(consumer, MetadataMetrics.GROUP, "leader-moves-total", Map.of("source", "hint"));
            }

            assertThat(moves).as("two moves while reading").hasSize(2);
            assertThat(moves.get(0).values()).containsOnly(1);
            assertThat(moves.get(1).values()).containsOnly(2);
            for (TopicPartition tp : partitions) {
                List<LoggedRecord> log = cluster.records(tp);
                assertThat(log).as("records produced to %s", tp).isNotEmpty();
                List<ConsumerRecord<String, String>> got = read.getOrDefault(tp, List.of());
                assertThat(got).extracting(ConsumerRecord::offset).as("%s read once each, in offset order", tp)
                    .containsExactlyElementsOf(log.stream().map(LoggedRecord::offset).toList());
                assertThat(got).extracting(ConsumerRecord::value).as("%s values", tp)
                    .containsExactlyElementsOf(log.stream().map(LoggedRecord::valueString).toList());
            }
            assertThat(cluster.requestsServed(ApiKey.LIST_OFFSETS)).as("earliest offsets looked up").isPositive();
            long validations = cluster.requestsServed(ApiKey.OFFSET_FOR_LEADER_EPOCH);
            if (client.equals("fastleader")) {
                assertThat(validations).as("positions checked through LastFetchedEpoch instead").isZero();
            } else {
                assertThat(validations).as("positions validated after the moves").isPositive();
            }
            if (client.startsWith("fastleader")) {
                if (hints) {
                    assertThat(movesFromHints).as("moves fastleader followed from a Fetch hint").isPositive();
                } else {
                    assertThat(movesFromHints).as("no hint to follow").isZero();
                }
            }
        }
    }

    /** Produces the records, keyed over 30 keys so every partition gets some, in batches of about 1 KiB. */
    private static void produce(SimulatedCluster cluster) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 1024);
        List<Future<?>> acks = new ArrayList<>();
        try (Producer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, "key-" + (i % 30), "value-" + i)));
            }
            producer.flush();
        }
        for (Future<?> ack : acks) {
            ack.get();
        }
    }

    private static Consumer<String, String> consumer(String client, SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // a batch or two per partition per Fetch, so reading takes many Fetches, across both moves
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024);
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 4096);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50);
        if (client.equals("fastleader-validating")) {
            config.put(ConsumerSettings.LAST_FETCHED_EPOCH_ENABLED, false);
        }
        if (client.startsWith("fastleader")) {
            return new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        }
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    private static double metric(Consumer<?, ?> consumer, String group, String name, Map<String, String> tags) {
        return consumer.metrics().entrySet().stream()
            .filter(e -> matches(e.getKey(), group, name, tags))
            .mapToDouble(e -> ((Number) ((Metric) e.getValue()).metricValue()).doubleValue()).sum();
    }

    private static boolean matches(MetricName metric, String group, String name, Map<String, String> tags) {
        return metric.group().equals(group) && metric.name().equals(name) && metric.tags().entrySet().containsAll(tags.entrySet());
    }
}
