package io.fastleader.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.network.NetworkMetrics;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * {@link FastLeaderConsumer} on a real one-broker Kafka 4.3.1 cluster, whose one broker is both the
 * leader a Fetch long-polls and the group's coordinator: a Kafka broker reads one request per
 * connection at a time, so group requests must not share the connection of a Fetch it holds.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CommitBesideALongPollFetchOnRealBrokersTest {

    private static final TopicPartition PARTITION = new TopicPartition("quiet", 0);
    /** Far longer than the commit may take, and shorter than the consumer's request timeout. */
    private static final int FETCH_MAX_WAIT_MS = 20_000;

    @Test
    void commitSyncIsAnsweredWhileAFetchToTheCoordinatorsBrokerLongPolls(
        @Cluster(brokers = 1, execution = Execution.IN_JVM) KafkaTestCluster cluster) {
        try (Disturbances disturbances = new Disturbances(cluster)) {
            disturbances.createTopic(new NewTopic(PARTITION.topic(), 1, (short) 1));
        }
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "commit-beside-long-poll");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS);
        // Nothing is ever produced: the broker holds each Fetch for fetch.max.wait.ms.
        config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1024 * 1024);
        try (FastLeaderConsumer<String, String> consumer =
                 new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(PARTITION));
            // The first polls find the coordinator and the committed offset (none), then the position; then the Fetch goes out.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (fetchesSent(consumer) == 0 && System.nanoTime() < deadline) {
                assertThat(consumer.poll(Duration.ofMillis(100))).isEmpty();
            }
            assertThat(fetchesSent(consumer)).as("Fetches sent").isEqualTo(1);

            // Throws a TimeoutException if the commit waits behind the Fetch, as on a shared connection.
            consumer.commitSync(Map.of(PARTITION, new OffsetAndMetadata(0)), Duration.ofSeconds(5));

            assertThat(consumer.committed(Set.of(PARTITION), Duration.ofSeconds(5)))
                .isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(0)));
        }
    }

    private static double fetchesSent(FastLeaderConsumer<String, String> consumer) {
        return Consumption.metric(consumer.metrics(), NetworkMetrics.GROUP, "requests-total", Map.of("api", "Fetch"));
    }
}
