package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataRequestData.MetadataRequestTopic;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBroker;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;

/**
 * {@code metadata.max.idle.ms} in {@link ClusterMetadata}, which topics it asks for, and waits for a
 * partition a topic does not have yet, against a scripted broker on a clock the test moves. Metadata requests go no sooner than {@code retry.backoff.ms} after the last answer,
 * so the test moves the clock past it before asking for more.
 */
@Timeout(60)
class ClusterMetadataTopicExpiryTest {

    private static final long IDLE_MS = 300_000;
    private static final MetadataConfig CONFIG = new MetadataConfig(Duration.ofMillis(IDLE_MS), Duration.ofMillis(100),
            Duration.ofMillis(1000), Duration.ofMillis(300), true, Duration.ofMillis(IDLE_MS), true,
            MetadataConfig.RecoveryStrategy.REBOOTSTRAP, MetadataConfig.DEFAULT_REBOOTSTRAP_TRIGGER, true,
            MetadataConfig.RESOLVED_AT_CONSTRUCTION);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final List<Set<String>> requested = new CopyOnWriteArrayList<>();
    private final Metrics metrics = new Metrics();
    private volatile CountDownLatch answersHeld = new CountDownLatch(0);
    private volatile int partitionsPerTopic = 1;
    private ScriptedBrokers brokers;
    private ConnectionPool pool;
    private ClusterMetadata metadata;

    @AfterEach
    void stop() throws Exception {
        answersHeld.countDown();
        metadata.close();
        pool.close();
        brokers.close();
        metrics.close();
    }

    @Test
    void testATopicNotUsedForTheIdleTimeIsLeftOutOfTheNextRefresh() throws Exception {
        start();
        metadata.awaitTopics(List.of("orders", "payments")).get(10, TimeUnit.SECONDS);
        clock.addAndGet(IDLE_MS - 1_000);
        assertThat(metadata.recordUse("payments")).isTrue();
        clock.addAndGet(1_000);

        // A new topic sets off the refresh the periodic timer would: by now metadata.max.age.ms has passed too.
        metadata.awaitTopics(List.of("audit")).get(10, TimeUnit.SECONDS);

        assertThat(requested).containsExactly(Set.of("orders", "payments"), Set.of("audit", "payments"));
        assertThat(refreshes(RefreshCause.PERIODIC)).isEqualTo(1);
        assertThat(metadata.inUse("orders")).isFalse();
        assertThat(metadata.recordUse("orders")).isFalse();
    }

    @Test
    void testATopicUsedAgainAfterItsExpiryWaitsForItsMetadataAsANewTopicDoes() throws Exception {
        start();
        metadata.awaitTopics(List.of("orders")).get(10, TimeUnit.SECONDS);
        clock.addAndGet(IDLE_MS);
        metadata.awaitTopics(List.of("payments")).get(10, TimeUnit.SECONDS);
        assertThat(metadata.recordUse("orders")).isFalse();
        clock.addAndGet(1_000);
        answersHeld = new CountDownLatch(1);

        CompletableFuture<Void> back = metadata.awaitTopics(List.of("orders"));

        awaitRequestFor("orders", 3);
        assertThat(back).isNotDone();
        answersHeld.countDown();
        back.get(10, TimeUnit.SECONDS);
        assertThat(refreshes(RefreshCause.NEW_TOPIC)).isEqualTo(3);
        assertThat(metadata.inUse("orders")).isTrue();
        assertThat(metadata.recordUse("orders")).isTrue();
    }

    @Test
    void testATopicAlreadyInUseIsNotAskedForAgainWhenAwaitedAgain() throws Exception {
        start();
        metadata.awaitTopics(List.of("orders")).get(10, TimeUnit.SECONDS);
        clock.addAndGet(1_000);

        CompletableFuture<Void> again = metadata.awaitTopics(List.of("orders"));
        metadata.awaitTopics(List.of("payments")).get(10, TimeUnit.SECONDS);

        assertThat(again).isDone();
        assertThat(requested).containsExactly(Set.of("orders"), Set.of("payments"));
    }

    @Test
    void testAPartitionWaitAsksAgainAfterEachBackoffUntilAnAnswerShowsThePartition() throws Exception {
        start();
        metadata.awaitTopics(List.of("orders")).get(10, TimeUnit.SECONDS);
        clock.addAndGet(1_000);

        CompletableFuture<Void> third = metadata.awaitPartition(new TopicPartition("orders", 2));
        awaitRequestFor("orders", 2);
        awaitAnswerAppliedNow();
        assertThat(third).isNotDone();
        partitionsPerTopic = 3;
        clock.addAndGet(1_000);
        metadata.awaitTopics(List.of("payments")).get(10, TimeUnit.SECONDS);

        third.get(10, TimeUnit.SECONDS);
        assertThat(requested).hasSize(3);
        assertThat(metadata.cache().partitionCount("orders")).isEqualTo(3);
    }

    @Test
    void testACancelledPartitionWaitIsAskedForNoMore() throws Exception {
        start();
        metadata.awaitTopics(List.of("orders")).get(10, TimeUnit.SECONDS);
        clock.addAndGet(1_000);
        CompletableFuture<Void> third = metadata.awaitPartition(new TopicPartition("orders", 2));
        awaitRequestFor("orders", 2);
        awaitAnswerAppliedNow();

        third.cancel(false);
        clock.addAndGet(1_000);
        metadata.awaitTopics(List.of("payments")).get(10, TimeUnit.SECONDS);
        clock.addAndGet(1_000);
        metadata.awaitTopics(List.of("audit")).get(10, TimeUnit.SECONDS);

        assertThat(requested).hasSize(4);
        assertThat(requested.get(3)).isEqualTo(Set.of("audit"));
    }

    private void start() throws Exception {
        brokers = new ScriptedBrokers(1, (node, api, request) -> answer(api, request));
        pool = new ConnectionPool(ConnectionConfig.defaults("topic-expiry-test"), PoolConfig.defaults());
        metadata = new ClusterMetadata(CONFIG, pool, List.of(new InetSocketAddress("127.0.0.1", brokers.port(0))),
                new MetadataMetrics(metrics), clock::get, () -> 0.5);
    }

    private ApiMessage answer(ApiKey api, ApiMessage request) throws InterruptedException {
        if (api != ApiKey.METADATA) {
            throw new IllegalArgumentException("unexpected " + api);
        }
        Set<String> topics = new TreeSet<>();
        for (MetadataRequestTopic topic : ((MetadataRequestData) request).topics()) {
            topics.add(topic.name());
        }
        requested.add(topics);
        answersHeld.await();
        MetadataResponseData response = new MetadataResponseData();
        response.brokers().add(new MetadataResponseBroker().setNodeId(0).setHost("127.0.0.1").setPort(brokers.port(0)));
        for (String name : topics) {
            MetadataResponseTopic topic = new MetadataResponseTopic().setName(name).setTopicId(Uuid.randomUuid());
            for (int partition = 0; partition < partitionsPerTopic; partition++) {
                topic.partitions().add(new MetadataResponsePartition().setPartitionIndex(partition).setLeaderId(0)
                        .setLeaderEpoch(1).setReplicaNodes(List.of(0)).setIsrNodes(List.of(0)));
            }
            response.topics().add(topic);
        }
        return response;
    }

    /** Waits until the broker has been asked for {@code topic} in its {@code nth} request. */
    private void awaitRequestFor(String topic, int nth) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (requested.size() < nth && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(requested).hasSize(nth);
        assertThat(requested.get(nth - 1)).contains(topic);
    }

    /**
     * Waits for the answer to the last request to be applied at the clock's current reading: its
     * retry backoff then counts from there, and moving the clock past it lets the next request go.
     * An answer applied after the test moved the clock would hold every later request back.
     */
    private void awaitAnswerAppliedNow() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (metadata.ageMs() != 0) {
            assertThat(System.nanoTime() - deadline).as("still waiting for the answer to be applied").isNegative();
            Thread.onSpinWait();
        }
    }

    private double refreshes(RefreshCause cause) {
        return (double) metrics.metric(metrics.metricName("metadata-refreshes-total", MetadataMetrics.GROUP,
                Map.of("cause", cause.metricTag()))).metricValue();
    }
}
