package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * The cluster check (KIP-1242) in {@link ConnectionPool}: which connects name the cluster and node,
 * against scripted brokers that check them as a Kafka 4.4 broker does.
 */
@Timeout(60)
class ConnectionPoolClusterCheckTest {

    private static final String CLUSTER = "the-cluster";
    private static final int BOOTSTRAP = -1;

    private ScriptedBrokers brokers;
    private ConnectionPool pool;

    @AfterEach
    void stop() throws Exception {
        pool.close();
        brokers.close();
    }

    @Test
    void testAConnectToABrokerNamesTheClusterAndTheNodeAndOneToABootstrapServerNamesNothing() throws Exception {
        start(Map.of());
        pool.checkClusterOnConnect(CLUSTER);

        metadata(BOOTSTRAP);
        metadata(0);

        assertThat(brokers.apiVersionsNaming(0)).containsExactly("nothing", CLUSTER + "/0");
    }

    @Test
    void testNamesNothingToANodeNotYetConnectedToWhileNoBrokerIsKnownToSpeakTheCheck() throws Exception {
        start(Map.of());
        pool.checkClusterOnConnect(CLUSTER);

        metadata(0);

        assertThat(brokers.apiVersionsNaming(0)).containsExactly("nothing");
    }

    @Test
    void testNamesNothingBeforeTheClusterIsKnown() throws Exception {
        start(Map.of());

        metadata(0);

        assertThat(brokers.apiVersionsNaming(0)).containsExactly("nothing");
    }

    @Test
    void testNamesNothingToABrokerThatCannotCheck() throws Exception {
        start(Map.of(ApiKey.API_VERSIONS, (short) 4));
        pool.checkClusterOnConnect(CLUSTER);
        metadata(BOOTSTRAP);

        metadata(0);

        assertThat(brokers.apiVersionsNaming(0)).containsExactly("nothing", "nothing");
    }

    @Test
    void testNamesTheClusterAgainToANodeWhoseBrokerSpokeTheCheck() throws Exception {
        start(Map.of());
        pool.checkClusterOnConnect(CLUSTER);
        metadata(BOOTSTRAP);
        metadata(0);

        brokers.dropConnections();
        metadataOnceReconnected(0);

        assertThat(brokers.apiVersionsNaming(0)).containsExactly("nothing", CLUSTER + "/0", CLUSTER + "/0");
    }

    @Test
    void testAConnectRefusedAsMisroutedFailsAndIsToldOf() throws Exception {
        start(Map.of());
        brokers.checkClusterOf(0, "another-cluster");
        List<String> told = new CopyOnWriteArrayList<>();
        pool.onMisroutedConnection(refusal -> told.add(refusal.clusterId() + "/" + refusal.nodeId()));
        pool.checkClusterOnConnect(CLUSTER);
        metadata(BOOTSTRAP);

        assertThatThrownBy(() -> metadata(0)).hasCauseInstanceOf(MisroutedConnectionException.class);
        assertThat(told).containsExactly(CLUSTER + "/0");
    }

    /** Node 0 is scripted broker 0, and so is the bootstrap server. */
    private void start(Map<ApiKey, Short> maxVersions) throws Exception {
        brokers = new ScriptedBrokers(1, maxVersions, (node, api, request) -> new MetadataResponseData());
        pool = new ConnectionPool(ConnectionConfig.defaults("cluster-check-test"), PoolConfig.defaults());
        InetSocketAddress broker = new InetSocketAddress("127.0.0.1", brokers.port(0));
        pool.updateNodes(Map.of(0, broker, BOOTSTRAP, broker));
    }

    private void metadata(int node) throws Exception {
        pool.send(node, ApiKey.METADATA, new MetadataRequestData()).get(10, TimeUnit.SECONDS);
    }

    /** Asks again until the pool has seen the dropped connection close and opened another. */
    private void metadataOnceReconnected(int node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                metadata(node);
                return;
            } catch (ExecutionException droppedConnection) {
                assertThat(System.nanoTime() - deadline).as("still failing: " + droppedConnection.getCause()).isNegative();
            }
        }
    }
}
