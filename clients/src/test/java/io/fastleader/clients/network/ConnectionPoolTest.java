package io.fastleader.clients.network;

import static io.fastleader.clients.network.FrameServer.ranges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupResponseData;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectionPoolTest {

    private static final ApiVersionsResponseData KAFKA_4_3 = ranges(ApiKey.API_VERSIONS, 0, 4, ApiKey.METADATA, 0, 13);
    /** A broker that speaks every API the client speaks, at every version it speaks. */
    private static final ApiVersionsResponseData EVERY_API = everyApi();
    // The connector routes to scripted FrameServers; these only show which address it was given.
    private static final InetSocketAddress NODE_1 = InetSocketAddress.createUnresolved("broker-1", 9092);
    private static final InetSocketAddress NODE_1_MOVED = InetSocketAddress.createUnresolved("broker-1b", 9092);
    private static final InetSocketAddress NODE_2 = InetSocketAddress.createUnresolved("broker-2", 9092);
    private static final long MAX_IDLE_MS = 540_000;

    private final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1));
    private final ScriptedConnector connector = new ScriptedConnector();
    private final List<FrameServer> brokers = new ArrayList<>();
    /** The idle sweeps the pool scheduled, in order; a test runs one when it has moved the clock. */
    private final List<Sweep> sweeps = new CopyOnWriteArrayList<>();
    private volatile double random = 0.5;
    private ConnectionPool pool;

    @BeforeEach
    void createPool() {
        pool = poolWith(ConnectionConfig.defaults("test-client"));
    }

    /** A pool of {@code config} on the test's clock, connector, random and sweeps, knowing nodes 1 and 2. */
    private ConnectionPool poolWith(ConnectionConfig config) {
        return poolWith(config, HostResolver.NONE);
    }

    /** A pool as {@link #poolWith(ConnectionConfig)}, whose nodes' names {@code resolver} resolves. */
    private ConnectionPool poolWith(ConnectionConfig config, HostResolver resolver) {
        ConnectionPool created = new ConnectionPool(config, PoolConfig.defaults(), nanos::get, connector,
            () -> random, (task, delayNanos) -> sweeps.add(new Sweep(task, delayNanos)), resolver);
        created.updateNodes(Map.of(1, NODE_1, 2, NODE_2));
        return created;
    }

    @AfterEach
    void close() {
        pool.close();
        brokers.forEach(FrameServer::close);
    }

    @Test
    void connectsOnceForConcurrentSendsWithoutBlockingThem() throws Exception {
        FrameServer broker = broker();
        connector.gate = new CompletableFuture<>();
        int senders = 8;
        ExecutorService threads = Executors.newFixedThreadPool(senders);
        List<CompletableFuture<ApiMessage>> responses = new ArrayList<>();
        try {
            CyclicBarrier start = new CyclicBarrier(senders);
            List<Future<CompletableFuture<ApiMessage>>> sends = new ArrayList<>();
            for (int i = 0; i < senders; i++) {
                sends.add(threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return pool.send(1, ApiKey.METADATA, new MetadataRequestData());
                }));
            }
            for (Future<CompletableFuture<ApiMessage>> send : sends) {
                responses.add(send.get(10, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(responses).as("every send returned while the connect was held").noneMatch(CompletableFuture::isDone);

        connector.gate.complete(null);
        broker.answerHandshake(KAFKA_4_3);
        for (int i = 0; i < senders; i++) {
            broker.respond(broker.read(), new MetadataResponseData().setClusterId("shared"));
        }

        for (CompletableFuture<ApiMessage> response : responses) {
            assertThat(clusterId(response)).isEqualTo("shared");
        }
        assertThat(connector.calls).hasValue(1);
        assertThat(connector.addresses).containsExactly(NODE_1);
    }

    @Test
    void aNodeIsBusyWhileARequestOnItsConnectionIsUnanswered() throws Exception {
        FrameServer broker = broker();
        assertThat(pool.isBusy(1)).as("no connection yet").isFalse();
        CompletableFuture<ApiMessage> response = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        broker.answerHandshake(KAFKA_4_3);
        FrameServer.Received request = broker.read();

        assertThat(pool.isBusy(1)).isTrue();
        assertThat(pool.isBusy(2)).isFalse();

        broker.respond(request, new MetadataResponseData().setClusterId("answered"));
        assertThat(clusterId(response)).isEqualTo("answered");
        assertThat(pool.isBusy(1)).isFalse();
    }

    @Test
    void aNodeIsReadyOnlyOnceItsConnectionIsSetUp() throws Exception {
        FrameServer broker = broker();
        assertThat(pool.isReady(1)).as("no connection yet").isFalse();
        CompletableFuture<Void> connected = pool.connect(1);
        assertThat(pool.isReady(1)).as("waiting for the handshake").isFalse();

        broker.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);

        // The connection is handed to every waiter before the pool marks it ready for later requests.
        spinUntil(() -> pool.isReady(1));
        assertThat(pool.isReady(1)).isTrue();
        assertThat(pool.isReady(2)).isFalse();
    }

    @Test
    void requestsSentWhileConnectingGoOutInOrder() throws Exception {
        FrameServer broker = broker();
        connector.gate = new CompletableFuture<>();
        List<CompletableFuture<ApiMessage>> responses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            responses.add(pool.send(1, ApiKey.METADATA, new MetadataRequestData()));
        }

        connector.gate.complete(null);
        broker.answerHandshake(KAFKA_4_3);
        for (int i = 0; i < 5; i++) {
            broker.respond(broker.read(), new MetadataResponseData().setClusterId("answer-" + i));
        }

        // The broker answers in the order it read, so each request got the answer to its own position.
        for (int i = 0; i < 5; i++) {
            assertThat(clusterId(responses.get(i))).isEqualTo("answer-" + i);
        }
    }

    @Test
    void replacesABrokenConnectionAtTheNextSendAtTheCurrentAddress() throws Exception {
        FrameServer first = broker();
        CompletableFuture<ApiMessage> cutOff = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        first.answerHandshake(KAFKA_4_3);
        first.read();
        first.disconnect();
        assertFailsWithConnectionError(cutOff);
        pool.updateNodes(Map.of(1, NODE_1_MOVED));

        FrameServer second = broker();
        CompletableFuture<ApiMessage> response = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        second.answerHandshake(KAFKA_4_3);
        second.respond(second.read(), new MetadataResponseData().setClusterId("replacement"));

        assertThat(clusterId(response)).isEqualTo("replacement");
        assertThat(connector.addresses).containsExactly(NODE_1, NODE_1_MOVED);
        assertThat(connector.opened.get(0).isOpen()).isFalse();
    }

    @Test
    void aRefusedConnectBacksOffAndFailsFastWithoutCallingTheConnector() throws Exception {
        connector.refuseNext();
        assertFailsWithConnectionError(pool.send(1, ApiKey.METADATA, new MetadataRequestData()))
            .hasMessageContaining("connection refused (scripted)");

        advanceMillis(49);
        CompletableFuture<ApiMessage> fast = pool.send(1, ApiKey.METADATA, new MetadataRequestData());

        assertThat(fast).isCompletedExceptionally();
        assertFailsWithConnectionError(fast).hasMessage("node 1 is backing off 50 ms after a failed connect, 1 ms left")
            .cause().hasMessageContaining("connection refused (scripted)");
        assertThat(connector.calls).hasValue(1);

        advanceMillis(1);
        connector.refuseNext();
        assertFailsWithConnectionError(pool.send(1, ApiKey.METADATA, new MetadataRequestData()))
            .hasMessageContaining("connection refused (scripted)");
        assertThat(connector.calls).hasValue(2);
    }

    @Test
    void theBackoffDoublesUpToTheMaximumAndResetsAfterASuccess() throws Exception {
        long[] backoffs = {50, 100, 200, 400, 800, 1000, 1000};
        for (long backoff : backoffs) {
            connector.refuseNext();
            assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("connection refused (scripted)");
            advanceMillis(backoff - 1);
            assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off " + backoff + " ms");
            advanceMillis(1);
        }
        assertThat(connector.calls).hasValue(backoffs.length);

        FrameServer broker = broker();
        CompletableFuture<Void> connected = pool.connect(1);
        broker.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);
        connector.opened.get(0).close();
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("connection refused (scripted)");

        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off 50 ms");
    }

    @Test
    void theSetupTimeoutDoublesWithEachFailedConnectUpToItsMaximumAndResetsAfterASuccess() throws Exception {
        failThriceThenConnectThenFailOnce();

        // socket.connection.setup.timeout.ms 10 s, .max.ms 30 s: kafka-clients' defaults, the random at the middle of its spread.
        assertThat(connector.setupTimeouts).containsExactly(10_000L, 20_000L, 30_000L, 30_000L, 10_000L);
    }

    @Test
    void eachFailedConnectTriesTheNodesNextAddressAndASuccessStartsAgainAtTheFirst() throws Exception {
        InetSocketAddress first = InetSocketAddress.createUnresolved("broker-1-first", 9092);
        InetSocketAddress second = InetSocketAddress.createUnresolved("broker-1-second", 9092);
        pool.close();
        pool = poolWith(ConnectionConfig.defaults("test-client"), broker -> List.of(first, second));
        failThriceThenConnectThenFailOnce();

        assertThat(connector.addresses).containsExactly(first, second, first, second, first);
    }

    /** Five connects to node 1 in a row, at once whatever the backoff: three refused, one that succeeds and closes, one refused. */
    private void failThriceThenConnectThenFailOnce() throws Exception {
        for (int failed = 0; failed < 3; failed++) {
            connector.refuseNext();
            assertFailsWithConnectionError(pool.connectNow(1)).hasMessageContaining("connection refused (scripted)");
        }
        FrameServer broker = broker();
        CompletableFuture<Void> connected = pool.connectNow(1);
        broker.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);
        connector.opened.get(0).close();
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connectNow(1)).hasMessageContaining("connection refused (scripted)");
    }

    @Test
    void aNodeWhoseNameDoesNotResolveFailsItsConnectAndBacksOff() throws Exception {
        pool.close();
        pool = poolWith(ConnectionConfig.defaults("test-client"), broker -> {
            throw new UnknownHostException(broker.getHostString() + ": Name or service not known");
        });

        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("cannot resolve broker-1 for node 1");
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off 50 ms");
        assertThat(connector.calls).hasValue(0);
    }

    @Test
    void eachSetupTimeoutIsSpreadByUpToTwentyPercent() throws Exception {
        random = 0.0;
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connectNow(1)).hasMessageContaining("connection refused (scripted)");
        random = 0.75;
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connectNow(1)).hasMessageContaining("connection refused (scripted)");

        assertThat(connector.setupTimeouts).containsExactly(8_000L, 22_000L);
    }

    @Test
    void connectNowConnectsToANodeStillBackingOffAndTheSendsWaitingForItGoOut() throws Exception {
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("connection refused (scripted)");
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off 50 ms");

        FrameServer broker = broker();
        CompletableFuture<Void> connected = pool.connectNow(1);
        CompletableFuture<ApiMessage> response = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        broker.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);
        broker.respond(broker.read(), new MetadataResponseData().setClusterId("back"));

        assertThat(clusterId(response)).isEqualTo("back");
        assertThat(connector.calls).hasValue(2);
    }

    @Test
    void aFailedConnectNowLeavesTheNodeBackingOffLonger() throws Exception {
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("connection refused (scripted)");
        connector.refuseNext();

        assertFailsWithConnectionError(pool.connectNow(1)).hasMessageContaining("connection refused (scripted)");

        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off 100 ms");
    }

    @Test
    void eachBackoffIsSpreadByUpToTwentyPercent() throws Exception {
        random = 0.0;
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("connection refused (scripted)");
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off 40 ms");

        advanceMillis(40);
        random = 0.75;
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("connection refused (scripted)");
        assertFailsWithConnectionError(pool.connect(1)).hasMessageContaining("backing off 110 ms");
    }

    @Test
    void connectOpensAheadOfNeedAndSendsReuseTheConnection() throws Exception {
        FrameServer broker = broker();
        CompletableFuture<Void> connected = pool.connect(1);
        broker.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);
        assertThat(connector.calls).hasValue(1);

        CompletableFuture<ApiMessage> response = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        broker.respond(broker.read(), new MetadataResponseData().setClusterId("ahead"));

        assertThat(clusterId(response)).isEqualTo("ahead");
        // The pool may still be handing the connection to its first waiters; what matters is that it opens no other.
        pool.connect(1).get(10, TimeUnit.SECONDS);
        assertThat(connector.calls).hasValue(1);
    }

    @Test
    void connectionsUnusedForMaxIdleAreClosed() throws Exception {
        FrameServer one = connectedBroker(1);
        connectedBroker(2);
        BrokerConnection toOne = connector.opened.get(0);
        BrokerConnection toTwo = connector.opened.get(1);

        advanceMillis(MAX_IDLE_MS - 1);
        sweepNow();
        assertThat(toOne.isOpen()).isTrue();
        assertThat(toTwo.isOpen()).isTrue();
        roundTrip(one);

        // Node 2 reaches max idle; any call to the pool closes it, here a send to node 1.
        advanceMillis(1);
        roundTrip(one);
        assertThat(toTwo.isOpen()).isFalse();
        assertThat(toOne.isOpen()).isTrue();

        advanceMillis(MAX_IDLE_MS);
        sweepNow();
        assertThat(toOne.isOpen()).isFalse();

        FrameServer again = broker();
        CompletableFuture<ApiMessage> response = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        again.answerHandshake(KAFKA_4_3);
        again.respond(again.read(), new MetadataResponseData().setClusterId("reconnected"));
        assertThat(clusterId(response)).isEqualTo("reconnected");
        assertThat(connector.calls).hasValue(3);
    }

    @Test
    void theSweepClosesAConnectionIdleForMaxIdleWithoutAnyCallToThePool() throws Exception {
        connectedBroker(1);
        BrokerConnection toOne = connector.opened.get(0);
        assertThat(sweeps).hasSize(1);
        assertThat(sweeps.get(0).delayNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(MAX_IDLE_MS));

        advanceMillis(MAX_IDLE_MS);
        sweeps.get(0).task().run();

        assertThat(toOne.isOpen()).isFalse();
        assertThat(sweeps).as("no sweep is scheduled once no connection is open").hasSize(1);
    }

    @Test
    void aSweepFindingTheConnectionUsedSinceComesBackWhenItCouldIdleOut() throws Exception {
        FrameServer one = connectedBroker(1);
        BrokerConnection toOne = connector.opened.get(0);
        advanceMillis(100_000);
        roundTrip(one);

        advanceMillis(MAX_IDLE_MS - 100_000);
        sweeps.get(0).task().run();
        assertThat(toOne.isOpen()).isTrue();
        assertThat(sweeps).hasSize(2);
        assertThat(sweeps.get(1).delayNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100_000));

        advanceMillis(100_000);
        sweeps.get(1).task().run();
        assertThat(toOne.isOpen()).isFalse();
    }

    @Test
    void theSweepComesBackForTheLeastRecentlyUsedConnectionLeft() throws Exception {
        connectedBroker(1);
        advanceMillis(30_000);
        connectedBroker(2);
        BrokerConnection toOne = connector.opened.get(0);
        BrokerConnection toTwo = connector.opened.get(1);
        assertThat(sweeps).as("the first connection's sweep comes first").hasSize(1);

        advanceMillis(MAX_IDLE_MS - 30_000);
        sweeps.get(0).task().run();

        assertThat(toOne.isOpen()).isFalse();
        assertThat(toTwo.isOpen()).isTrue();
        assertThat(sweeps).hasSize(2);
        assertThat(sweeps.get(1).delayNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(30_000));
    }

    @Test
    void noSweepIsScheduledWithoutAnOpenConnection() throws Exception {
        connector.refuseNext();
        assertFailsWithConnectionError(pool.connect(1));
        assertFailsWithConnectionError(pool.send(3, ApiKey.METADATA, new MetadataRequestData()));

        assertThat(sweeps).isEmpty();
    }

    @Test
    void closeFailsPendingWorkAndEveryLaterCall() throws Exception {
        FrameServer broker = connectedBroker(2);
        CompletableFuture<ApiMessage> unanswered = pool.send(2, ApiKey.METADATA, new MetadataRequestData());
        broker.read();
        connector.gate = new CompletableFuture<>();
        CompletableFuture<ApiMessage> connecting = pool.send(1, ApiKey.METADATA, new MetadataRequestData());

        pool.close();

        assertFailsWithConnectionError(unanswered).hasMessageContaining("closed by the client");
        assertFailsWithConnectionError(connecting).hasMessage("the connection pool is closed");
        assertFailsWithConnectionError(pool.send(2, ApiKey.METADATA, new MetadataRequestData()))
            .hasMessage("the connection pool is closed");
        assertFailsWithConnectionError(pool.connect(1)).hasMessage("the connection pool is closed");
    }

    @Test
    void setsUpConnectionsToManyBrokersAtOnceOnItsLoopAlone() throws Exception {
        Map<Integer, InetSocketAddress> nodes = new HashMap<>();
        List<FrameServer> unanswered = new ArrayList<>();
        for (int nodeId = 1; nodeId <= 4; nodeId++) {
            FrameServer broker = new FrameServer();
            brokers.add(broker);
            unanswered.add(broker);
            nodes.put(nodeId, broker.address());
        }
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        try (ConnectionPool production = new ConnectionPool(ConnectionConfig.defaults("test-client"), PoolConfig.defaults())) {
            production.updateNodes(nodes);
            List<CompletableFuture<Void>> connects = new ArrayList<>();
            nodes.keySet().forEach(nodeId -> connects.add(production.connect(nodeId)));
            List<FrameServer.Received> handshakes = new ArrayList<>();
            for (FrameServer broker : unanswered) {
                handshakes.add(broker.read());
            }

            // Every setup is under way, its ApiVersions unanswered: no thread waits for one.
            assertThat(Thread.getAllStackTraces().keySet()).filteredOn(thread -> !before.contains(thread))
                .extracting(Thread::getName)
                .filteredOn(name -> name.startsWith("fastleader-"))
                .singleElement().asString().startsWith("fastleader-io-");
            for (int i = 0; i < unanswered.size(); i++) {
                unanswered.get(i).respond(handshakes.get(i), KAFKA_4_3);
            }
            for (CompletableFuture<Void> connect : connects) {
                connect.get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aClientsPoolTimesTheSelectsOfItsLoopInItsNetworkMetrics() throws Exception {
        FrameServer broker = new FrameServer();
        brokers.add(broker);
        try (Metrics metrics = new Metrics();
             ConnectionPool measured = new ConnectionPool(ConnectionConfig.defaults("test-client"), PoolConfig.defaults(),
                 new NetworkMetrics(metrics, "producer-metrics", "producer-node-metrics"))) {
            measured.updateNodes(Map.of(1, broker.address()));
            CompletableFuture<ApiMessage> response = measured.send(1, ApiKey.METADATA, new MetadataRequestData());
            broker.answerHandshake(KAFKA_4_3);
            broker.respond(broker.read(), new MetadataResponseData().setClusterId("timed"));
            assertThat(clusterId(response)).isEqualTo("timed");

            assertThat((double) metricValue(metrics, metrics.metricName("select-total", "producer-metrics"))).isPositive();
            assertThat((double) metricValue(metrics, metrics.metricName("io-wait-time-ns-total", "producer-metrics")))
                .as("time the loop waited in its selects").isPositive();
            assertThat((double) metricValue(metrics, metrics.metricName("io-time-ns-total", "producer-metrics")))
                .as("time the loop handled ready sockets: the answers were read").isPositive();
        }
    }

    @Test
    void closeDuringAHandshakeReturnsOnlyOnceTheConnectionsLoopEnded() throws Exception {
        FrameServer broker = broker();
        pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        // The handshake is out and unanswered when close gives the setup up.
        broker.read();
        List<Thread> threads = BrokerConnectionTest.threadsOf(broker);
        assertThat(threads).as("the connection's I/O loop").hasSize(1);

        pool.close();

        assertThat(threads).as("the connection's threads alive after close").noneMatch(Thread::isAlive);
    }

    @Test
    void aNodeWithoutAnAddressFailsWithoutConnecting() throws Exception {
        assertFailsWithConnectionError(pool.send(3, ApiKey.METADATA, new MetadataRequestData()))
            .hasMessage("no address is known for node 3");
        assertThat(connector.calls).hasValue(0);
    }

    @Test
    void aCappedSendGoesOutAtTheCap() throws Exception {
        FrameServer broker = broker();
        CompletableFuture<ApiMessage> produce = pool.send(1, ApiKey.PRODUCE, (short) 11, version -> new ProduceRequestData());
        broker.answerHandshake(EVERY_API);
        FrameServer.Received request = broker.read();
        broker.respond(request, new ProduceResponseData());

        assertThat(request.version()).isEqualTo((short) 11);
        assertThat(produce.get(10, TimeUnit.SECONDS)).isInstanceOf(ProduceResponseData.class);
    }

    @Test
    void aRequestWithoutResponseSentWhileConnectingIsWrittenOnceReadyAndNamesItsConnection() throws Exception {
        FrameServer broker = broker();
        CompletableFuture<BrokerConnection> written = pool.sendWithoutResponse(1, ApiKey.PRODUCE,
                new ProduceRequestData().setAcks((short) 0));
        broker.answerHandshake(EVERY_API);

        assertThat(written.get(10, TimeUnit.SECONDS)).isSameAs(connector.opened.get(0));
        assertThat(broker.read().api()).isEqualTo(ApiKey.PRODUCE);
        assertThat(pool.isBusy(1)).as("nothing on the connection waits for an answer").isFalse();
    }

    @Test
    void versionsAreThoseOfTheNodesConnectionForOtherRequestsWithItsFinalizedFeatures() throws Exception {
        FrameServer broker = broker();
        CompletableFuture<NegotiatedVersions> versions = pool.versions(1);
        broker.answerHandshake(NegotiatedVersionsTest.finalized(4, "transaction.version", 2));

        assertThat(versions.get(10, TimeUnit.SECONDS).finalizedLevel("transaction.version")).isEqualTo((short) 2);
        pool.connect(1).get(10, TimeUnit.SECONDS);
        assertThat(connector.calls).as("connect found the connection for other requests open").hasValue(1);
    }

    @Test
    void versionsOfANodeWithoutAnAddressFailAsASendDoes() throws Exception {
        assertFailsWithConnectionError(pool.versions(3)).hasMessage("no address is known for node 3");
        assertThat(connector.calls).hasValue(0);
    }

    // ---------------------------------------------------------------- Fetches on a connection of their own

    /**
     * A Fetch to node 1 over the connection {@code fetching} accepts, read there and left
     * unanswered: the broker holds it, as a long poll for {@code fetch.max.wait.ms}.
     */
    private CompletableFuture<ApiMessage> longPollingFetch(FrameServer fetching) throws Exception {
        CompletableFuture<ApiMessage> fetch = pool.send(1, ApiKey.FETCH, new FetchRequestData());
        fetching.answerHandshake(EVERY_API);
        fetching.read();
        return fetch;
    }

    @Test
    void anOffsetCommitIsAnsweredOverItsOwnConnectionWhileAFetchToTheSameNodeWaits() throws Exception {
        FrameServer fetching = broker();
        CompletableFuture<ApiMessage> fetch = longPollingFetch(fetching);

        FrameServer committing = broker();
        CompletableFuture<ApiMessage> commit = pool.send(1, ApiKey.OFFSET_COMMIT, new OffsetCommitRequestData());
        committing.answerHandshake(EVERY_API);
        committing.respond(committing.read(), new OffsetCommitResponseData());

        assertThat(commit.get(10, TimeUnit.SECONDS)).isInstanceOf(OffsetCommitResponseData.class);
        assertThat(fetch).isNotDone();
        assertThat(connector.calls).hasValue(2);
        assertThat(connector.opened.get(0)).isNotSameAs(connector.opened.get(1));
        assertThat(connector.addresses).containsExactly(NODE_1, NODE_1);
    }

    @Test
    void requestsOtherThanFetchToOneNodeShareOneConnection() throws Exception {
        FrameServer broker = broker();
        CompletableFuture<ApiMessage> commit = pool.send(1, ApiKey.OFFSET_COMMIT, new OffsetCommitRequestData());
        CompletableFuture<ApiMessage> metadata = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        broker.answerHandshake(EVERY_API);
        broker.respond(broker.read(), new OffsetCommitResponseData());
        broker.respond(broker.read(), new MetadataResponseData().setClusterId("same-connection"));

        assertThat(commit.get(10, TimeUnit.SECONDS)).isInstanceOf(OffsetCommitResponseData.class);
        assertThat(clusterId(metadata)).isEqualTo("same-connection");
        assertThat(connector.calls).hasValue(1);
    }

    @Test
    void aPoolThatSendsNoFetchKeepsOneConnectionPerNode() throws Exception {
        for (int node : List.of(1, 2)) {
            FrameServer broker = broker();
            CompletableFuture<ApiMessage> produce = pool.send(node, ApiKey.PRODUCE, new ProduceRequestData());
            broker.answerHandshake(EVERY_API);
            broker.respond(broker.read(), new ProduceResponseData());
            produce.get(10, TimeUnit.SECONDS);
            CompletableFuture<ApiMessage> metadata = pool.send(node, ApiKey.METADATA, new MetadataRequestData());
            broker.respond(broker.read(), new MetadataResponseData());
            metadata.get(10, TimeUnit.SECONDS);
        }

        pool.connect(1).get(10, TimeUnit.SECONDS);
        pool.connectNow(2).get(10, TimeUnit.SECONDS);

        assertThat(connector.calls).hasValue(2);
        assertThat(connector.addresses).containsExactly(NODE_1, NODE_2);
    }

    @Test
    void aFetchLeftUnansweredDoesNotMakeItsNodeBusy() throws Exception {
        FrameServer fetching = broker();
        longPollingFetch(fetching);

        assertThat(connector.opened.get(0).pendingRequests()).isEqualTo(1);
        assertThat(pool.isBusy(1)).isFalse();
    }

    @Test
    void connectOpensTheFetchConnectionTooOnceThePoolHasSentAFetch() throws Exception {
        connectedBroker(1);
        assertThat(connector.calls).as("no Fetch sent yet: the connection for other requests only").hasValue(1);
        fetchRoundTrip(1);

        // Two connects at once, each taking whichever broker comes first.
        FrameServer first = broker();
        FrameServer second = broker();
        CompletableFuture<Void> connected = pool.connect(2);
        first.answerHandshake(EVERY_API);
        second.answerHandshake(EVERY_API);
        connected.get(10, TimeUnit.SECONDS);

        assertThat(connector.calls).hasValue(4);
        assertThat(connector.addresses).containsExactly(NODE_1, NODE_1, NODE_2, NODE_2);
    }

    @Test
    void aNodeIsReadyOnlyOnceItsFetchConnectionAndItsOtherConnectionAreSetUp() throws Exception {
        fetchRoundTrip(1);
        assertThat(pool.isReady(1)).as("the Fetch connection only").isFalse();

        FrameServer other = broker();
        CompletableFuture<Void> connected = pool.connect(1);
        other.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);

        spinUntil(() -> pool.isReady(1));
        assertThat(pool.isReady(1)).isTrue();
        assertThat(connector.calls).hasValue(2);
    }

    @Test
    void aFetchConnectionThatCannotConnectBacksOffWithoutHoldingBackTheNodesOtherRequests() throws Exception {
        connector.refuseNext();
        assertFailsWithConnectionError(pool.send(1, ApiKey.FETCH, new FetchRequestData()))
            .hasMessageContaining("connection refused (scripted)");
        assertFailsWithConnectionError(pool.send(1, ApiKey.FETCH, new FetchRequestData()))
            .hasMessage("node 1 (fetch connection) is backing off 50 ms after a failed connect, 50 ms left");

        FrameServer broker = broker();
        CompletableFuture<ApiMessage> metadata = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        broker.answerHandshake(KAFKA_4_3);
        broker.respond(broker.read(), new MetadataResponseData().setClusterId("not-backing-off"));

        assertThat(clusterId(metadata)).isEqualTo("not-backing-off");
    }

    @Test
    void aBrokenFetchConnectionFailsOnlyTheRequestsOnIt() throws Exception {
        FrameServer fetching = broker();
        CompletableFuture<ApiMessage> fetch = longPollingFetch(fetching);
        FrameServer committing = broker();
        CompletableFuture<ApiMessage> commit = pool.send(1, ApiKey.OFFSET_COMMIT, new OffsetCommitRequestData());
        committing.answerHandshake(EVERY_API);
        FrameServer.Received commitRequest = committing.read();

        fetching.disconnect();
        assertFailsWithConnectionError(fetch);
        committing.respond(commitRequest, new OffsetCommitResponseData());

        assertThat(commit.get(10, TimeUnit.SECONDS)).isInstanceOf(OffsetCommitResponseData.class);
        assertThat(connector.opened.get(1).isOpen()).isTrue();
    }

    @Test
    void theSweepClosesANodesFetchConnectionAndItsOtherConnectionEachOnceItIdledOut() throws Exception {
        fetchRoundTrip(1);
        advanceMillis(30_000);
        // Opened by a send: a connect would count as a use of the Fetch connection too.
        FrameServer other = broker();
        CompletableFuture<ApiMessage> metadata = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        other.answerHandshake(KAFKA_4_3);
        other.respond(other.read(), new MetadataResponseData());
        metadata.get(10, TimeUnit.SECONDS);
        BrokerConnection fetchConnection = connector.opened.get(0);
        BrokerConnection otherConnection = connector.opened.get(1);
        assertThat(sweeps).as("the Fetch connection's sweep comes first").hasSize(1);

        advanceMillis(MAX_IDLE_MS - 30_000);
        sweeps.get(0).task().run();
        assertThat(fetchConnection.isOpen()).isFalse();
        assertThat(otherConnection.isOpen()).isTrue();

        advanceMillis(30_000);
        sweepNow();
        assertThat(otherConnection.isOpen()).isFalse();
    }

    @Test
    void closeClosesANodesFetchConnectionAndItsOtherConnectionAndFailsTheRequestsOnEach() throws Exception {
        FrameServer fetching = broker();
        CompletableFuture<ApiMessage> fetch = longPollingFetch(fetching);
        FrameServer other = broker();
        CompletableFuture<ApiMessage> metadata = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        other.answerHandshake(KAFKA_4_3);
        other.read();

        pool.close();

        assertFailsWithConnectionError(fetch).hasMessageContaining("closed by the client");
        assertFailsWithConnectionError(metadata).hasMessageContaining("closed by the client");
        assertThat(connector.opened).hasSize(2).noneMatch(BrokerConnection::isOpen);
    }

    @Test
    void aNodesFetchConnectionAndItsOtherConnectionBothCountAsConnectionsAndInTheOneNodesMetrics() throws Exception {
        try (Metrics metrics = new Metrics()) {
            NetworkMetrics network = new NetworkMetrics(metrics, "consumer-metrics", "consumer-node-metrics");
            connector.listeners = network::connectionTo;
            fetchRoundTrip(1);
            roundTrip(connectedBroker(1));

            assertThat(metricValue(metrics, new MetricName("connection-count", "consumer-metrics", "", Map.of())))
                .isEqualTo(2.0);
            // Per connection: a handshake, then a Fetch on one and a Metadata request on the other.
            MetricName nodeRequests = new MetricName("request-total", "consumer-node-metrics", "", Map.of("node-id", "node-1"));
            assertThat(metricValue(metrics, nodeRequests)).isEqualTo(4.0);
            assertThat(metrics.metrics().keySet()).filteredOn(name -> name.group().equals("consumer-node-metrics"))
                .extracting(MetricName::tags).containsOnly(Map.of("node-id", "node-1"));
        }
    }

    // ---------------------------------------------------------------- JoinGroup and SyncGroup on a connection of their own

    /**
     * A JoinGroup to node 1 over the connection {@code rebalancing} accepts, read there and left
     * unanswered: the coordinator holds it until every member has rejoined.
     */
    private CompletableFuture<ApiMessage> heldJoinGroup(FrameServer rebalancing) throws Exception {
        CompletableFuture<ApiMessage> join = pool.send(1, ApiKey.JOIN_GROUP, new JoinGroupRequestData());
        rebalancing.answerHandshake(EVERY_API);
        rebalancing.read();
        return join;
    }

    /** Opens the node's rebalance connection with a JoinGroup, answered. */
    private void joinGroupRoundTrip(int nodeId) throws Exception {
        FrameServer broker = broker();
        CompletableFuture<ApiMessage> response = pool.send(nodeId, ApiKey.JOIN_GROUP, new JoinGroupRequestData());
        broker.answerHandshake(EVERY_API);
        broker.respond(broker.read(), new JoinGroupResponseData());
        response.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aHeartbeatIsAnsweredOverItsOwnConnectionWhileAJoinGroupToTheSameNodeIsHeld() throws Exception {
        FrameServer rebalancing = broker();
        CompletableFuture<ApiMessage> join = heldJoinGroup(rebalancing);

        FrameServer heartbeating = broker();
        CompletableFuture<ApiMessage> heartbeat = pool.send(1, ApiKey.HEARTBEAT, new HeartbeatRequestData());
        heartbeating.answerHandshake(EVERY_API);
        heartbeating.respond(heartbeating.read(), new HeartbeatResponseData());

        assertThat(heartbeat.get(10, TimeUnit.SECONDS)).isInstanceOf(HeartbeatResponseData.class);
        assertThat(join).isNotDone();
        assertThat(connector.calls).hasValue(2);
        assertThat(connector.addresses).containsExactly(NODE_1, NODE_1);
    }

    @Test
    void joinGroupAndSyncGroupToOneNodeShareOneConnection() throws Exception {
        FrameServer rebalancing = broker();
        CompletableFuture<ApiMessage> join = pool.send(1, ApiKey.JOIN_GROUP, new JoinGroupRequestData());
        rebalancing.answerHandshake(EVERY_API);
        rebalancing.respond(rebalancing.read(), new JoinGroupResponseData());
        join.get(10, TimeUnit.SECONDS);

        CompletableFuture<ApiMessage> sync = pool.send(1, ApiKey.SYNC_GROUP, new SyncGroupRequestData());
        rebalancing.respond(rebalancing.read(), new SyncGroupResponseData());

        assertThat(sync.get(10, TimeUnit.SECONDS)).isInstanceOf(SyncGroupResponseData.class);
        assertThat(connector.calls).hasValue(1);
    }

    @Test
    void aHeldJoinGroupDoesNotMakeItsNodeBusy() throws Exception {
        heldJoinGroup(broker());

        assertThat(connector.opened.get(0).pendingRequests()).isEqualTo(1);
        assertThat(pool.isBusy(1)).isFalse();
    }

    @Test
    void aHeldJoinGroupIsNotTimedOutAfterTheRequestTimeout() throws Exception {
        pool.close();
        pool = poolWith(new ConnectionConfig("test-client", 5, Duration.ofMillis(300), Duration.ofMinutes(5),
            Duration.ofSeconds(5), 1 << 20, SecurityConfig.PLAINTEXT, ConnectionConfig.OS_DEFAULT_BUFFER, ConnectionConfig.OS_DEFAULT_BUFFER, null));
        FrameServer rebalancing = broker();
        CompletableFuture<ApiMessage> join = pool.send(1, ApiKey.JOIN_GROUP, new JoinGroupRequestData());
        rebalancing.answerHandshake(EVERY_API);
        FrameServer.Received joinRequest = rebalancing.read();
        FrameServer other = broker();
        CompletableFuture<ApiMessage> metadata = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        other.answerHandshake(KAFKA_4_3);
        other.read();

        // Written after the JoinGroup: when it times out, the JoinGroup has been held longer than request.timeout.ms.
        assertFailsWithConnectionError(metadata).isInstanceOf(RequestTimedOutException.class)
            .hasMessageContaining("no response within 300 ms (request.timeout.ms)");
        assertThat(join).isNotDone();
        rebalancing.respond(joinRequest, new JoinGroupResponseData());
        assertThat(join.get(10, TimeUnit.SECONDS)).isInstanceOf(JoinGroupResponseData.class);
    }

    @Test
    void connectNeverOpensTheRebalanceConnection() throws Exception {
        joinGroupRoundTrip(1);

        connectedBroker(2);

        assertThat(connector.calls).as("node 1's rebalance connection, then node 2's for other requests only").hasValue(2);
        assertThat(connector.addresses).containsExactly(NODE_1, NODE_2);
    }

    @Test
    void aNodeIsReadyWithoutARebalanceConnectionOnceThePoolHasSentAJoinGroup() throws Exception {
        joinGroupRoundTrip(1);

        connectedBroker(2);

        spinUntil(() -> pool.isReady(2));
        assertThat(pool.isReady(2)).isTrue();
    }

    @Test
    void aConnectionWithAJoinGroupHeldPastMaxIdleIdlesOutOnlyOnceItIsAnswered() throws Exception {
        FrameServer rebalancing = broker();
        CompletableFuture<ApiMessage> join = pool.send(1, ApiKey.JOIN_GROUP, new JoinGroupRequestData());
        rebalancing.answerHandshake(EVERY_API);
        FrameServer.Received joinRequest = rebalancing.read();
        BrokerConnection rebalanceConnection = connector.opened.get(0);

        advanceMillis(MAX_IDLE_MS);
        sweeps.get(0).task().run();
        assertThat(rebalanceConnection.isOpen()).isTrue();
        assertThat(sweeps).hasSize(2);
        assertThat(sweeps.get(1).delayNanos()).as("found in use, it is used as of this sweep")
            .isEqualTo(TimeUnit.MILLISECONDS.toNanos(MAX_IDLE_MS));

        rebalancing.respond(joinRequest, new JoinGroupResponseData());
        assertThat(join.get(10, TimeUnit.SECONDS)).isInstanceOf(JoinGroupResponseData.class);
        advanceMillis(MAX_IDLE_MS);
        sweeps.get(1).task().run();
        assertThat(rebalanceConnection.isOpen()).isFalse();
    }

    @Test
    void closeFailsTheJoinGroupHeldOnTheRebalanceConnection() throws Exception {
        CompletableFuture<ApiMessage> join = heldJoinGroup(broker());

        pool.close();

        assertFailsWithConnectionError(join).hasMessageContaining("closed by the client");
        assertThat(connector.opened.get(0).isOpen()).isFalse();
    }

    @Test
    void aRebalanceConnectionThatCannotConnectBacksOffWithoutHoldingBackTheNodesOtherRequests() throws Exception {
        connector.refuseNext();
        assertFailsWithConnectionError(pool.send(1, ApiKey.JOIN_GROUP, new JoinGroupRequestData()))
            .hasMessageContaining("connection refused (scripted)");
        assertFailsWithConnectionError(pool.send(1, ApiKey.SYNC_GROUP, new SyncGroupRequestData()))
            .hasMessage("node 1 (rebalance connection) is backing off 50 ms after a failed connect, 50 ms left");

        FrameServer broker = broker();
        CompletableFuture<ApiMessage> heartbeat = pool.send(1, ApiKey.HEARTBEAT, new HeartbeatRequestData());
        broker.answerHandshake(EVERY_API);
        broker.respond(broker.read(), new HeartbeatResponseData());

        assertThat(heartbeat.get(10, TimeUnit.SECONDS)).isInstanceOf(HeartbeatResponseData.class);
    }

    @Test
    void aNodesRebalanceConnectionCountsAsAConnectionAndInTheOneNodesMetrics() throws Exception {
        try (Metrics metrics = new Metrics()) {
            NetworkMetrics network = new NetworkMetrics(metrics, "consumer-metrics", "consumer-node-metrics");
            connector.listeners = network::connectionTo;
            joinGroupRoundTrip(1);
            roundTrip(connectedBroker(1));

            assertThat(metricValue(metrics, new MetricName("connection-count", "consumer-metrics", "", Map.of())))
                .isEqualTo(2.0);
            // Per connection: a handshake, then a JoinGroup on one and a Metadata request on the other.
            MetricName nodeRequests = new MetricName("request-total", "consumer-node-metrics", "", Map.of("node-id", "node-1"));
            assertThat(metricValue(metrics, nodeRequests)).isEqualTo(4.0);
            assertThat(metrics.metrics().keySet()).filteredOn(name -> name.group().equals("consumer-node-metrics"))
                .extracting(MetricName::tags).containsOnly(Map.of("node-id", "node-1"));
        }
    }

    @Test
    void poolConfigHasKafkasDefaultsAndNamesTheKeyOfABadValue() {
        assertThat(PoolConfig.defaults()).isEqualTo(
            new PoolConfig(Duration.ofMillis(50), Duration.ofMillis(1000), Duration.ofMillis(540_000)));
        assertThatThrownBy(() -> new PoolConfig(Duration.ofMillis(-1), Duration.ofMillis(1000), Duration.ofMillis(1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("reconnect.backoff.ms must not be negative, not -1");
        assertThatThrownBy(() -> new PoolConfig(Duration.ofMillis(50), Duration.ofMillis(-5), Duration.ofMillis(1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("reconnect.backoff.max.ms must not be negative, not -5");
        assertThatThrownBy(() -> new PoolConfig(Duration.ofMillis(50), Duration.ofMillis(1000), Duration.ZERO))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("connections.max.idle.ms must be positive, not 0");
    }

    /** An idle sweep as the pool scheduled it. */
    private record Sweep(Runnable task, long delayNanos) {
    }

    /** A scripted broker that the next connect reaches. */
    private FrameServer broker() throws IOException {
        FrameServer broker = new FrameServer();
        brokers.add(broker);
        connector.steps.add(broker);
        return broker;
    }

    private FrameServer connectedBroker(int nodeId) throws Exception {
        FrameServer broker = broker();
        CompletableFuture<Void> connected = pool.connect(nodeId);
        broker.answerHandshake(KAFKA_4_3);
        connected.get(10, TimeUnit.SECONDS);
        return broker;
    }

    private void roundTrip(FrameServer broker) throws Exception {
        CompletableFuture<ApiMessage> response = pool.send(1, ApiKey.METADATA, new MetadataRequestData());
        broker.respond(broker.read(), new MetadataResponseData());
        response.get(10, TimeUnit.SECONDS);
    }

    /** Opens the node's Fetch connection with a Fetch, answered. */
    private void fetchRoundTrip(int nodeId) throws Exception {
        FrameServer broker = broker();
        CompletableFuture<ApiMessage> response = pool.send(nodeId, ApiKey.FETCH, new FetchRequestData());
        broker.answerHandshake(EVERY_API);
        broker.respond(broker.read(), new FetchResponseData());
        response.get(10, TimeUnit.SECONDS);
    }

    /** Waits, up to 10 s, for the connections being set up to make {@code condition} true. */
    private static void spinUntil(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private static Object metricValue(Metrics metrics, MetricName name) {
        return metrics.metrics().get(name).metricValue();
    }

    private static ApiVersionsResponseData everyApi() {
        List<Object> triples = new ArrayList<>();
        for (ApiKey api : ApiKey.values()) {
            triples.addAll(List.of(api, api.lowestVersion(), api.highestVersion()));
        }
        return ranges(triples.toArray());
    }

    /** Runs the pool's idle sweep now, as its timer would when it fires. */
    private void sweepNow() {
        sweeps.get(sweeps.size() - 1).task().run();
    }

    private void advanceMillis(long millis) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    private static String clusterId(CompletableFuture<ApiMessage> response) throws Exception {
        return ((MetadataResponseData) response.get(10, TimeUnit.SECONDS)).clusterId();
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertFailsWithConnectionError(CompletableFuture<?> future) {
        return assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(BrokerConnectionException.class);
    }

    /**
     * Counts and records connects; each takes the next step: a broker to connect to, or a failure
     * to fail with. A gate not yet completed holds connects, to observe the pool while one is under way.
     */
    private static final class ScriptedConnector implements Connector {
        final AtomicInteger calls = new AtomicInteger();
        final List<InetSocketAddress> addresses = new CopyOnWriteArrayList<>();
        /** The setup timeout of each connect, in milliseconds, in order. */
        final List<Long> setupTimeouts = new CopyOnWriteArrayList<>();
        final List<BrokerConnection> opened = new CopyOnWriteArrayList<>();
        final BlockingQueue<Object> steps = new LinkedBlockingQueue<>();
        volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
        /** The listener each connection opened tells, by node id, as the pool's production connector takes it. */
        volatile IntFunction<ConnectionListener> listeners = nodeId -> ConnectionListener.NONE;

        void refuseNext() {
            steps.add(new BrokerConnectionException("connection refused (scripted)", null));
        }

        @Override
        public CompletableFuture<BrokerConnection> open(int nodeId, InetSocketAddress address, ConnectionConfig config) {
            calls.incrementAndGet();
            addresses.add(address);
            setupTimeouts.add(config.connectTimeout().toMillis());
            CompletableFuture<BrokerConnection> opening = new CompletableFuture<>();
            gate.thenRun(() -> {
                Object step = steps.poll();
                if (!(step instanceof FrameServer broker)) {
                    opening.completeExceptionally(step == null ? new BrokerConnectionException("no step scripted", null)
                        : (BrokerConnectionException) step);
                    return;
                }
                CompletableFuture<BrokerConnection> connecting = BrokerConnection.openOnOwnLoop(broker.address(), config,
                    listeners.apply(nodeId));
                // A connect the pool gives up ends its setup, which closes the connection, as the production connector's does.
                opening.whenComplete((connection, failure) -> {
                    if (failure != null) {
                        connecting.completeExceptionally(failure);
                    }
                });
                connecting.whenComplete((connection, failure) -> {
                    if (failure != null) {
                        opening.completeExceptionally(failure);
                        return;
                    }
                    opened.add(connection);
                    if (!opening.complete(connection)) {
                        connection.close();
                    }
                });
            });
            return opening;
        }
    }
}
