package io.fastleader.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * A backlog read beside a caught-up partition of the same leader, on a real one-broker Kafka 4.3.1
 * cluster and on a simulated one, by {@link FastLeaderConsumer} and by {@link KafkaConsumer}: while
 * the backlog's records are still buffered neither sends its leader a Fetch, which would hold the
 * caught-up partition alone for {@code fetch.max.wait.ms} and keep the backlog's next Fetch
 * waiting behind it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BacklogBesideACaughtUpPartitionOnRealBrokersTest {

    private static final String TOPIC = "backlog-beside-caught-up";
    private static final TopicPartition BACKLOGGED = new TopicPartition(TOPIC, 0);
    private static final TopicPartition CAUGHT_UP = new TopicPartition(TOPIC, 1);
    private static final int RECORDS = 3_000;
    /** A batch, and so a Fetch answer for the backlog, holds a little more than a poll takes. */
    private static final int BATCH_BYTES = 1024;
    private static final int MAX_POLL_RECORDS = 50;
    /**
     * One Fetch per batch reads the backlog: fewer than one per {@link #MAX_POLL_RECORDS}, since a
     * batch holds more records than that; a few more for the start and the last long poll.
     * Sending the leader a Fetch for the caught-up partition alone while the backlog is buffered
     * costs about one more per batch (106 here before that was fixed).
     */
    private static final int FETCHES_FOR_THE_BACKLOG = RECORDS / MAX_POLL_RECORDS + 10;

    @ParameterizedTest
    @EnumSource(value = Execution.class, names = {"IN_JVM", "SIMULATED"})
    void readsTheBacklogWithAboutOneFetchPerBatchAsKafkaConsumerDoes(Execution execution) {
        try (KafkaTestCluster cluster = ClusterSpec.builder().brokers(1).execution(execution).start()) {
            readTheBacklogWithEachClient(cluster);
        }
    }

    private static void readTheBacklogWithEachClient(KafkaTestCluster cluster) {
        try (Disturbances disturbances = new Disturbances(cluster)) {
            disturbances.createTopic(new NewTopic(TOPIC, 2, (short) 1));
        }
        writeBacklog(cluster);
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, BATCH_BYTES);
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 4 * BATCH_BYTES);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);

        double kafkaFetches;
        try (Consumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            kafkaFetches = fetchesToReadTheBacklog(consumer);
        }
        double fastleaderFetches;
        try (Consumer<String, String> consumer = new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            fastleaderFetches = fetchesToReadTheBacklog(consumer);
        }

        assertThat(kafkaFetches).as("KafkaConsumer's Fetches").isLessThanOrEqualTo(FETCHES_FOR_THE_BACKLOG);
        assertThat(fastleaderFetches).as("FastLeaderConsumer's Fetches (KafkaConsumer's: %s)", kafkaFetches)
            .isLessThanOrEqualTo(FETCHES_FOR_THE_BACKLOG);
    }

    /** {@link #RECORDS} records to {@link #BACKLOGGED} in full batches of {@link #BATCH_BYTES}; none to {@link #CAUGHT_UP}. */
    private static void writeBacklog(KafkaTestCluster cluster) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
        // Longer than the writing takes: only a full batch goes before the flush.
        config.put(ProducerConfig.LINGER_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, BACKLOGGED.partition(), null, String.format("value-%04d", i)));
            }
            producer.flush();
        }
    }

    /** Reads every record of the backlog, both partitions assigned: the Fetches it took ({@code fetch-total}). */
    private static double fetchesToReadTheBacklog(Consumer<String, String> consumer) {
        consumer.assign(List.of(BACKLOGGED, CAUGHT_UP));
        int read = 0;
        long deadline = System.nanoTime() + Consumption.TIMEOUT.toNanos();
        while (read < RECORDS && System.nanoTime() < deadline) {
            read += consumer.poll(Duration.ofMillis(100)).count();
        }
        assertThat(read).as("records read").isEqualTo(RECORDS);
        return Consumption.metric(consumer.metrics(), "consumer-fetch-manager-metrics", "fetch-total");
    }
}
