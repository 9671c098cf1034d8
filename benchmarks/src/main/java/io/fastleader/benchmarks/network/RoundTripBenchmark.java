package io.fastleader.benchmarks.network;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.SecurityConfig;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.Security;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Request round trips per second on one connection to one real, in-JVM Kafka 4.3.1 broker:
 * fastleader's {@link BrokerConnection} against kafka-clients' own {@link NetworkClient}.
 *
 * <p>Both send the same request, Metadata for no topics (an empty topic list, not "all topics";
 * no auto-creation, no authorized operations), at the highest version both sides negotiate, with
 * the same client id. One benchmark thread drives each client. Each op sends one request, then
 * waits until fewer than {@code inFlight} requests are unanswered, so at most {@code inFlight} are
 * outstanding and ops/s is completed round trips per second in steady state. {@code inFlight} is
 * also each client's {@code max.in.flight.requests.per.connection}.
 *
 * <p>JMH runs every (client, inFlight) pair in its own fork, so each pair gets a freshly started
 * broker with the same settings ({@link ClusterSpec#DEFAULT_BROKER_CONFIGS}) and its own warm-up.
 * {@code protocol} SSL puts both clients on TLS.
 * The broker runs in the benchmark's JVM and shares its CPUs with the client, as it does in the
 * integration tests: the figures compare the two clients, they are not broker capacity.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Threads(1)
public class RoundTripBenchmark {

    static final String CLIENT_ID = "fastleader-bench";
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** Requests outstanding at once on the connection. */
    @Param({"1", "5"})
    public int inFlight;

    /** The broker listener's and both clients' {@code security.protocol}: PLAINTEXT or SSL. */
    @Param({"PLAINTEXT"})
    public String protocol;

    KafkaTestCluster cluster;

    @Setup(Level.Trial)
    public void startBroker() {
        Security security = switch (protocol) {
            case "PLAINTEXT" -> Security.plaintext();
            case "SSL" -> Security.ssl();
            default -> throw new IllegalArgumentException("protocol must be PLAINTEXT or SSL, not " + protocol);
        };
        cluster = ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM).security(security).start();
    }

    @TearDown(Level.Trial)
    public void stopBroker() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Benchmark
    public void fastleader(FastleaderClient client, Blackhole blackhole) throws Exception {
        client.roundTrip(blackhole);
    }

    @Benchmark
    public void kafkaClients(KafkaClientsClient client, Blackhole blackhole) throws Exception {
        client.roundTrip(blackhole);
    }

    /** fastleader's connection: sends never block; the window holds the unanswered responses. */
    @State(Scope.Benchmark)
    public static class FastleaderClient {

        private final MetadataRequestData request = new MetadataRequestData()
            .setTopics(List.of())
            .setAllowAutoTopicCreation(false);
        private final ArrayDeque<CompletableFuture<ApiMessage>> window = new ArrayDeque<>();
        private BrokerConnection connection;
        private int inFlight;

        @Setup(Level.Trial)
        public void open(RoundTripBenchmark benchmark) throws Exception {
            inFlight = benchmark.inFlight;
            ConnectionConfig defaults = ConnectionConfig.defaults(CLIENT_ID);
            connection = BrokerConnection.open(benchmark.cluster.firstBootstrapAddress(), new ConnectionConfig(
                CLIENT_ID, inFlight, REQUEST_TIMEOUT, defaults.connectTimeout(), defaults.maxResponseBytes(),
                SecurityConfig.fromKafkaConfigs(benchmark.cluster.clientConfig())));
            MetadataResponseData first = (MetadataResponseData) connection.send(ApiKey.METADATA, request)
                .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (first.brokers().size() != 1 || !first.topics().isEmpty()) {
                throw new IllegalStateException("unexpected Metadata response: " + first);
            }
            System.out.println("fastleader: Metadata v" + connection.versions().version(ApiKey.METADATA) + ", "
                + benchmark.protocol);
        }

        void roundTrip(Blackhole blackhole) throws Exception {
            window.add(connection.send(ApiKey.METADATA, request));
            if (window.size() >= inFlight) {
                blackhole.consume(window.poll().get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            }
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            try {
                for (CompletableFuture<ApiMessage> response : window) {
                    response.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                }
                window.clear();
            } finally {
                if (connection != null) {
                    connection.close();
                }
            }
        }
    }

    /**
     * kafka-clients' own client network layer: a {@link NetworkClient} over a {@link Selector},
     * the pair under KafkaProducer, KafkaConsumer and the admin client, built the way the broker
     * builds its own inter-broker senders (a {@link ManualMetadataUpdater} with one fixed node,
     * {@code discoverBrokerVersions} on, so it negotiates with ApiVersions as fastleader does).
     * Higher-level clients would add their own threads and metadata logic and measure something
     * else; NetworkClient is public, if not a supported API, and is the closest peer of
     * BrokerConnection. It is single-threaded: the benchmark thread does the I/O itself in
     * {@code poll}, where fastleader writes on the calling thread and reads on its reader thread.
     */
    @State(Scope.Benchmark)
    public static class KafkaClientsClient {

        private final MetadataRequest.Builder request = new MetadataRequest.Builder(
            new org.apache.kafka.common.message.MetadataRequestData()
                .setTopics(List.of())
                .setAllowAutoTopicCreation(false));
        private final Time time = Time.SYSTEM;
        private Metrics metrics;
        private NetworkClient client;
        private Node node;

        @Setup(Level.Trial)
        public void open(RoundTripBenchmark benchmark) throws Exception {
            InetSocketAddress address = benchmark.cluster.firstBootstrapAddress();
            // The id only names the connection inside NetworkClient; the broker never sees it.
            node = new Node(0, address.getHostString(), address.getPort());
            LogContext logContext = new LogContext("[bench] ");
            metrics = new Metrics(time);
            ChannelBuilder channelBuilder = ClientUtils.createChannelBuilder(
                new AdminClientConfig(benchmark.cluster.clientConfig()), time, logContext);
            Selector selector = new Selector(Duration.ofMinutes(9).toMillis(), metrics, time, "bench", channelBuilder, logContext);
            client = new NetworkClient(selector, new ManualMetadataUpdater(List.of(node)), CLIENT_ID,
                benchmark.inFlight,
                50, 1000,                                                        // reconnect backoff, max
                Selectable.USE_DEFAULT_BUFFER_SIZE, Selectable.USE_DEFAULT_BUFFER_SIZE, // OS socket buffers, as fastleader
                Math.toIntExact(REQUEST_TIMEOUT.toMillis()),
                10_000, 30_000,                                                  // connection setup timeout, max
                time, true, new ApiVersions(), logContext, MetadataRecoveryStrategy.NONE);
            if (!NetworkClientUtils.awaitReady(client, node, time, REQUEST_TIMEOUT.toMillis())) {
                throw new IllegalStateException("kafka-clients could not connect to " + address);
            }
            ClientResponse first = NetworkClientUtils.sendAndReceive(client,
                client.newClientRequest(node.idString(), request, time.milliseconds(), true), time);
            MetadataResponse metadata = (MetadataResponse) first.responseBody();
            if (metadata.brokers().size() != 1 || !metadata.data().topics().isEmpty()) {
                throw new IllegalStateException("unexpected Metadata response: " + metadata);
            }
            System.out.println("kafka-clients: Metadata v" + first.requestHeader().apiVersion());
        }

        void roundTrip(Blackhole blackhole) {
            long now = time.milliseconds();
            client.send(client.newClientRequest(node.idString(), request, now, true), now);
            // NetworkClient accepts the next request once this one is written and fewer than
            // max.in.flight are unanswered: exactly "fewer than inFlight outstanding".
            while (!client.isReady(node, now)) {
                for (ClientResponse response : client.poll(REQUEST_TIMEOUT.toMillis(), now)) {
                    check(response);
                    blackhole.consume(response.responseBody());
                }
                now = time.milliseconds();
            }
        }

        private void check(ClientResponse response) {
            if (response.wasDisconnected() || response.wasTimedOut() || response.versionMismatch() != null) {
                throw new IllegalStateException("Metadata request failed: " + response);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            try {
                long deadline = time.milliseconds() + REQUEST_TIMEOUT.toMillis();
                while (client != null && client.hasInFlightRequests() && time.milliseconds() < deadline) {
                    client.poll(1_000, time.milliseconds()).forEach(this::check);
                }
            } finally {
                if (client != null) {
                    client.close();
                }
                if (metrics != null) {
                    metrics.close();
                }
            }
        }
    }
}
