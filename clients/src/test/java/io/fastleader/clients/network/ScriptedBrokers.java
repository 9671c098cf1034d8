package io.fastleader.clients.network;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.RequestHeaderData;

/**
 * Brokers on loopback whose answers a test scripts: each node answers ApiVersions with every API
 * the client speaks, and hands every other request to the test's {@link Script}. Any number of
 * client connections, each served by its own thread, answered in order; an answer may be given
 * later ({@link #answeringLater}), and the connection reads further requests meanwhile, as a
 * broker reads pipelined requests.
 */
public final class ScriptedBrokers implements AutoCloseable {

    /** Decides the answer to one request. */
    @FunctionalInterface
    public interface Script {
        /** @return the answer, or null to leave the request unanswered */
        ApiMessage answer(int nodeId, ApiKey api, ApiMessage request) throws Exception;
    }

    /** Decides the answer to one request, now or later. */
    @FunctionalInterface
    public interface LaterScript {
        /**
         * @return the answer, complete or to be completed later (answers still go out in request
         *         order), or null to leave the request unanswered
         */
        CompletionStage<ApiMessage> answer(int nodeId, ApiKey api, ApiMessage request) throws Exception;
    }

    private final List<ServerSocket> servers = new ArrayList<>();
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final LaterScript script;
    private final Map<ApiKey, Short> maxVersions;
    private final Map<Integer, String> clusterIds = new ConcurrentHashMap<>();
    private final Map<Integer, List<String>> apiVersionsNaming = new ConcurrentHashMap<>();
    /** Whether the brokers advertise the client telemetry APIs, as a broker with a ClientTelemetry plugin does. */
    private volatile boolean clientTelemetry;

    /** Starts {@code count} brokers, node ids 0 .. count-1, speaking every version the client speaks. */
    public ScriptedBrokers(int count, Script script) throws IOException {
        this(count, Map.of(), script);
    }

    /** Starts {@code count} brokers that speak at most {@code maxVersions} of the APIs named there: older brokers. */
    public ScriptedBrokers(int count, Map<ApiKey, Short> maxVersions, Script script) throws IOException {
        this(count, maxVersions, answeringNow(script));
    }

    private ScriptedBrokers(int count, Map<ApiKey, Short> maxVersions, LaterScript script) throws IOException {
        this.script = script;
        this.maxVersions = Map.copyOf(maxVersions);
        for (int node = 0; node < count; node++) {
            ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
            servers.add(server);
            int nodeId = node;
            daemon(() -> accept(nodeId, server), "scripted-broker-" + node);
        }
    }

    /** Starts {@code count} brokers whose answers the script may give after later requests arrived. */
    public static ScriptedBrokers answeringLater(int count, LaterScript script) throws IOException {
        return new ScriptedBrokers(count, Map.of(), script);
    }

    private static LaterScript answeringNow(Script script) {
        return (nodeId, api, request) -> {
            ApiMessage answer = script.answer(nodeId, api, request);
            return answer == null ? null : CompletableFuture.completedFuture(answer);
        };
    }

    /** The port node {@code nodeId} listens on. */
    public int port(int nodeId) {
        return servers.get(nodeId).getLocalPort();
    }

    /**
     * A Metadata answer naming every broker here and one topic whose partition 0 is led by
     * {@code leader} at {@code leaderEpoch}, with every broker as a replica in sync.
     */
    public MetadataResponseData metadataAnswer(String topicName, Uuid topicId, int leader, int leaderEpoch) {
        MetadataResponseData response = new MetadataResponseData();
        List<Integer> nodes = new ArrayList<>();
        for (int node = 0; node < servers.size(); node++) {
            response.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(node).setHost("127.0.0.1")
                    .setPort(port(node)));
            nodes.add(node);
        }
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName(topicName).setTopicId(topicId);
        topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0).setLeaderId(leader)
                .setLeaderEpoch(leaderEpoch).setReplicaNodes(nodes).setIsrNodes(nodes));
        response.topics().add(topic);
        return response;
    }

    /** {@code bootstrap.servers} naming node 0. */
    public String bootstrap() {
        InetSocketAddress address = (InetSocketAddress) servers.get(0).getLocalSocketAddress();
        return address.getHostString() + ":" + address.getPort();
    }

    private void accept(int nodeId, ServerSocket server) {
        try {
            while (true) {
                Socket connection = server.accept();
                connections.add(connection);
                daemon(() -> serve(nodeId, connection), "scripted-broker-" + nodeId + "-connection");
            }
        } catch (IOException closed) {
            // close() closed the server socket.
        }
    }

    private void serve(int nodeId, Socket connection) {
        try (DataInputStream in = new DataInputStream(connection.getInputStream());
             DataOutputStream out = new DataOutputStream(connection.getOutputStream())) {
            CompletableFuture<Void> answered = CompletableFuture.completedFuture(null);
            while (true) {
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                ByteBuffer buffer = ByteBuffer.wrap(frame);
                ApiKey api = ApiKey.forId(buffer.getShort(0)).orElseThrow();
                short version = buffer.getShort(2);
                ByteBufferAccessor reader = new ByteBufferAccessor(buffer);
                RequestHeaderData header = new RequestHeaderData(reader, api.requestHeaderVersion(version));
                ApiMessage request = api.newRequest();
                request.read(reader, version);
                CompletionStage<ApiMessage> answer = api == ApiKey.API_VERSIONS
                        ? CompletableFuture.completedFuture(versionsFor(nodeId, (ApiVersionsRequestData) request))
                        : script.answer(nodeId, api, request);
                if (answer != null) {
                    int correlationId = header.correlationId();
                    // Each answer is written after the one before it, by whichever thread completes it.
                    answered = answered.thenCompose(previous -> answer)
                            .thenAccept(body -> write(out, api, version, correlationId, body));
                }
            }
        } catch (Exception closed) {
            // The client or close() dropped the connection.
        }
    }

    private static void write(DataOutputStream out, ApiKey api, short version, int correlationId, ApiMessage body) {
        try {
            out.write(Framing.encodeResponse(api, version, correlationId, body).array());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Makes node {@code nodeId} a broker of cluster {@code clusterId} that checks, as a Kafka 4.4
     * broker does (KIP-1242), the cluster and node an ApiVersions request names: one naming another
     * is answered REBOOTSTRAP_REQUIRED.
     */
    public void checkClusterOf(int nodeId, String clusterId) {
        clusterIds.put(nodeId, clusterId);
    }

    /**
     * Makes the brokers advertise GetTelemetrySubscriptions and PushTelemetry, as a Kafka broker with
     * a client telemetry plugin does (without one it leaves them out, and so do these brokers).
     */
    public void advertiseClientTelemetry() {
        clientTelemetry = true;
    }

    /**
     * What each ApiVersions request node {@code nodeId} got named, in order: {@code cluster/node}, or
     * {@code nothing} for a request that named none (v4 and older, or v5 without both).
     */
    public List<String> apiVersionsNaming(int nodeId) {
        return List.copyOf(apiVersionsNaming.computeIfAbsent(nodeId, node -> new CopyOnWriteArrayList<>()));
    }

    private ApiVersionsResponseData versionsFor(int nodeId, ApiVersionsRequestData request) {
        apiVersionsNaming.computeIfAbsent(nodeId, node -> new CopyOnWriteArrayList<>())
                .add(request.clusterId() == null ? "nothing" : request.clusterId() + "/" + request.nodeId());
        String clusterId = clusterIds.get(nodeId);
        boolean misrouted = clusterId != null && request.clusterId() != null
                && (!request.clusterId().equals(clusterId) || request.nodeId() != nodeId);
        return misrouted ? new ApiVersionsResponseData().setErrorCode(ErrorCode.REBOOTSTRAP_REQUIRED.code()) : advertisedVersions();
    }

    private ApiVersionsResponseData advertisedVersions() {
        ApiVersionsResponseData response = new ApiVersionsResponseData();
        for (ApiKey api : ApiKey.values()) {
            if (!clientTelemetry && (api == ApiKey.GET_TELEMETRY_SUBSCRIPTIONS || api == ApiKey.PUSH_TELEMETRY)) {
                continue;
            }
            response.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(api.id())
                    .setMinVersion(api.lowestVersion()).setMaxVersion(maxVersions.getOrDefault(api, api.highestVersion())));
        }
        return response;
    }

    private static void daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Drops every client connection, as a broker's network thread would on a fault; the brokers go on listening. */
    public void dropConnections() throws IOException {
        for (Socket connection : connections) {
            connection.close();
        }
        connections.clear();
    }

    @Override
    public void close() throws IOException {
        for (ServerSocket server : servers) {
            server.close();
        }
        dropConnections();
    }
}
