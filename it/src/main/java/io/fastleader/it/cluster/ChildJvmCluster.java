package io.fastleader.it.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.SaslConfigs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KRaft cluster whose nodes are child JVMs running {@code kafka.Kafka}, so that a broker can be
 * killed for real (SIGKILL) and so that a broker other than the one on this JVM's classpath
 * ({@link KafkaRelease#LEGACY}, {@link KafkaRelease#KAFKA_3_9}) can run.
 *
 * <p>The initial nodes {@code 0..n-1} are combined brokers and controllers with a static
 * {@code controller.quorum.voters}; {@link #addBroker()} adds broker-only nodes. Everything a
 * node writes (data, its {@code server.properties}, and one {@code server.log} with its WARN
 * logs, stdout and stderr) lives in a temporary directory that {@link #close()} deletes. If the
 * cluster fails to start, the directory is kept and the exception quotes the failing node's log.
 * A shutdown hook kills the children if this JVM exits without {@link #close()}.
 *
 * <p>The client listener is PLAINTEXT, SSL with a certificate made for the cluster
 * ({@link ChildJvmTls}), or SASL_PLAINTEXT or SASL_SSL with unsecured OAUTHBEARER tokens (the
 * broker's default validator, replication logging in as {@code broker}); the controller listener is
 * always PLAINTEXT.
 *
 * <p>With a {@link NetworkModel} other than loopback, each node gets a separate inter-broker
 * listener, and every listener is advertised at the relay in front of it. With metadata lag, the
 * controllers are named by host names that each child JVM resolves through a hosts file of its
 * own ({@code jdk.net.hosts.file}): a lagging node resolves them to loopback addresses where
 * relays answer it late, every other node to {@code 127.0.0.1}. Names rather than per-node
 * {@code controller.quorum.voters} strings, because a Kafka 3.9+ KRaft leader tells its followers
 * its own advertised address, which would bypass such voters.
 */
final class ChildJvmCluster implements KafkaTestCluster {

    private static final Logger LOG = LoggerFactory.getLogger(ChildJvmCluster.class);

    private static final String HOST = "127.0.0.1";
    /** Replication gets a listener of its own when a network model makes it cost other than clients' requests. */
    private static final String INTER_BROKER_LISTENER = "INTERNAL";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final Path SYSTEM_HOSTS = Path.of("/etc/hosts");

    /**
     * Three brokers and the test share two cores: a modest heap, and the serial collector because
     * parallel GC threads in every JVM would only fight over the same cores.
     */
    private static final List<String> BROKER_JVM_OPTIONS =
        List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true");
    /** The storage tool runs for a second or two: C1 only, so it does not wait for C2 compiler threads. */
    private static final List<String> TOOL_JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /**
     * Nodes listen on ports below Linux's ephemeral range (32768 to 60999 by default): the kernel
     * hands none of these to a socket bound to port 0 (a relay) or to an outgoing connection, so no
     * such socket can take a node's port between its choice and the node binding it.
     */
    static final int FIRST_PORT = 20_000;
    static final int LAST_PORT = 32_767;
    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    /** A controlled shutdown takes well under a second here; this bounds one that hangs. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    /** On close every node stops at once and no data is kept, so stragglers are killed sooner. */
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);
    private static final int LOG_TAIL_LINES = 20;
    /** Kafka's defaults for the KRaft timeouts that metadata lag needs longer. */
    private static final long DEFAULT_QUORUM_FETCH_TIMEOUT_MS = 2000;
    private static final long DEFAULT_QUORUM_REQUEST_TIMEOUT_MS = 2000;
    private static final long DEFAULT_BROKER_HEARTBEAT_INTERVAL_MS = 2000;
    private static final long DEFAULT_BROKER_SESSION_TIMEOUT_MS = 9000;

    /** WARN and above to stdout, which the child's log file receives; {@link KroxyliciousProxy} uses it too. */
    static final String LOG4J2_CONFIG = """
        status = warn
        appender.stdout.type = Console
        appender.stdout.name = STDOUT
        appender.stdout.layout.type = PatternLayout
        appender.stdout.layout.pattern = [%d] %p %m (%c)%n
        rootLogger.level = WARN
        rootLogger.appenderRef.stdout.ref = STDOUT
        """;
    private static final String LOG4J1_CONFIG = """
        log4j.rootLogger=WARN, stdout
        log4j.appender.stdout=org.apache.log4j.ConsoleAppender
        log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
        log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
        """;

    private final ClusterSpec spec;
    private final Path dir;
    private final String clusterId = Uuid.randomUuid().toString();
    private final Map<Integer, Node> nodes = new ConcurrentSkipListMap<>();
    private final NetworkRelays relays;
    /** The client listener, named for its protocol: PLAINTEXT, SSL or SASL_SSL with {@link #tls}, or SASL_PLAINTEXT. */
    private final String brokerListener;
    /** The stores of a TLS client listener; null for one without TLS. */
    private final ChildJvmTls tls;
    /** Every child process not yet exited, format runs included: what the shutdown hook kills. */
    private final Set<Process> children = ConcurrentHashMap.newKeySet();
    private final Thread shutdownHook = new Thread(this::killChildren, "fastleader-child-jvm-cluster-reaper");
    private List<String> loggingOptions;
    private Path classpathArgs;
    /** Ids are never reused, not even after {@link #addBroker()} failed: the controller may remember them. */
    private int nextNodeId;
    private boolean closed;

    private ChildJvmCluster(ClusterSpec spec, Path dir) {
        this.spec = spec;
        this.dir = dir;
        this.relays = new NetworkRelays(spec.network());
        this.brokerListener = spec.security().protocol();
        this.tls = spec.security().protocol().endsWith("SSL") ? ChildJvmTls.create(dir, HOST) : null;
    }

    /** Formats and starts {@code spec.brokers()} combined nodes; returns once all are registered and unfenced. */
    static ChildJvmCluster start(ClusterSpec spec) {
        Path dir;
        try {
            dir = Files.createTempDirectory("fastleader-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the cluster", e);
        }
        ChildJvmCluster cluster = new ChildJvmCluster(spec, dir);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.startNodes();
        } catch (RuntimeException | Error e) {
            cluster.killChildren();
            cluster.relays.close();
            cluster.removeShutdownHook();
            throw e;
        }
        return cluster;
    }

    private synchronized void startNodes() {
        int count = spec.brokers();
        int[] ports = freePorts(3 * count);
        for (int i = 0; i < count; i++) {
            int id = nextNodeId++;
            int clientPort = spec.clientPorts().isEmpty() ? ports[3 * i] : spec.clientPorts().get(i);
            nodes.put(id, new Node(id, true, clientPort, interBrokerPort(ports[3 * i + 1]), ports[3 * i + 2], dir.resolve("node-" + id)));
        }
        try {
            loggingOptions = writeLoggingConfig();
            classpathArgs = writeClasspathArgs();
            for (Node node : nodes.values()) {
                writeServerProperties(node);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the configuration into " + dir, e);
        }
        format(nodes.values());
        for (Node node : nodes.values()) {
            launchBroker(node);
        }
        awaitRunningUnfenced(nodes.values());
    }

    @Override
    public String kafkaVersion() {
        return spec.release().version();
    }

    @Override
    public Execution execution() {
        return Execution.CHILD_JVM;
    }

    @Override
    public String bootstrapServers() {
        return nodes.values().stream().map(node -> HOST + ":" + clientAddress(node).getPort()).collect(Collectors.joining(","));
    }

    @Override
    public InetSocketAddress brokerAddress(int nodeId) {
        return clientAddress(existingNode(nodeId));
    }

    /** Where clients reach the node: its client listener, or the relay in front of it. */
    private InetSocketAddress clientAddress(Node node) {
        return relays.address(node.id, NetworkRelays.Traffic.CLIENT, new InetSocketAddress(HOST, node.brokerPort));
    }

    @Override
    public Map<String, Object> clientConfig() {
        Security security = spec.security();
        Map<String, Object> config = new HashMap<>(tls == null ? Map.of() : tls.clientConfig());
        if (security.isOAuthBearer()) {
            config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, security.protocol());
            config.put(SaslConfigs.SASL_MECHANISM, Security.OAUTHBEARER);
            config.put(SaslConfigs.SASL_JAAS_CONFIG, Security.unsecuredOAuthBearerLogin(security.username()));
        }
        config.putAll(security.clientConfigs());
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Map.copyOf(config);
    }

    @Override
    public SortedSet<Integer> brokerIds() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(nodes.keySet()));
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        return nodes.values().stream().filter(node -> !node.isRunning()).map(node -> node.id).collect(Collectors.toUnmodifiableSet());
    }

    /**
     * SIGTERM: {@code kafka.Kafka}'s shutdown hook does the controlled shutdown. That needs an
     * active controller; without a controller quorum Kafka would wait five minutes for one, so then
     * the broker is killed instead.
     */
    @Override
    public synchronized void stopBroker(int nodeId) {
        Node node = runningNode(nodeId);
        if (controllerQuorumRunning()) {
            node.process.destroy();
            if (!awaitExit(node.process, STOP_TIMEOUT)) {
                LOG.warn("node {} did not finish its controlled shutdown within {}; killed it", nodeId, STOP_TIMEOUT);
            }
        } else {
            LOG.info("no controller quorum is running, so node {} cannot shut down in a controlled way; killing it", nodeId);
            node.process.destroyForcibly();
            awaitExit(node.process, KILL_TIMEOUT);
        }
        awaitDown(node);
    }

    /** SIGKILL: no controlled shutdown, the broker's leaderships move only once the controller fences it. */
    @Override
    public synchronized void killBroker(int nodeId) {
        Node node = runningNode(nodeId);
        node.process.destroyForcibly();
        awaitExit(node.process, KILL_TIMEOUT);
        awaitDown(node);
    }

    @Override
    public boolean supportsKill() {
        return true;
    }

    @Override
    public synchronized void startBroker(int nodeId) {
        Node node = existingNode(nodeId);
        if (node.isRunning()) {
            throw new IllegalStateException("broker " + nodeId + " is already running");
        }
        launchAndAwaitUnfenced(node);
    }

    @Override
    public synchronized void dropClientConnections(int nodeId) {
        relays.dropClientConnections(runningNode(nodeId).id);
    }

    @Override
    public long clientBytesFrom(int nodeId) {
        return relays.clientBytesFrom(existingNode(nodeId).id);
    }

    @Override
    public synchronized void cutClientLinks(int nodeId) {
        relays.cutClientLinks(existingNode(nodeId).id);
    }

    @Override
    public synchronized void restoreClientLinks(int nodeId) {
        relays.restoreClientLinks(existingNode(nodeId).id);
    }

    @Override
    public synchronized void delayClientLinks(int nodeId, Duration extraOneWay) {
        relays.delayClientLinks(existingNode(nodeId).id, extraOneWay);
    }

    /** A broker-only node with the next unused id, formatted with this cluster's id. */
    @Override
    public synchronized int addBroker() {
        ensureOpen();
        int id = nextNodeId++;
        int[] ports = freePorts(2);
        Node node = new Node(id, false, ports[0], interBrokerPort(ports[1]), -1, dir.resolve("node-" + id));
        try {
            writeServerProperties(node);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the configuration of node " + id, e);
        }
        format(List.of(node));
        nodes.put(id, node);
        try {
            launchAndAwaitUnfenced(node);
        } catch (RuntimeException e) {
            nodes.remove(id);
            throw e;
        }
        return id;
    }

    /**
     * SIGKILL to every node, then the directory goes. The cluster is thrown away, so nothing is
     * gained by stopping it gracefully, and a graceful stop of every node costs about five seconds:
     * the last controller standing waits out KRaft's graceful shutdown for a successor that cannot
     * be elected any more.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        killChildren();
        relays.close();
        removeShutdownHook();
        deleteRecursively(dir);
    }

    private void format(Collection<Node> toFormat) {
        Map<Node, Process> formats = new LinkedHashMap<>();
        for (Node node : toFormat) {
            formats.put(node, launch(node, TOOL_JVM_OPTIONS, "kafka.tools.StorageTool",
                "format", "--cluster-id", clusterId, "--config", node.config().toString()));
        }
        for (Map.Entry<Node, Process> format : formats.entrySet()) {
            Node node = format.getKey();
            Process process = format.getValue();
            if (!awaitExit(process, FORMAT_TIMEOUT)) {
                throw failure("formatting the storage of node " + node.id + " took longer than " + FORMAT_TIMEOUT, List.of(node), null);
            }
            if (process.exitValue() != 0) {
                throw failure("formatting the storage of node " + node.id + " failed with exit code " + process.exitValue(), List.of(node), null);
            }
        }
    }

    /** Starts one node's broker; if it does not come up unfenced, kills it again and rethrows. */
    private void launchAndAwaitUnfenced(Node node) {
        relays.nodeStarting(node.id);
        launchBroker(node);
        try {
            awaitRunningUnfenced(List.of(node));
        } catch (RuntimeException e) {
            node.process.destroyForcibly();
            awaitExit(node.process, KILL_TIMEOUT);
            node.process = null;
            relays.nodeStopped(node.id);
            throw e;
        }
    }

    private void launchBroker(Node node) {
        List<String> jvmOptions = new ArrayList<>(BROKER_JVM_OPTIONS);
        jvmOptions.addAll(spec.brokerJvmOptions());
        node.process = launch(node, jvmOptions, "kafka.Kafka", node.config().toString());
    }

    private Process launch(Node node, List<String> jvmOptions, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(loggingOptions);
        command.add("-Dkafka.logs.dir=" + node.dir);
        if (node.hostsFile != null) {
            command.add("-Djdk.net.hosts.file=" + node.hostsFile);
        }
        command.add("@" + classpathArgs);
        command.add(mainClass);
        command.addAll(List.of(args));
        // The node's directory as working directory catches anything a JVM drops there (hs_err files).
        ProcessBuilder builder = new ProcessBuilder(command)
            .directory(node.dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log().toFile()));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + mainClass + " for node " + node.id, e);
        }
        children.add(process);
        process.onExit().thenRun(() -> children.remove(process));
        return process;
    }

    /**
     * Waits until every running broker is registered and unfenced. A child that exits meanwhile
     * fails the wait at once instead of after the registration timeout.
     *
     * @param starting the nodes whose logs explain a timeout
     */
    private void awaitRunningUnfenced(Collection<Node> starting) {
        List<Node> running = nodes.values().stream().filter(Node::isRunning).toList();
        Set<Integer> ids = running.stream().map(node -> node.id).collect(Collectors.toCollection(TreeSet::new));
        CompletableFuture<Node> exited = new CompletableFuture<>();
        running.forEach(node -> node.process.onExit().thenRun(() -> exited.complete(node)));
        ExecutorService waiter = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "fastleader-await-unfenced");
            thread.setDaemon(true);
            return thread;
        });
        Map<String, Object> clientConfig = clientConfig();
        try {
            CompletableFuture<Void> unfenced = CompletableFuture.runAsync(() -> BrokerRegistrations.awaitUnfenced(clientConfig, ids), waiter);
            if (CompletableFuture.anyOf(unfenced, exited).get() instanceof Node node) {
                throw failure("node " + node.id + " exited with code " + node.process.exitValue()
                    + " while brokers " + ids + " were starting", List.of(node), null);
            }
        } catch (ExecutionException e) {
            throw failure("brokers " + ids + " were not all registered and unfenced", starting, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for brokers " + ids + " to be unfenced", e);
        } finally {
            // Interrupts the registration wait when a child exited first.
            waiter.shutdownNow();
        }
    }

    /**
     * Returns once the cluster no longer counts the exited node as an unfenced broker, so that a
     * {@link #startBroker} right after cannot take the stale registration for the new one. A killed
     * broker stays unfenced until its session times out; even after a controlled shutdown, Kafka 3.6
     * brokers list it as unfenced for a moment. Without a controller quorum nobody can fence it, so
     * then the exit has to do.
     */
    private void awaitDown(Node node) {
        node.process = null;
        relays.nodeStopped(node.id);
        if (controllerQuorumRunning()) {
            BrokerRegistrations.awaitFenced(clientConfig(), node.id);
        }
    }

    /** Whether a majority of the controllers runs, so that there can be an active controller. */
    private boolean controllerQuorumRunning() {
        long controllers = nodes.values().stream().filter(node -> node.controller).count();
        long running = nodes.values().stream().filter(node -> node.controller && node.isRunning()).count();
        return 2 * running > controllers;
    }

    /**
     * Waits for a process to exit, killing it if it has not within {@code timeout}.
     *
     * @return whether it exited by itself
     */
    private static boolean awaitExit(Process process, Duration timeout) {
        try {
            if (process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return true;
            }
            process.destroyForcibly();
            if (!process.waitFor(KILL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException("process " + process.pid() + " is still alive " + KILL_TIMEOUT + " after SIGKILL");
            }
            return false;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for process " + process.pid() + " to exit; killed it", e);
        }
    }

    /** SIGKILL to every child still alive, and wait for each to be gone. */
    private void killChildren() {
        List<Process> live = List.copyOf(children);
        live.forEach(Process::destroyForcibly);
        live.forEach(process -> awaitExit(process, KILL_TIMEOUT));
    }

    private void removeShutdownHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs anyway and finds nothing left to kill.
        }
    }

    private List<String> writeLoggingConfig() throws IOException {
        if (spec.release().logsWithLog4j2()) {
            Path config = Files.writeString(dir.resolve("log4j2.properties"), LOG4J2_CONFIG);
            return List.of("-Dlog4j2.configurationFile=" + config);
        }
        Path config = Files.writeString(dir.resolve("log4j.properties"), LOG4J1_CONFIG);
        return List.of("-Dlog4j.configuration=" + config.toUri());
    }

    /**
     * The classpath goes into a java argument file: it keeps {@code ps} readable and stays clear of
     * Linux's 128 KiB limit on one argument.
     */
    private Path writeClasspathArgs() throws IOException {
        String classpath = spec.release().brokerClasspath().replace("\\", "\\\\").replace("\"", "\\\"");
        return Files.writeString(dir.resolve("classpath.args"), "-cp \"" + classpath + "\"\n");
    }

    private void writeServerProperties(Node node) throws IOException {
        int initialNodes = spec.brokers();
        Properties properties = new Properties();
        properties.setProperty("offsets.topic.replication.factor", Integer.toString(Math.min(3, initialNodes)));
        properties.setProperty("transaction.state.log.replication.factor", Integer.toString(Math.min(3, initialNodes)));
        properties.setProperty("transaction.state.log.min.isr", Integer.toString(Math.min(2, initialNodes)));
        properties.putAll(spec.effectiveBrokerConfigs());
        lengthenQuorumTimeoutsForMetadataLag(node, properties);
        // What makes the node part of this cluster comes last: no broker setting may change it.
        List<String> listeners = new ArrayList<>();
        List<String> advertised = new ArrayList<>();
        List<String> protocols = new ArrayList<>();
        listeners.add(brokerListener + "://" + HOST + ":" + node.brokerPort);
        String advertisedHost = spec.advertisedHost() == null ? HOST : spec.advertisedHost();
        advertised.add(brokerListener + "://" + advertisedHost + ":" + clientAddress(node).getPort());
        protocols.add(brokerListener + ":" + spec.security().protocol());
        if (tls != null) {
            tls.brokerConfig().forEach(properties::setProperty);
        }
        if (spec.security().isOAuthBearer()) {
            // Replication on the client listener logs in too: the broker's own unsecured token, which its default validator takes.
            properties.setProperty("sasl.enabled.mechanisms", Security.OAUTHBEARER);
            properties.setProperty("sasl.mechanism.inter.broker.protocol", Security.OAUTHBEARER);
            properties.setProperty("listener.name." + brokerListener.toLowerCase(Locale.ROOT) + ".oauthbearer.sasl.jaas.config",
                Security.unsecuredOAuthBearerLogin("broker"));
        }
        String interBrokerListener = brokerListener;
        if (node.interBrokerPort >= 0) {
            interBrokerListener = INTER_BROKER_LISTENER;
            InetSocketAddress relay = relays.address(node.id, NetworkRelays.Traffic.INTER_BROKER, new InetSocketAddress(HOST, node.interBrokerPort));
            listeners.add(INTER_BROKER_LISTENER + "://" + HOST + ":" + node.interBrokerPort);
            advertised.add(INTER_BROKER_LISTENER + "://" + HOST + ":" + relay.getPort());
            protocols.add(INTER_BROKER_LISTENER + ":PLAINTEXT");
        }
        if (node.controller) {
            listeners.add(CONTROLLER_LISTENER + "://" + HOST + ":" + node.controllerPort);
            if (!spec.network().isLoopback() && spec.release().advertisesControllerListeners()) {
                // The KRaft leader sends this to its followers, so it must lead through the relays too.
                advertised.add(CONTROLLER_LISTENER + "://" + controllerEndpoint(node));
            }
        }
        protocols.add(CONTROLLER_LISTENER + ":PLAINTEXT");
        properties.setProperty("node.id", Integer.toString(node.id));
        properties.setProperty("process.roles", node.controller ? "broker,controller" : "broker");
        properties.setProperty("controller.quorum.voters", voters());
        properties.setProperty("controller.listener.names", CONTROLLER_LISTENER);
        properties.setProperty("listeners", String.join(",", listeners));
        // Kafka before 3.9 rejects controller listeners here; later ones fall back to listeners for them.
        properties.setProperty("advertised.listeners", String.join(",", advertised));
        properties.setProperty("listener.security.protocol.map", String.join(",", protocols));
        properties.setProperty("inter.broker.listener.name", interBrokerListener);
        properties.setProperty("log.dirs", node.dir.resolve("data").toString());
        Files.createDirectories(node.dir);
        node.hostsFile = writeHostsFile(node);
        try (OutputStream out = Files.newOutputStream(node.config())) {
            properties.store(out, "node " + node.id + " of " + dir);
        }
    }

    /** {@code controller.quorum.voters}: every controller where it is advertised. */
    private String voters() {
        return nodes.values().stream()
            .filter(voter -> voter.controller)
            .map(voter -> voter.id + "@" + controllerEndpoint(voter))
            .collect(Collectors.joining(","));
    }

    /**
     * Where nodes reach a controller: its listener or the relay in front of it, under the host name
     * the hosts files resolve if some node lags.
     */
    private String controllerEndpoint(Node controller) {
        String host = spec.network().hasMetadataLag() ? controllerHostName(controller.id) : HOST;
        return host + ":" + relays.address(controller.id, NetworkRelays.Traffic.CONTROLLER, controllerListener(controller)).getPort();
    }

    private static String controllerHostName(int nodeId) {
        return "kraft-controller-" + nodeId + ".fastleader.test";
    }

    private static InetSocketAddress controllerListener(Node controller) {
        return new InetSocketAddress(HOST, controller.controllerPort);
    }

    /**
     * The hosts file of {@code node}'s JVM: the system's, plus every controller's host name, resolved
     * to the node's own lagging links if it has metadata lag (which this opens), else to
     * {@code 127.0.0.1}. Null if no node lags: then names are not used.
     */
    private Path writeHostsFile(Node node) throws IOException {
        if (!spec.network().hasMetadataLag()) {
            return null;
        }
        boolean lagging = !spec.network().metadataLagOf(node.id).isZero();
        StringBuilder hosts = new StringBuilder(Files.exists(SYSTEM_HOSTS) ? Files.readString(SYSTEM_HOSTS) : "127.0.0.1 localhost");
        hosts.append("\n# controllers as node ").append(node.id).append(" reaches them\n");
        for (Node controller : nodes.values()) {
            if (!controller.controller) {
                continue;
            }
            String address = HOST;
            if (lagging && controller.id != node.id) {
                relays.openLaggingControllerLink(node.id, controller.id, controllerListener(controller));
                address = NetworkRelays.laggingNodeLoopback(node.id).getHostAddress();
            }
            hosts.append(address).append(' ').append(controllerHostName(controller.id)).append('\n');
        }
        return Files.writeString(node.dir.resolve("hosts"), hosts);
    }

    /**
     * A node that hears from the quorum late must not take that for a failure, nor may the
     * controllers: its KRaft fetches and requests and its broker heartbeats (whose interval is also
     * their request timeout) get that much longer before they time out, and every controller gives
     * broker sessions room for such slow heartbeats. Both directions are counted twice to leave
     * room for the broker's own pauses.
     */
    private void lengthenQuorumTimeoutsForMetadataLag(Node node, Properties properties) {
        NetworkModel network = spec.network();
        if (!network.hasMetadataLag()) {
            return;
        }
        long longestSlackMs = 2 * (network.maxMetadataLag().toMillis() + network.brokerRtt().toMillis());
        lengthen(properties, "broker.session.timeout.ms", DEFAULT_BROKER_SESSION_TIMEOUT_MS, 2 * longestSlackMs);
        Duration lag = network.metadataLagOf(node.id);
        if (!lag.isZero()) {
            long slackMs = 2 * (lag.toMillis() + network.brokerRtt().toMillis());
            lengthen(properties, "controller.quorum.fetch.timeout.ms", DEFAULT_QUORUM_FETCH_TIMEOUT_MS, slackMs);
            lengthen(properties, "controller.quorum.request.timeout.ms", DEFAULT_QUORUM_REQUEST_TIMEOUT_MS, slackMs);
            lengthen(properties, "broker.heartbeat.interval.ms", DEFAULT_BROKER_HEARTBEAT_INTERVAL_MS, slackMs);
        }
    }

    private static void lengthen(Properties properties, String key, long defaultMs, long byMs) {
        long configured = Long.parseLong(properties.getProperty(key, Long.toString(defaultMs)));
        properties.setProperty(key, Long.toString(configured + byMs));
    }

    /** The inter-broker listener's port if the network model asks for one, else -1. */
    private int interBrokerPort(int freePort) {
        return spec.network().isLoopback() ? -1 : freePort;
    }

    /** Distinct free ports, none of them already given to a node of this cluster or to a relay. */
    private int[] freePorts(int count) {
        Set<Integer> taken = nodes.values().stream()
            .flatMap(node -> Stream.of(node.brokerPort, node.interBrokerPort, node.controllerPort))
            .collect(Collectors.toSet());
        taken.addAll(spec.clientPorts());
        taken.addAll(relays.ports());
        List<ServerSocket> held = new ArrayList<>();
        int[] ports = new int[count];
        int candidate = FIRST_PORT + ThreadLocalRandom.current().nextInt(LAST_PORT - FIRST_PORT + 1);
        try {
            // Holding every socket until all are found keeps two nodes from being given one port.
            for (int found = 0, tried = 0; found < count; tried++, candidate = candidate == LAST_PORT ? FIRST_PORT : candidate + 1) {
                if (tried > LAST_PORT - FIRST_PORT) {
                    throw new IllegalStateException("fewer than " + count + " free ports between " + FIRST_PORT + " and " + LAST_PORT);
                }
                if (taken.contains(candidate)) {
                    continue;
                }
                ServerSocket socket = new ServerSocket();
                try {
                    socket.bind(new InetSocketAddress(HOST, candidate));
                } catch (IOException inUse) {
                    socket.close();
                    continue;
                }
                held.add(socket);
                taken.add(candidate);
                ports[found++] = candidate;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find free ports", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException e) {
                    LOG.debug("closing probe socket {}", socket, e);
                }
            }
        }
        return ports;
    }

    private Node existingNode(int nodeId) {
        ensureOpen();
        Node node = nodes.get(nodeId);
        if (node == null) {
            throw new IllegalArgumentException("no broker " + nodeId + "; brokers are " + nodes.keySet());
        }
        return node;
    }

    private Node runningNode(int nodeId) {
        Node node = existingNode(nodeId);
        if (!node.isRunning()) {
            throw new IllegalStateException("broker " + nodeId + " is not running");
        }
        return node;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the cluster is closed");
        }
    }

    /** An exception naming the suspect nodes' log files, with their last lines. */
    private IllegalStateException failure(String what, Collection<Node> suspects, Throwable cause) {
        StringBuilder message = new StringBuilder(what).append(" (Kafka ").append(kafkaVersion()).append(')');
        for (Node node : suspects) {
            message.append("\n--- last lines of ").append(node.log()).append(" ---\n").append(tail(node.log()));
        }
        return new IllegalStateException(message.toString(), cause);
    }

    private static String tail(Path file) {
        try {
            // WARN-level logs stay small, even after a long benchmark.
            List<String> lines = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (NoSuchFileException e) {
            return "(no log written)";
        } catch (IOException e) {
            return "(cannot read the log: " + e + ")";
        }
    }

    private static void deleteRecursively(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.deleteIfExists(directory);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the cluster's directory " + root, e);
        }
    }

    /** One Kafka node: its identity and ports are fixed, its process changes with every start. */
    private static final class Node {
        final int id;
        final boolean controller;
        final int brokerPort;
        /** -1 if replication shares the client listener. */
        final int interBrokerPort;
        /** -1 for a broker-only node. */
        final int controllerPort;
        final Path dir;
        /** The JVM's own hosts file, or null for the system's name resolution. */
        Path hostsFile;
        volatile Process process;

        Node(int id, boolean controller, int brokerPort, int interBrokerPort, int controllerPort, Path dir) {
            this.id = id;
            this.controller = controller;
            this.brokerPort = brokerPort;
            this.interBrokerPort = interBrokerPort;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }

        Path config() {
            return dir.resolve("server.properties");
        }

        Path log() {
            return dir.resolve("server.log");
        }

        boolean isRunning() {
            Process current = process;
            return current != null && current.isAlive();
        }
    }
}
