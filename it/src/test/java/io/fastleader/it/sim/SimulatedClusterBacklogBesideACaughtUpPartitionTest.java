package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.protocol.ApiKey;

/**
 * FastLeaderConsumer and KafkaConsumer 4.3.1 read a backlog beside a caught-up partition of the
 * same leader, on a one-broker simulated cluster: while the backlog's records are still buffered
 * neither sends that leader a Fetch, which would be held for {@code fetch.max.wait.ms} with the
 * caught-up partition alone and keep the backlog's next Fetch waiting behind it. The Fetches the
 * broker served are counted. {@code BacklogBesideACaughtUpPartitionOnRealBrokersTest} does the
 * same on a real broker.
 */
class SimulatedClusterBacklogBesideACaughtUpPartitionTest {

    private static final String TOPIC = "backlog";
    private static final TopicPartition BACKLOGGED = new TopicPartition(TOPIC, 0);
    private static final TopicPartition CAUGHT_UP = new TopicPartition(TOPIC, 1);
    private static final int RECORDS = 3_000;
    /** A batch, and so a Fetch answer for the backlog, holds a little more than a poll takes. */
    private static final int BATCH_BYTES = 1024;
    private static final int MAX_POLL_RECORDS = 50;
    /**
     * One Fetch per batch reads the backlog: fewer than one per {@link #MAX_POLL_RECORDS}; a few
     * more for the start and the last long poll. A Fetch for the caught-up partition alone while
     * the backlog is buffered costs about one more per batch (106 here before that was fixed).
     */
    private static final int FETCHES_FOR_THE_BACKLOG = RECORDS / MAX_POLL_RECORDS + 10;

    @ParameterizedTest
    @ValueSource(strings = {"fastleader", "kafka"})
    void readsTheBacklogWithAboutOneFetchPerBatch(String client) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(1)) {
            cluster.createTopic(TOPIC, 2, 1);
            writeBacklog(cluster);
            long fetchesBefore = cluster.requestsServed(ApiKey.FETCH);
            try (Consumer<String, String> consumer = consumer(client, cluster)) {
                consumer.assign(List.of(BACKLOGGED, CAUGHT_UP));
                int read = 0;
                // bounds a hang, never asserted
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (read < RECORDS && System.nanoTime() < deadline) {
                    read += consumer.poll(Duration.ofMillis(100)).count();
                }
                assertThat(read).as("records read").isEqualTo(RECORDS);
            }
            assertThat(cluster.requestsServed(ApiKey.FETCH) - fetchesBefore).as("Fetches served")
                .isLessThanOrEqualTo(FETCHES_FOR_THE_BACKLOG);
        }
    }

    /** {@link #RECORDS} records to {@link #BACKLOGGED} in full batches of {@link #BATCH_BYTES}; none to {@link #CAUGHT_UP}. */
    private static void writeBacklog(SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
        // Longer than the writing takes: only a full batch goes before the flush.
        config.put(ProducerConfig.LINGER_MS_CONFIG, 10_000);
        try (Producer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, BACKLOGGED.partition(), null, String.format("value-%04d", i)));
            }
            producer.flush();
        }
    }

    private static Consumer<String, String> consumer(String client, SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, BATCH_BYTES);
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 4 * BATCH_BYTES);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        return client.equals("kafka")
            ? new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())
            : new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }
}
