package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Eventually;
import io.fastleader.clients.metadata.MetadataConfig.RecoveryStrategy;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;

/**
 * {@code bootstrap.resolve.timeout.ms} in {@link ClusterMetadata}: a client whose bootstrap
 * server's name never resolves fails for good once the timeout has passed on the test's clock; one
 * whose name resolves, though nothing answers there, keeps trying. The unresolvable name is under
 * {@code .invalid}, which no DNS may resolve (RFC 6761).
 */
@Timeout(120)
class ClusterMetadataBootstrapResolutionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String FAILURE = "Failed to resolve bootstrap servers after 60000ms. "
            + "Please check your bootstrap.servers configuration and DNS settings.";

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Metrics metrics = new Metrics();
    private ConnectionPool pool;
    private ClusterMetadata metadata;

    @AfterEach
    void stop() {
        metadata.close();
        pool.close();
        metrics.close();
    }

    @Test
    void testEveryWaitFailsForGoodOnceNoBootstrapNameResolvedWithinTheTimeout() throws Exception {
        start(InetSocketAddress.createUnresolved("bootstrap.fastleader.invalid", 9092));
        CompletableFuture<Void> wait = metadata.awaitTopics(List.of("orders"));
        Eventually.until("a first request whose bootstrap server's name did not resolve", Duration.ofSeconds(60), () -> failures() == 1);
        assertThat(wait).as("within the timeout").isNotDone();

        clock.addAndGet(TIMEOUT.toMillis());
        metadata.onLeaderError(List.of("orders"));

        assertThatThrownBy(() -> wait.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(KafkaException.class).hasMessage(FAILURE);
        assertThat(metadata.awaitTopics(List.of("payments"))).as("a later wait").isCompletedExceptionally();
    }

    @Test
    void testABootstrapServerWhoseNameResolvedIsTriedPastTheTimeout() throws Exception {
        start(new InetSocketAddress(InetAddress.getLoopbackAddress(), Eventually.refusingPort()));
        CompletableFuture<Void> wait = metadata.awaitTopics(List.of("orders"));
        Eventually.until("a first request, refused", Duration.ofSeconds(60), () -> failures() == 1);

        clock.addAndGet(TIMEOUT.toMillis());
        metadata.onLeaderError(List.of("orders"));
        Eventually.until("a second request, past the timeout", Duration.ofSeconds(60), () -> failures() == 2);

        assertThat(wait).isNotDone();
    }

    private void start(InetSocketAddress bootstrap) {
        MetadataConfig config = new MetadataConfig(Duration.ofMinutes(5), Duration.ofMillis(100), Duration.ofMillis(1000),
                Duration.ofMillis(300), true, MetadataConfig.NO_IDLE_EXPIRY, true, RecoveryStrategy.REBOOTSTRAP,
                MetadataConfig.DEFAULT_REBOOTSTRAP_TRIGGER, true, TIMEOUT);
        pool = new ConnectionPool(ConnectionConfig.defaults("resolution-test"), PoolConfig.defaults());
        metadata = new ClusterMetadata(config, pool, List.of(bootstrap), new MetadataMetrics(metrics), clock::get, () -> 0.5);
    }

    private double failures() {
        return (double) metrics.metric(metrics.metricName("metadata-refresh-failures-total", MetadataMetrics.GROUP, Map.of()))
                .metricValue();
    }


}
