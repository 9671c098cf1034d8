package io.fastleader.examples.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The counting application of {@link FastLeaderClientSupplierTest} through a rolling restart of
 * every broker of a real 3-broker Kafka cluster in this JVM, the group coordinator's included,
 * while page views are written all along: once on Kafka's default clients and once on
 * {@link FastLeaderClientSupplier}'s, each with the same workload on topics of its own. Input,
 * output and the changelog have three replicas and {@code min.insync.replicas=2}. (The fixture
 * gives the offsets topic one replica, so while its broker restarts the group has no coordinator.)
 *
 * <p>At {@code at_least_once} nothing acknowledged may be missing: each user's final count is at
 * least the page views written and acknowledged for that user. A page view counted twice (a task
 * processing again from its last commit) is allowed, and printed.
 */
@ExtendWith(KafkaClusterExtension.class)
class StreamsThroughARollTest {

    private static final int PARTITIONS = 3;
    /** Nine, so that every partition has some: user-0 to user-7 all hash to partitions 1 and 2, user-8 to 0. */
    private static final int USERS = 9;
    /** The pause between two rounds of page views the writer writes: user {@code u} views {@code u + 1} pages a round. */
    private static final Duration ROUND_EVERY = Duration.ofMillis(50);
    /** How long the application may take to start, to commit all it read, and to count everything. */
    private static final Duration SETTLED_WITHIN = Duration.ofSeconds(60);
    private static final Map<String, String> MIN_ISR_2 = Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void startCluster(@Cluster(brokers = 3) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void testCountsEveryAcknowledgedPageViewThroughARollingRestartOfEveryBroker(StreamsClients clients) throws Exception {
        String input = "page-views-through-a-roll-on-" + clients.id();
        String applicationId = "counts-through-a-roll-on-" + clients.id();
        String output = PageViewCounts.output(applicationId);
        disturbances.createTopic(new NewTopic(input, PARTITIONS, (short) 3).configs(MIN_ISR_2));
        disturbances.createTopic(new NewTopic(output, PARTITIONS, (short) 3).configs(MIN_ISR_2));
        Properties properties = PageViewCounts.streamsProperties(cluster, applicationId, stateDir);
        // Streams' internal topics (here the changelog) as input and output.
        properties.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        properties.put(StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG), "2");
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);

        try (PageViewWriter writer = new PageViewWriter(input);
             CountingInstance instance = new CountingInstance(clients, properties, input)) {
            Await.until("the application running its " + PARTITIONS + " tasks and page views acknowledged", SETTLED_WITHIN, () -> {
                instance.failIfDied();
                return instance.isRunning() && instance.activeTasks().size() == PARTITIONS && writer.acknowledged() > 0;
            });
            String changelog = PageViewCounts.changelog(applicationId);
            assertThat(disturbances.awaitFullIsr(changelog).partitions())
                .as("partitions of %s, each with three replicas", changelog)
                .hasSize(PARTITIONS)
                .allMatch(partition -> partition.replicas().size() == 3);

            long rollStarted = System.nanoTime();
            disturbances.rollingRestart(StopStyle.GRACEFUL, Set.of(input, output, changelog));
            long rollEnded = System.nanoTime();
            Map<String, Long> acknowledged = writer.stop();
            instance.failIfDied();

            awaitEveryPageViewCommitted(applicationId, input, instance);
            Map<String, Long> counts = PageViewCounts.lastCounts(cluster, applicationId, acknowledged, SETTLED_WITHIN, instance);
            Duration lastCountAfterTheRoll = Duration.ofNanos(System.nanoTime() - rollEnded);

            long acknowledgedSum = acknowledged.values().stream().mapToLong(Long::longValue).sum();
            long countedSum = counts.values().stream().mapToLong(Long::longValue).sum();
            Map<String, Long> overCounted = new TreeMap<>();
            counts.forEach((user, count) -> {
                long over = count - acknowledged.getOrDefault(user, 0L);
                if (over != 0) {
                    overCounted.put(user, over);
                }
            });
            System.out.printf("streams through a roll on %s: %d page views written (%d acknowledged, %d failed), "
                    + "final counts sum to %d of %d acknowledged, over-counted %d %s, roll took %.1f s, "
                    + "last count read %.1f s after the roll's end%n",
                clients, writer.sent.get(), acknowledgedSum, writer.failed.get(), countedSum, acknowledgedSum,
                countedSum - acknowledgedSum, overCounted, (rollEnded - rollStarted) / 1e9, lastCountAfterTheRoll.toMillis() / 1e3);

            assertThat(counts.keySet()).as("users counted").isEqualTo(acknowledged.keySet());
            acknowledged.forEach((user, views) -> assertThat(counts.get(user))
                .as("%s's count: at least the %d page views acknowledged (counts %s)", user, views, counts)
                .isGreaterThanOrEqualTo(views));
            instance.failIfDied();
        }
    }

    /**
     * Waits until the application has committed its position at the end of every partition of
     * {@code input}: it read every page view, and wrote every count (at {@code at_least_once},
     * Streams flushes its producer before it commits), so no count can come later.
     */
    private static void awaitEveryPageViewCommitted(String applicationId, String input, CountingInstance instance) {
        AtomicReference<String> seen = new AtomicReference<>("nothing yet");
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Await.until("every page view of " + input + " committed by " + applicationId, SETTLED_WITHIN, () -> {
                instance.failIfDied();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    latest.put(new TopicPartition(input, partition), OffsetSpec.latest());
                }
                Map<TopicPartition, Long> ends = admin.listOffsets(latest).all().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, end -> end.getValue().offset()));
                Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata().get();
                seen.set("committed " + committed + ", ends " + ends + ", instance " + instance);
                // A partition no user's page views go to has no commit.
                return ends.entrySet().stream().allMatch(end -> end.getValue().longValue() == Optional.ofNullable(committed.get(end.getKey()))
                    .map(OffsetAndMetadata::offset).orElse(0L));
            });
        } catch (Await.ClusterStateTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; last seen: " + seen.get(), e);
        }
    }

    /**
     * Writes a round of page views every {@link #ROUND_EVERY} with Kafka's producer ({@code acks=all})
     * from its construction until {@link #stop()}, and counts each user's acknowledged ones.
     */
    private static final class PageViewWriter implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final ScheduledExecutorService rounds = Executors.newSingleThreadScheduledExecutor(
            runnable -> new Thread(runnable, "page-view-writer"));
        private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        PageViewWriter(String topic) {
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
            rounds.scheduleWithFixedDelay(() -> writeRound(topic), 0, ROUND_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void writeRound(String topic) {
            long round = sent.get();
            for (int user = 0; user < USERS; user++) {
                String key = "user-" + user;
                for (int view = 0; view <= user; view++) {
                    sent.incrementAndGet();
                    producer.send(new ProducerRecord<>(topic, key, "/page/" + round + "/" + view), (written, error) -> {
                        if (error == null) {
                            acknowledged.merge(key, 1L, Long::sum);
                        } else {
                            failed.incrementAndGet();
                        }
                    });
                }
            }
        }

        long acknowledged() {
            return acknowledged.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Stops writing and returns, once every page view sent is answered, each user's acknowledged ones. */
        Map<String, Long> stop() throws InterruptedException {
            rounds.shutdown();
            if (!rounds.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the page view writer did not stop within 30 s");
            }
            producer.flush();
            return new TreeMap<>(acknowledged);
        }

        @Override
        public void close() {
            rounds.shutdownNow();
            producer.close(Duration.ofSeconds(30));
        }
    }
}
