package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.protocol.ApiKey;

/**
 * FastLeaderProducer and KafkaProducer 4.3.1, unmodified, produce keyed records to a 3-broker
 * simulated cluster while every partition's leader moves twice: once between two flushed thirds
 * of the records (so every partition's next batch goes to its old leader and is refused, a step
 * fixed by counts), and once while the last third is still being sent. Every record acknowledged
 * must be in the simulated log exactly once, at its acknowledged offset, in send order per
 * partition. With hints on, fastleader must have accepted KIP-951 hints; with hints off, the
 * clients find the new leaders through Metadata, which the simulation answers with them.
 */
class SimulatedClusterLeaderMoveTest {

    private static final int PARTITIONS = 6;
    private static final int RECORDS = 3_000;
    private static final String TOPIC = "moves";

    @ParameterizedTest(name = "{0}, hints {1}")
    @CsvSource({"fastleader, true", "fastleader, false", "kafka, true", "kafka, false"})
    void everyAcknowledgedRecordOnceAndInOrderThroughLeaderMoves(String client, boolean hints) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(3).hints(hints).start()) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            List<String> values = new ArrayList<>();
            List<RecordMetadata> acks = new ArrayList<>();
            long metadataBefore;
            long metadataRequestsSinceFirstMove;
            double hintsAccepted = -1;
            try (Producer<String, String> producer = producer(client, cluster)) {
                List<Future<RecordMetadata>> futures = new ArrayList<>();
                send(producer, TOPIC, 0, RECORDS / 3, futures, values);
                producer.flush();
                metadataBefore = cluster.requestsServed(ApiKey.METADATA);

                Map<TopicPartition, Integer> firstMove = cluster.moveLeaders(cluster.nextReplicas(TOPIC));
                assertThat(firstMove.values()).containsOnly(1);
                send(producer, TOPIC, RECORDS / 3, 2 * RECORDS / 3, futures, values);
                Map<TopicPartition, Integer> secondMove = cluster.moveLeaders(cluster.nextReplicas(TOPIC));
                assertThat(secondMove.values()).containsOnly(2);
                send(producer, TOPIC, 2 * RECORDS / 3, RECORDS, futures, values);
                producer.flush();
                metadataRequestsSinceFirstMove = cluster.requestsServed(ApiKey.METADATA) - metadataBefore;

                for (Future<RecordMetadata> future : futures) {
                    acks.add(future.get());
                }
                if (producer instanceof FastLeaderProducer<String, String> fastleader) {
                    hintsAccepted = metric(fastleader, MetadataMetrics.GROUP, "leader-hints-accepted-total");
                }
            }

            assertThat(acks).hasSize(RECORDS);
            Map<Integer, List<String>> sentPerPartition = new HashMap<>();
            for (int i = 0; i < RECORDS; i++) {
                sentPerPartition.computeIfAbsent(acks.get(i).partition(), k -> new ArrayList<>()).add(values.get(i));
            }
            assertThat(sentPerPartition).as("keys spread over every partition").hasSize(PARTITIONS);
            Map<Integer, List<LoggedRecord>> logs = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(TOPIC, p);
                List<LoggedRecord> log = cluster.records(tp);
                logs.put(p, log);
                List<String> sent = sentPerPartition.getOrDefault(p, List.of());
                assertThat(log).extracting(LoggedRecord::valueString)
                    .as("partition %d holds every record sent to it, once, in send order", p)
                    .containsExactlyElementsOf(sent);
                assertThat(cluster.highWatermark(tp)).isEqualTo(sent.size());
                for (int i = 0; i < log.size(); i++) {
                    assertThat(log.get(i).offset()).isEqualTo(i);
                }
                assertThat(log.get(log.size() - 1).leaderEpoch()).as("the last record was written by the last leader").isEqualTo(2);
            }
            for (int i = 0; i < RECORDS; i++) {
                RecordMetadata ack = acks.get(i);
                LoggedRecord logged = logs.get(ack.partition()).get((int) ack.offset());
                assertThat(logged.valueString()).as("the record acknowledged at %s", ack).isEqualTo(values.get(i));
            }
            if (client.equals("fastleader") && hints) {
                assertThat(hintsAccepted).as("KIP-951 hints accepted").isGreaterThan(0);
            }
            if (client.equals("fastleader") && !hints) {
                assertThat(hintsAccepted).as("no hint to accept").isZero();
            }
            if (!hints) {
                assertThat(metadataRequestsSinceFirstMove).as("Metadata refreshes that found the new leaders").isPositive();
            }
        }
    }

    /** Sends records {@code from} to {@code to} to {@code topic}, keyed over 30 keys (so the default partitioner spreads them), in order. */
    static void send(Producer<String, String> producer, String topic, int from, int to, List<Future<RecordMetadata>> futures,
                     List<String> values) {
        for (int i = from; i < to; i++) {
            String value = "value-" + i;
            values.add(value);
            futures.add(producer.send(new ProducerRecord<>(topic, "key-" + (i % 30), value)));
        }
    }

    /** A FastLeaderProducer or a KafkaProducer ({@code client} "fastleader" or "kafka") of {@code cluster}, acks=all, linger 1 ms. */
    static Producer<String, String> producer(String client, SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 2048);
        // bounds on a hang, never asserted
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        if (client.equals("fastleader")) {
            return new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
        }
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static double metric(FastLeaderProducer<?, ?> producer, String group, String name) {
        return producer.metrics().entrySet().stream()
            .filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(name))
            .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
