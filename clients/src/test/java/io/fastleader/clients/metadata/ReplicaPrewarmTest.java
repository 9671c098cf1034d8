package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
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
        cache.addListener(prewarm, Runnable::run);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 5, 2).build(), 2);

        awaitUntil(() -> connects.stream().filter(node -> node == 2).count() == 2, "a second connect to broker 2, its new leader");
    }

    /** Waits, up to 10 s, for the pool's connect threads to do what {@code condition} expects. */
    private static void awaitUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("still waiting for %s", what).isNegative();
            Thread.onSpinWait();
        }
    }
}
