package io.fastleader.it.leadermove;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.RequestHeaderData;

/**
 * A test-only Kafka proxy on loopback that lies in leader hints. Each broker gets a port of its
 * own, opened the first time a Metadata answer names the broker, and Metadata answers are
 * rewritten to name those ports, so a client that bootstraps here talks to every broker through
 * the proxy. Requests pass unchanged. Answers pass unchanged too, except that the
 * {@code CurrentLeader} of each partition a Produce or Fetch refused is rewritten by a
 * {@link HintLie}, and {@code NodeEndpoints} name the proxy's ports.
 *
 * <p>It records what the tests assert on: per API and partition, the brokers the client's
 * requests went to and when they were refused, and the {@code CurrentLeaderEpoch} of each Fetch;
 * per API, how many hints it rewrote. Closing it ends every thread it started and closes every
 * port it opened.
 * It decodes only the APIs fastleader's clients speak, at the versions they speak; it is meant
 * for them alone.
 */
final class HintRewritingProxy implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final int BOOTSTRAP = -1;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final HintLie lie;
    private final Listener bootstrap;
    private final int refusingPort;
    private final Map<Integer, Listener> brokers = new ConcurrentHashMap<>();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Map<Uuid, String> topicNames = new ConcurrentHashMap<>();
    /**
     * Per client id, the lowest leader epoch of each partition that Metadata answers told it: the
     * client knows that epoch or a newer one, whatever answers it has yet to read.
     */
    private final Map<String, Map<TopicPartition, Integer>> toldEpochs = new ConcurrentHashMap<>();
    private final Map<ApiKey, Map<TopicPartition, PartitionTraffic>> traffic = Map.of(
            ApiKey.PRODUCE, new ConcurrentHashMap<>(), ApiKey.FETCH, new ConcurrentHashMap<>());
    private final Map<ApiKey, AtomicInteger> hintsRewritten = Map.of(ApiKey.PRODUCE, new AtomicInteger(), ApiKey.FETCH, new AtomicInteger());
    private volatile boolean closed;

    /** Starts a proxy in front of the broker at {@code bootstrapAddress} that tells {@code lie}. */
    HintRewritingProxy(InetSocketAddress bootstrapAddress, HintLie lie) {
        this.lie = lie;
        this.refusingPort = portNothingListensOn();
        this.bootstrap = new Listener(BOOTSTRAP, bootstrapAddress);
    }

    /** Client settings that bootstrap through the proxy. */
    Map<String, Object> clientConfig() {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, HOST + ":" + bootstrap.port());
    }

    /** The brokers the client's requests of {@code api} for {@code partition} went to, in the order they arrived. */
    List<Integer> destinations(ApiKey api, TopicPartition partition) {
        return of(api, partition).snapshot(traffic -> traffic.destinations);
    }

    /** The {@code CurrentLeaderEpoch} of each Fetch for {@code partition}, in the order they arrived. */
    List<Integer> fetchedEpochs(TopicPartition partition) {
        return of(ApiKey.FETCH, partition).snapshot(traffic -> traffic.leaderEpochs);
    }

    /**
     * Each Fetch for {@code partition} as {@code broker@epoch}, where epoch is its {@code CurrentLeaderEpoch},
     * in the order they arrived, a run of the same one written once: a failure's message tells a client that
     * went back at the same epoch from one that followed leadership that really went back.
     */
    List<String> fetchesInTurn(TopicPartition partition) {
        List<Integer> brokers = destinations(ApiKey.FETCH, partition);
        List<Integer> epochs = fetchedEpochs(partition);
        List<String> inTurn = new ArrayList<>();
        for (int i = 0; i < Math.min(brokers.size(), epochs.size()); i++) {
            String fetch = brokers.get(i) + "@" + epochs.get(i);
            if (inTurn.isEmpty() || !inTurn.get(inTurn.size() - 1).equals(fetch)) {
                inTurn.add(fetch);
            }
        }
        return inTurn;
    }

    /** When ({@link System#nanoTime()}) each refusal of {@code api} for {@code partition} passed through. */
    List<Long> refusals(ApiKey api, TopicPartition partition) {
        return of(api, partition).snapshot(traffic -> traffic.refusalNanos);
    }

    /**
     * How many complete hints in refusals of {@code api} the lie was applied to (for
     * {@link HintLie#NONE}, passed on as they were): the lie reached the client that sent them.
     */
    int hintsRewritten(ApiKey api) {
        return hintsRewritten.get(api).get();
    }

    private PartitionTraffic of(ApiKey api, TopicPartition partition) {
        return traffic.get(api).computeIfAbsent(partition, p -> new PartitionTraffic());
    }

    /**
     * Closes every port and connection, then waits for every thread to end.
     *
     * @throws IllegalStateException if a thread is still alive after {@link #CLOSE_TIMEOUT}
     */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        bootstrap.close();
        brokers.values().forEach(Listener::close);
        sockets.forEach(HintRewritingProxy::closeQuietly);
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        List<String> alive = threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        if (!alive.isEmpty()) {
            throw new IllegalStateException("proxy threads alive after close: " + alive);
        }
    }

    // ---------------------------------------------------------------- connections

    private void serve(int nodeId, Socket client, InetSocketAddress upstreamAddress) {
        Socket upstream = new Socket();
        sockets.add(upstream);
        try {
            upstream.connect(upstreamAddress);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
        if (closed) {
            // Closed while connecting: close() may have gone over the sockets before these were added.
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
        Map<Integer, Sent> pending = new ConcurrentHashMap<>();
        start("proxy-" + nodeId + "-requests", () -> pump(client, upstream, frame -> onRequest(nodeId, frame, pending)));
        start("proxy-" + nodeId + "-responses", () -> pump(upstream, client, frame -> onResponse(nodeId, frame, pending)));
    }

    /** Copies frames from {@code from} to {@code to}, each as {@code rewrite} returns it, until either side closes. */
    private static void pump(Socket from, Socket to, FrameRewrite rewrite) {
        try (DataInputStream in = new DataInputStream(from.getInputStream());
             DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
            while (true) {
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                out.write(rewrite.apply(frame));
                out.flush();
            }
        } catch (IOException closed) {
            // One side went away; so does the other.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private byte[] onRequest(int nodeId, byte[] frame, Map<Integer, Sent> pending) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        ApiKey api = ApiKey.forId(buffer.getShort(0)).orElse(null);
        short version = buffer.getShort(2);
        if (api != null) {
            ByteBufferAccessor reader = new ByteBufferAccessor(buffer.duplicate());
            RequestHeaderData header = new RequestHeaderData(reader, api.requestHeaderVersion(version));
            pending.put(header.correlationId(), new Sent(api, version, header.clientId()));
            if (api == ApiKey.PRODUCE || api == ApiKey.FETCH) {
                ApiMessage request = api.newRequest();
                request.read(reader, version);
                recordRequest(nodeId, request);
            }
        }
        return sized(frame);
    }

    private byte[] onResponse(int nodeId, byte[] frame, Map<Integer, Sent> pending) {
        Sent sent = pending.remove(Framing.correlationId(ByteBuffer.wrap(frame)));
        if (sent == null || !(sent.api == ApiKey.METADATA || sent.api == ApiKey.PRODUCE || sent.api == ApiKey.FETCH)) {
            return sized(frame);
        }
        ApiMessage body = Framing.decodeResponse(sent.api, sent.version, ByteBuffer.wrap(frame)).body();
        switch (sent.api) {
            case METADATA -> rewriteMetadata(sent.clientId, (MetadataResponseData) body);
            case PRODUCE -> rewriteProduce(nodeId, sent.clientId, (ProduceResponseData) body);
            default -> rewriteFetch(nodeId, sent.clientId, (FetchResponseData) body);
        }
        ByteBuffer encoded = Framing.encodeResponse(sent.api, sent.version, Framing.correlationId(ByteBuffer.wrap(frame)), body);
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        return bytes;
    }

    // ---------------------------------------------------------------- what the client sent

    private void recordRequest(int nodeId, ApiMessage request) {
        if (request instanceof ProduceRequestData produce) {
            produce.topicData().forEach(topic -> topic.partitionData().forEach(partition ->
                    of(ApiKey.PRODUCE, new TopicPartition(topic.name(), partition.index())).sentTo(nodeId, -1)));
        } else if (request instanceof FetchRequestData fetch) {
            fetch.topics().forEach(topic -> topic.partitions().forEach(partition ->
                    of(ApiKey.FETCH, new TopicPartition(name(topic.topic(), topic.topicId()), partition.partition()))
                            .sentTo(nodeId, partition.currentLeaderEpoch())));
        }
    }

    // ---------------------------------------------------------------- what the client is told

    private void rewriteMetadata(String clientId, MetadataResponseData metadata) {
        Map<TopicPartition, Integer> told = toldEpochs.computeIfAbsent(clientId, id -> new ConcurrentHashMap<>());
        for (MetadataResponseData.MetadataResponseBroker broker : metadata.brokers()) {
            Listener listener = listenerFor(broker.nodeId(), InetSocketAddress.createUnresolved(broker.host(), broker.port()));
            broker.setHost(HOST).setPort(listener.port());
        }
        for (MetadataResponseData.MetadataResponseTopic topic : metadata.topics()) {
            if (topic.name() == null) {
                continue;
            }
            topicNames.put(topic.topicId(), topic.name());
            topic.partitions().forEach(partition ->
                    told.merge(new TopicPartition(topic.name(), partition.partitionIndex()), partition.leaderEpoch(), Math::min));
        }
    }

    private void rewriteProduce(int responder, String clientId, ProduceResponseData response) {
        response.nodeEndpoints().forEach(endpoint -> endpoint.setPort(proxiedPort(endpoint.nodeId(), endpoint.host(), endpoint.port()))
                .setHost(HOST));
        boolean lied = false;
        for (ProduceResponseData.TopicProduceResponse topic : response.responses()) {
            for (ProduceResponseData.PartitionProduceResponse partition : topic.partitionResponses()) {
                ProduceResponseData.LeaderIdAndEpoch leader = partition.currentLeader();
                HintLie.Hint told = refused(ApiKey.PRODUCE, responder, clientId, new TopicPartition(topic.name(), partition.index()),
                        partition.errorCode(), new HintLie.Hint(leader.leaderId(), leader.leaderEpoch()));
                if (told != null) {
                    leader.setLeaderId(told.leaderId()).setLeaderEpoch(told.leaderEpoch());
                    lied = true;
                }
            }
        }
        if (lied && lie.addsRefusingEndpoint() && response.nodeEndpoints().find(HintLie.MISSING_BROKER) == null) {
            response.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(HintLie.MISSING_BROKER).setHost(HOST)
                    .setPort(refusingPort));
        }
    }

    private void rewriteFetch(int responder, String clientId, FetchResponseData response) {
        response.nodeEndpoints().forEach(endpoint -> endpoint.setPort(proxiedPort(endpoint.nodeId(), endpoint.host(), endpoint.port()))
                .setHost(HOST));
        boolean lied = false;
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            String name = name(topic.topic(), topic.topicId());
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                FetchResponseData.LeaderIdAndEpoch leader = partition.currentLeader();
                HintLie.Hint told = refused(ApiKey.FETCH, responder, clientId, new TopicPartition(name, partition.partitionIndex()),
                        partition.errorCode(), new HintLie.Hint(leader.leaderId(), leader.leaderEpoch()));
                if (told != null) {
                    leader.setLeaderId(told.leaderId()).setLeaderEpoch(told.leaderEpoch());
                    lied = true;
                }
            }
        }
        if (lied && lie.addsRefusingEndpoint() && response.nodeEndpoints().find(HintLie.MISSING_BROKER) == null) {
            response.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(HintLie.MISSING_BROKER).setHost(HOST)
                    .setPort(refusingPort));
        }
    }

    /**
     * Records a refusal for leadership and returns the hint to tell instead of {@code real}; null
     * when the partition was not refused for leadership or the broker gave no complete hint.
     */
    private HintLie.Hint refused(ApiKey api, int responder, String clientId, TopicPartition partition, short errorCode,
                                 HintLie.Hint real) {
        Errors error = Errors.forCode(errorCode);
        if (error != Errors.NOT_LEADER_OR_FOLLOWER && error != Errors.FENCED_LEADER_EPOCH) {
            return null;
        }
        of(api, partition).refused();
        if (real.leaderId() < 0 || real.leaderEpoch() < 0) {
            return null;
        }
        int third = brokers.keySet().stream().filter(id -> id != responder && id != real.leaderId()).findFirst().orElse(responder);
        int toldEpoch = toldEpochs.getOrDefault(clientId, Map.of()).getOrDefault(partition, 0);
        hintsRewritten.get(api).incrementAndGet();
        return lie.rewrite(real, new HintLie.Context(responder, toldEpoch, third));
    }

    private String name(String topic, Uuid topicId) {
        return topic != null && !topic.isEmpty() ? topic : topicNames.getOrDefault(topicId, topicId.toString());
    }

    private int proxiedPort(int nodeId, String host, int port) {
        return listenerFor(nodeId, InetSocketAddress.createUnresolved(host, port)).port();
    }

    private Listener listenerFor(int nodeId, InetSocketAddress upstream) {
        return brokers.computeIfAbsent(nodeId, id -> new Listener(id, upstream));
    }

    // ---------------------------------------------------------------- plumbing

    private void start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private static byte[] sized(byte[] frame) {
        return ByteBuffer.allocate(Framing.SIZE_PREFIX_BYTES + frame.length).putInt(frame.length).put(frame).array();
    }

    private static int portNothingListensOn() {
        try (ServerSocket reserved = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return reserved.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Closing is all that is left to do.
        }
    }

    /** A request the proxy passed on and must decode the answer to. */
    private record Sent(ApiKey api, short version, String clientId) {
    }

    @FunctionalInterface
    private interface FrameRewrite {
        byte[] apply(byte[] frame);
    }

    /** One broker's port: each connection to it gets a connection of its own to the broker. */
    private final class Listener {
        private final ServerSocket server;

        Listener(int nodeId, InetSocketAddress upstream) {
            try {
                server = new ServerSocket(0, 50, InetAddress.getByName(HOST));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            InetSocketAddress resolved = new InetSocketAddress(upstream.getHostString(), upstream.getPort());
            start("proxy-" + nodeId + "-accept", () -> {
                while (!closed) {
                    try {
                        Socket client = server.accept();
                        sockets.add(client);
                        if (closed) {
                            // close() may have gone over the sockets before this one was added.
                            closeQuietly(client);
                            return;
                        }
                        serve(nodeId, client, resolved);
                    } catch (IOException stopped) {
                        return;
                    }
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        void close() {
            closeQuietly(server);
        }
    }

    /** What passed through for one partition of one API. */
    private static final class PartitionTraffic {
        final List<Integer> destinations = new ArrayList<>();
        final List<Integer> leaderEpochs = new ArrayList<>();
        final List<Long> refusalNanos = new ArrayList<>();

        synchronized void sentTo(int nodeId, int leaderEpoch) {
            destinations.add(nodeId);
            leaderEpochs.add(leaderEpoch);
        }

        synchronized void refused() {
            refusalNanos.add(System.nanoTime());
        }

        synchronized <T> List<T> snapshot(Function<PartitionTraffic, List<T>> which) {
            return List.copyOf(which.apply(this));
        }
    }
}
