package io.fastleader.benchmarks.network;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * the same client id. Each client's I/O thread drives it, as in the producers: kafka-clients'
 * {@code NetworkClient} is polled by the benchmark thread, fastleader's connection sends each next
 * request from its event loop when an answer completes there. Each request goes out once fewer than
 * {@code inFlight} are unanswered, so at most {@code inFlight} are outstanding and ops/s is
 * completed round trips per second in steady state. {@code inFlight} is
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
    /**
     * Round trips per invocation: fastleader's benchmark thread hands a run of them to the event
     * loop and waits once for the run, so what it measures is the loop's round trips, not a
     * thread handoff per request.
     */
    static final int ROUND_TRIPS_PER_OP = 200;

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
    @OperationsPerInvocation(ROUND_TRIPS_PER_OP)
    public void fastleader(FastleaderClient client, Blackhole blackhole) throws Exception {
        client.roundTrips(ROUND_TRIPS_PER_OP, blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS_PER_OP)
    public void kafkaClients(KafkaClientsClient client, Blackhole blackhole) {
        for (int i = 0; i < ROUND_TRIPS_PER_OP; i++) {
            client.roundTrip(blackhole);
        }
    }

    /**
     * fastleader's connection, driven from its event loop as the producer's sender drives it: each
     * answer, completed on the loop, sends the next request there, so at most {@code inFlight} are
     * outstanding and no request or answer crosses a thread.
     */
    @State(Scope.Benchmark)
    public static class FastleaderClient {

        private final MetadataRequestData request = new MetadataRequestData()
            .setTopics(List.of())
            .setAllowAutoTopicCreation(false);
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

        /** Runs {@code count} round trips on the loop, {@code inFlight} at a time, and waits for the last answer. */
        void roundTrips(int count, Blackhole blackhole) throws Exception {
            Run run = new Run(count, blackhole);
            for (int i = 0; i < inFlight; i++) {
                run.sendNext();
            }
            run.done.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }

        /**
         * One invocation's round trips. Counted atomically: the first sends come from the
         * benchmark thread while early answers may already be sending on the loop.
         */
        private final class Run {
            final CompletableFuture<Void> done = new CompletableFuture<>();
            final Blackhole blackhole;
            final AtomicInteger unsent;
            final AtomicInteger unanswered;

            Run(int count, Blackhole blackhole) {
                this.unsent = new AtomicInteger(count);
                this.unanswered = new AtomicInteger(count);
                this.blackhole = blackhole;
            }

            void sendNext() {
                if (unsent.getAndDecrement() > 0) {
                    connection.send(ApiKey.METADATA, request).whenComplete(this::answered);
                }
            }

            private void answered(ApiMessage response, Throwable failure) {
                if (failure != null) {
                    done.completeExceptionally(failure);
                    return;
                }
                blackhole.consume(response);
                sendNext();
                if (unanswered.decrementAndGet() == 0) {
                    done.complete(null);
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            if (connection != null) {
                connection.close();
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
     * {@code poll}, as fastleader's event loop does its own.
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
