package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.BrokerConnectionException;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;

class ReplicaPrewarmTest {

    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private final Metrics metrics = new Metrics();
    /** Every connect the pool makes, by node id; each is refused, and the clock never moves, so a backoff never ends. */
    private final List<Integer> connects = new CopyOnWriteArrayList<>();
    private final ConnectionPool pool = new ConnectionPool(ConnectionConfig.defaults("prewarm-test"), PoolConfig.defaults(),
            () -> 0L, (nodeId, address, config) -> {
                connects.add(nodeId);
                throw new BrokerConnectionException("connection refused (scripted)", null);
            }, () -> 0.5, (task, delayNanos) -> { });
    private final LeaderCache cache = new LeaderCache(new MetadataMetrics(metrics), nodes -> {
        Map<Integer, InetSocketAddress> addresses = new HashMap<>();
        nodes.forEach((id, endpoint) -> addresses.put(id, endpoint.address()));
        pool.updateNodes(addresses);
    });

    @AfterEach
    void close() {
        pool.close();
        metrics.close();
    }

    @Test
    void aBrokerMadeLeaderIsConnectedToAtOnceThoughThePoolBacksOffFromIt() {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 4, 1).build(), 1);
        // Broker 2 was down: its connect failed, and the pool backs off from it.
        assertThat(pool.connect(2).handle((ignored, failure) -> failure).join()).isInstanceOf(CompletionException.class);
        ReplicaPrewarm prewarm = new ReplicaPrewarm(pool, cache, topic -> true);
        prewarm.follow(Runnable::run);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 5, 2).build(), 2);

        awaitUntil(() -> connects.stream().filter(node -> node == 2).count() == 2, "a second connect to broker 2, its new leader");
    }

    @Test
    void aLeaderChangesBrokersAreConnectedToOnTheMetadataThreadAndOnlyItsNewLeaderInTheWrite() throws Exception {
        Metrics metadataMetrics = new Metrics();
        ClusterMetadata metadata = new ClusterMetadata(MetadataConfig.defaults(), pool, List.of(new InetSocketAddress("127.0.0.1", 9)),
                new MetadataMetrics(metadataMetrics), () -> 0L, () -> 0.5);
        CountDownLatch metadataThreadHeld = new CountDownLatch(1);
        try {
            List<Thread> askedOn = new CopyOnWriteArrayList<>();
            ReplicaPrewarm.start(metadata, pool, topic -> askedOn.add(Thread.currentThread()), Duration.ofHours(1));
            metadata.executor().execute(() -> awaitQuietly(metadataThreadHeld));

            // Written on this thread, as a sender or a polling consumer applies a hint.
            metadata.cache().applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 4, 1).build(), 1);

            assertThat(askedOn).containsExactly(Thread.currentThread());
            awaitUntil(() -> connects.contains(1), "a connect to leader 1, asked for in the write");
            assertThat(connects).containsExactly(1);
            metadataThreadHeld.countDown();
            awaitUntil(() -> connects.containsAll(List.of(2, 3)), "connects to followers 2 and 3");
            assertThat(askedOn).hasSize(2);
            assertThat(askedOn.get(1).getName()).startsWith("fastleader-metadata-");
            assertThat(connects).containsExactlyInAnyOrder(1, 2, 3);
        } finally {
            metadataThreadHeld.countDown();
            metadata.close();
            metadataMetrics.close();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits, up to 10 s, for the pool's loop to do what {@code condition} expects. */
    private static void awaitUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("still waiting for %s", what).isNegative();
            Thread.onSpinWait();
        }
    }
}
