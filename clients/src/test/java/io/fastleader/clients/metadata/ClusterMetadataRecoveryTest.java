package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Eventually;
import io.fastleader.clients.metadata.MetadataConfig.RecoveryStrategy;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBroker;

/**
 * {@code metadata.recovery.strategy} in {@link ClusterMetadata}: when the client goes back to its
 * bootstrap servers, against scripted brokers on a clock the test moves. Scripted node 1 plays the
 * bootstrap server; what its answers name as the cluster's brokers is up to each test. A refresh
 * after a failure waits out the backoff on the test's clock, so the test moves the clock and asks
 * again after each failure.
 */
@Timeout(60)
class ClusterMetadataRecoveryTest {

    private static final long TRIGGER_MS = 60_000;
    private static final int BOOTSTRAP = 1;
    private static final String TOPIC = "orders";
    private static final String CLUSTER = "the-cluster";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Metrics metrics = new Metrics();
    private final AtomicInteger bootstrapRequests = new AtomicInteger();
    private final AtomicInteger knownBrokerRequests = new AtomicInteger();
    /** What the bootstrap server names as the brokers. */
    private volatile MetadataResponseBroker named;
    /** The error the known broker (node 0) answers with; NONE answers. */
    private volatile ErrorCode knownBrokerError = ErrorCode.NONE;
    private ScriptedBrokers brokers;
    private ConnectionPool pool;
    private ClusterMetadata metadata;

    @AfterEach
    void stop() throws Exception {
        metadata.close();
        pool.close();
        brokers.close();
        metrics.close();
    }

    @Test
    void testGoesBackToTheBootstrapServersOnceNoKnownBrokerCanBeReached() throws Exception {
        startKnowingADeadBroker(RecoveryStrategy.REBOOTSTRAP);

        refreshAndAwaitFailures(1);
        askAgain();

        Eventually.until("a second request to the bootstrap server", Duration.ofSeconds(10), () -> bootstrapRequests.get() == 2);
    }

    @Test
    void testNeverGoesBackToTheBootstrapServersWithStrategyNone() throws Exception {
        startKnowingADeadBroker(RecoveryStrategy.NONE);

        refreshAndAwaitFailures(1);
        askAgain();
        Eventually.until("the second failed request", Duration.ofSeconds(10), () -> failures() == 2);
        askAgain();
        Eventually.until("the third failed request", Duration.ofSeconds(10), () -> failures() == 3);

        assertThat(bootstrapRequests).hasValue(1);
    }

    @Test
    void testGoesBackToTheBootstrapServersWhenABrokerAnswersRebootstrapRequired() throws Exception {
        startKnowingNode0(RecoveryStrategy.REBOOTSTRAP);
        knownBrokerError = ErrorCode.REBOOTSTRAP_REQUIRED;

        refreshAndAwaitFailures(1);
        askAgain();

        Eventually.until("a second request to the bootstrap server", Duration.ofSeconds(10), () -> bootstrapRequests.get() == 2);
        assertThat(knownBrokerRequests).hasValue(1);
    }

    @Test
    void testGoesBackToTheBootstrapServersAfterTheTriggerTimeWithoutAnAnswer() throws Exception {
        startKnowingNode0(RecoveryStrategy.REBOOTSTRAP);
        knownBrokerError = ErrorCode.UNKNOWN_SERVER_ERROR;

        refreshAndAwaitFailures(1);
        clock.addAndGet(TRIGGER_MS - 20_000);
        askAgain();
        Eventually.until("the second failed request, 10 s before the trigger time", Duration.ofSeconds(10), () -> failures() == 2);
        askAgain();
        Eventually.until("the third failed request, at the trigger time", Duration.ofSeconds(10), () -> failures() == 3);
        assertThat(bootstrapRequests).as("before the rebootstrap's first request").hasValue(1);
        askAgain();

        Eventually.until("a second request to the bootstrap server", Duration.ofSeconds(10), () -> bootstrapRequests.get() == 2);
        assertThat(knownBrokerRequests).hasValue(3);
    }

    @Test
    void testGoesBackToTheBootstrapServersWhenAKnownBrokersAddressServesAnotherCluster() throws Exception {
        startKnowingNode0(RecoveryStrategy.REBOOTSTRAP);
        brokers.checkClusterOf(0, "another-cluster");

        refreshAndAwaitFailures(1);
        askAgain();

        Eventually.until("a second request to the bootstrap server", Duration.ofSeconds(10), () -> bootstrapRequests.get() == 2);
        assertThat(knownBrokerRequests).as("requests the other cluster's broker answered").hasValue(0);
        assertThat(refreshes(RefreshCause.REBOOTSTRAP)).isEqualTo(1);
    }

    @Test
    void testAKnownBrokerThatIsTheNodeOfTheClusterIsAskedAfterItsCheck() throws Exception {
        startKnowingNode0(RecoveryStrategy.REBOOTSTRAP);
        brokers.checkClusterOf(0, CLUSTER);

        askAgain();

        Eventually.until("a request to node 0", Duration.ofSeconds(10), () -> knownBrokerRequests.get() == 1);
        assertThat(brokers.apiVersionsNaming(0)).containsExactly(CLUSTER + "/0");
    }

    @Test
    void testNamesNoClusterWithStrategyNone() throws Exception {
        startKnowingNode0(RecoveryStrategy.NONE);
        brokers.checkClusterOf(0, "another-cluster");

        askAgain();

        Eventually.until("a request to node 0, which checks nothing it is not asked to", Duration.ofSeconds(10), () -> knownBrokerRequests.get() == 1);
        assertThat(brokers.apiVersionsNaming(0)).containsExactly("nothing");
    }

    @Test
    void testAnAnswerFromTheBootstrapServersMakesTheBrokersItNamesTheOnesAsked() throws Exception {
        startKnowingADeadBroker(RecoveryStrategy.REBOOTSTRAP);
        refreshAndAwaitFailures(1);
        named = broker(0, brokers.port(0));
        askAgain();
        Eventually.until("a second request to the bootstrap server", Duration.ofSeconds(10), () -> bootstrapRequests.get() == 2);
        Eventually.until("the answer naming node 0 applied", Duration.ofSeconds(10), () -> metadata.cache().node(0) != null);

        askAgain();

        Eventually.until("a request to node 0", Duration.ofSeconds(10), () -> knownBrokerRequests.get() == 1);
        assertThat(bootstrapRequests).hasValue(2);
    }

    /** Starts with a bootstrap server whose answers name node 5 at a port nothing listens on, and takes the first. */
    private void startKnowingADeadBroker(RecoveryStrategy strategy) throws Exception {
        start(strategy);
        named = broker(5, Eventually.refusingPort());
        metadata.awaitTopics(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
    }

    /** Starts with a bootstrap server whose answers name node 0, scripted broker 0, and takes the first. */
    private void startKnowingNode0(RecoveryStrategy strategy) throws Exception {
        start(strategy);
        named = broker(0, brokers.port(0));
        metadata.awaitTopics(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
    }

    private void start(RecoveryStrategy strategy) throws IOException {
        MetadataConfig config = new MetadataConfig(Duration.ofMinutes(5), Duration.ofMillis(100), Duration.ofMillis(1000),
                Duration.ofMillis(300), true, MetadataConfig.NO_IDLE_EXPIRY, true, strategy, Duration.ofMillis(TRIGGER_MS),
                strategy == RecoveryStrategy.REBOOTSTRAP, MetadataConfig.RESOLVED_AT_CONSTRUCTION);
        brokers = new ScriptedBrokers(2, (node, api, request) -> answer(node));
        pool = new ConnectionPool(ConnectionConfig.defaults("recovery-test"), PoolConfig.defaults());
        metadata = new ClusterMetadata(config, pool, List.of(new InetSocketAddress("127.0.0.1", brokers.port(BOOTSTRAP))),
                new MetadataMetrics(metrics), clock::get, () -> 0.5);
    }

    private ApiMessage answer(int node) {
        MetadataResponseData answer = brokers.metadataAnswer(TOPIC, TOPIC_ID, named.nodeId(), 1).setClusterId(CLUSTER);
        answer.brokers().clear();
        answer.brokers().add(named.duplicate());
        if (node == BOOTSTRAP) {
            bootstrapRequests.incrementAndGet();
            return answer;
        }
        knownBrokerRequests.incrementAndGet();
        return knownBrokerError == ErrorCode.NONE ? answer : new MetadataResponseData().setErrorCode(knownBrokerError.code());
    }

    /** Asks for the topic again past the last backoff, and waits until that many requests in all have failed. */
    private void refreshAndAwaitFailures(int failures) throws InterruptedException {
        askAgain();
        Eventually.until(failures + " failed requests", Duration.ofSeconds(10), () -> failures() == failures);
    }

    private void askAgain() {
        clock.addAndGet(10_000);
        metadata.onLeaderError(List.of(TOPIC));
    }

    private double refreshes(RefreshCause cause) {
        return (double) metrics.metric(metrics.metricName("metadata-refreshes-total", MetadataMetrics.GROUP,
                Map.of("cause", cause.metricTag()))).metricValue();
    }

    private double failures() {
        return (double) metrics.metric(metrics.metricName("metadata-refresh-failures-total", MetadataMetrics.GROUP, Map.of()))
                .metricValue();
    }

    private static MetadataResponseBroker broker(int nodeId, int port) {
        return new MetadataResponseBroker().setNodeId(nodeId).setHost("127.0.0.1").setPort(port);
    }


}
