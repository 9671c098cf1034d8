package io.fastleader.it.cluster;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;

import io.fastleader.it.sim.SimulatedCluster;

/**
 * A {@link KafkaTestCluster} whose brokers are a {@link SimulatedCluster} in this JVM
 * ({@link Execution#SIMULATED}): the fixtures and scenarios written for real brokers run on it
 * unchanged, through Admin and the clients.
 *
 * <p>A stop is a controlled shutdown: leadership moves, the broker serves on for one
 * {@code broker.heartbeat.interval.ms} (the fixtures' 500 ms unless set), then stops. A kill resets the broker's connections at
 * once and leaves it leading what it led until the controller would notice, one
 * {@code broker.session.timeout.ms} later (the fixtures' 3 s unless set), when its partitions fail
 * over; a start before then keeps them. Only plaintext listeners on loopback, the current
 * release's protocol and the fixtures' own broker settings are simulated: a spec asking for
 * anything else is refused ({@link #start}).
 */
public final class SimulatedTestCluster implements KafkaTestCluster {

    private static final String SESSION_TIMEOUT = "broker.session.timeout.ms";
    private static final String HEARTBEAT_INTERVAL = "broker.heartbeat.interval.ms";

    private final SimulatedCluster cluster;
    private final long sessionTimeoutMs;
    private final long heartbeatIntervalMs;
    private final SortedSet<Integer> brokerIds;
    /** Kills the controller has not noticed yet: the fail-over each will bring. */
    private final Map<Integer, ScheduledFuture<?>> failOvers = new HashMap<>();
    private final ScheduledExecutorService controller;

    private SimulatedTestCluster(SimulatedCluster cluster, Map<String, String> brokerConfigs) {
        this.cluster = cluster;
        this.sessionTimeoutMs = Long.parseLong(brokerConfigs.get(SESSION_TIMEOUT));
        this.heartbeatIntervalMs = Long.parseLong(brokerConfigs.get(HEARTBEAT_INTERVAL));
        this.brokerIds = new TreeSet<>(cluster.brokerIds());
        this.controller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, cluster.name() + "-controller");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts {@code spec.brokers()} simulated brokers.
     *
     * @throws IllegalArgumentException if the spec asks for what the simulation does not have:
     *                                  another release, security, a network model, feature levels or broker settings
     *                                  other than the fixtures' defaults and {@code broker.session.timeout.ms}
     */
    static SimulatedTestCluster start(ClusterSpec spec) {
        if (spec.release() != KafkaRelease.CURRENT || !spec.security().isPlaintext() || !spec.network().isLoopback()
                || !spec.featureLevels().isEmpty()) {
            throw new IllegalArgumentException("a simulated cluster has the current release's protocol, plaintext listeners "
                + "on loopback and no feature levels to set; asked for Kafka " + spec.release().version() + ", "
                + spec.security().protocol() + ", network " + spec.network() + ", features " + spec.featureLevels());
        }
        Set<String> unsimulated = new TreeSet<>(spec.brokerConfigs().keySet());
        unsimulated.removeAll(ClusterSpec.DEFAULT_BROKER_CONFIGS.keySet());
        if (!unsimulated.isEmpty()) {
            throw new IllegalArgumentException("a simulated cluster has no broker settings " + unsimulated);
        }
        return new SimulatedTestCluster(SimulatedCluster.builder().brokers(spec.brokers()).start(), spec.effectiveBrokerConfigs());
    }

    /** The simulation itself, for what a real cluster has no command for (moving one leader, injecting an error, ...). */
    public SimulatedCluster simulation() {
        return cluster;
    }

    @Override
    public String kafkaVersion() {
        return "simulated";
    }

    @Override
    public Execution execution() {
        return Execution.SIMULATED;
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public InetSocketAddress brokerAddress(int nodeId) {
        String address = cluster.brokerAddress(nodeId);
        int colon = address.lastIndexOf(':');
        return new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    @Override
    public Map<String, Object> clientConfig() {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    }

    @Override
    public synchronized SortedSet<Integer> brokerIds() {
        return new TreeSet<>(brokerIds);
    }

    @Override
    public synchronized Set<Integer> stoppedBrokers() {
        Set<Integer> stopped = new TreeSet<>();
        brokerIds.stream().filter(id -> !cluster.isRunning(id)).forEach(stopped::add);
        return stopped;
    }

    /**
     * A controlled shutdown as a real broker's goes: its leadership moves first, then it serves on
     * (refusing, with hints, what it no longer leads) until its next heartbeat would learn it may
     * stop, one {@code broker.heartbeat.interval.ms} later, and then it stops.
     */
    @Override
    public synchronized void stopBroker(int nodeId) {
        cluster.moveLeadershipOff(nodeId);
        try {
            Thread.sleep(heartbeatIntervalMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while broker " + nodeId + " was shutting down", e);
        }
        cluster.stopBroker(nodeId);
    }

    @Override
    public synchronized void killBroker(int nodeId) {
        cluster.killBroker(nodeId);
        failOvers.put(nodeId, controller.schedule(() -> noticeKilled(nodeId), sessionTimeoutMs, TimeUnit.MILLISECONDS));
    }

    private synchronized void noticeKilled(int nodeId) {
        if (failOvers.remove(nodeId) != null) {
            cluster.failOver(nodeId);
        }
    }

    @Override
    public boolean supportsKill() {
        return true;
    }

    @Override
    public synchronized void startBroker(int nodeId) {
        ScheduledFuture<?> failOver = failOvers.remove(nodeId);
        if (failOver != null) {
            failOver.cancel(false);
        }
        cluster.startBroker(nodeId);
    }

    /** Adds a broker to the simulation; it leads nothing until a reassignment puts partitions there. */
    @Override
    public synchronized int addBroker() {
        int id = cluster.addBroker();
        brokerIds.add(id);
        return id;
    }

    @Override
    public void close() {
        controller.shutdownNow();
        try {
            controller.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cluster.close();
    }
}
