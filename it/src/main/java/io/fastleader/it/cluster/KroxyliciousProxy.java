package io.fastleader.it.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;

/**
 * A Kroxylicious proxy (with fastleader's broker plugin on its classpath) in a child JVM in front
 * of a {@link KafkaTestCluster}, configured through the same YAML a user writes
 * ({@code broker-plugin/README.md}).
 *
 * <p>It runs in its own JVM because Kroxylicious 0.12.0 needs kafka-clients 4.0.0 and the test
 * JVM runs 4.3.1. Its classpath is resolved by Maven in {@code it/kroxylicious-proxy}. Each
 * broker gets its own proxy port ({@code portIdentifiesNode}): node {@code n} is reached at
 * {@link #nodeAddress(int) bootstrap port + 1 + n}, for node ids up to {@value #MAX_NODE_ID}.
 */
public final class KroxyliciousProxy implements AutoCloseable {

    /** The highest broker node id the proxy gives a port. */
    public static final int MAX_NODE_ID = 9;

    private static final String HOST = "127.0.0.1";
    private static final String CLASSPATH_RESOURCE = "kroxylicious-proxy.classpath";
    private static final String MAIN_CLASS = "io.fastleader.broker.ProxyMain";
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int LOG_TAIL_LINES = 30;

    private final Path dir;
    private final int bootstrapPort;
    private final Process process;
    private final Thread reaper;

    private KroxyliciousProxy(Path dir, int bootstrapPort, Process process, Thread reaper) {
        this.dir = dir;
        this.bootstrapPort = bootstrapPort;
        this.process = process;
        this.reaper = reaper;
    }

    /**
     * Starts a proxy in front of {@code cluster} and returns once clients can reach every running
     * broker through it.
     *
     * @param leaderHints whether the leader-hint filter runs; without it the proxy is plain Kroxylicious
     */
    public static KroxyliciousProxy start(KafkaTestCluster cluster, boolean leaderHints) {
        Path dir;
        int port = freePortRange(MAX_NODE_ID + 2);
        Process process;
        try {
            dir = Files.createTempDirectory("fastleader-proxy-");
            Path config = Files.writeString(dir.resolve("proxy.yaml"), configuration(cluster.bootstrapServers(), port, leaderHints));
            Path logging = Files.writeString(dir.resolve("log4j2.properties"), ChildJvmCluster.LOG4J2_CONFIG);
            Path classpath = Files.writeString(dir.resolve("classpath.args"), "-cp \"" + proxyClasspath().replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n");
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(JVM_OPTIONS);
            command.add("-Dlog4j2.configurationFile=" + logging);
            command.add("@" + classpath);
            command.add(MAIN_CLASS);
            command.add(config.toString());
            process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("proxy.log").toFile())
                .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kroxylicious proxy", e);
        }
        Thread reaper = new Thread(process::destroyForcibly, "fastleader-proxy-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        KroxyliciousProxy proxy = new KroxyliciousProxy(dir, port, process, reaper);
        try {
            proxy.awaitReady(cluster.brokerIds().size() - cluster.stoppedBrokers().size());
        } catch (RuntimeException e) {
            String log = proxy.logTail();
            proxy.close();
            throw new IllegalStateException(e.getMessage() + "; proxy log:\n" + log, e);
        }
        return proxy;
    }

    /**
     * The proxy's configuration: one virtual cluster in front of {@code targetBootstrap}, one port
     * per node, and the leader-hint filter if asked for.
     */
    static String configuration(String targetBootstrap, int bootstrapPort, boolean leaderHints) {
        String proxy = """
            virtualClusters:
              - name: fastleader-it
                targetCluster:
                  bootstrapServers: %s
                gateways:
                  - name: plain
                    portIdentifiesNode:
                      bootstrapAddress: %s:%d
                      nodeStartPort: %d
                      nodeIdRanges:
                        - name: brokers
                          start: 0
                          end: %d
            """.formatted(targetBootstrap, HOST, bootstrapPort, bootstrapPort + 1, MAX_NODE_ID);
        String hints = """
            filterDefinitions:
              - name: leader-hints
                type: io.fastleader.broker.LeaderHintFilterFactory
                config:
                  metadataMaxAgeMs: 1000
                  refreshTimeoutMs: 2000
            defaultFilters:
              - leader-hints
            """;
        return leaderHints ? proxy + hints : proxy;
    }

    private void awaitReady(int brokers) {
        Map<String, Object> config = new HashMap<>(clientConfig());
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
        try (Admin admin = Admin.create(config)) {
            Await.until("the proxy to list " + brokers + " brokers", START_TIMEOUT, () -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the proxy exited with code " + process.exitValue());
                }
                return admin.describeCluster().nodes().get().size() == brokers;
            });
        }
    }

    /** {@code bootstrap.servers} for clients that go through the proxy. */
    public String bootstrapServers() {
        return HOST + ":" + bootstrapPort;
    }

    /** The proxy's bootstrap address. */
    public InetSocketAddress bootstrapAddress() {
        return new InetSocketAddress(HOST, bootstrapPort);
    }

    /** Where a client reaches broker {@code nodeId} through the proxy. */
    public InetSocketAddress nodeAddress(int nodeId) {
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new IllegalArgumentException("the proxy has ports for node ids 0.." + MAX_NODE_ID + ", not " + nodeId);
        }
        return new InetSocketAddress(HOST, bootstrapPort + 1 + nodeId);
    }

    /** Client settings for going through the proxy. */
    public Map<String, Object> clientConfig() {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    }

    /** Stops the proxy and deletes its directory. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // The JVM is shutting down: the hook runs anyway and finds the process gone.
        }
        deleteDirectory();
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("proxy.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void deleteDirectory() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    private static String proxyClasspath() {
        try (InputStream in = KroxyliciousProxy.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + CLASSPATH_RESOURCE + " is missing: build it/kroxylicious-proxy first");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The first of {@code count} consecutive ports that are all free now. Another process may
     * still take one before the proxy binds it; then the proxy fails to start and says so.
     */
    private static int freePortRange(int count) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int first;
            try (ServerSocket probe = new ServerSocket(0)) {
                first = probe.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free port", e);
            }
            if (first + count <= 65535 && allFree(first, count)) {
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports found");
    }

    private static boolean allFree(int first, int count) {
        for (int port = first; port < first + count; port++) {
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
                probe.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
