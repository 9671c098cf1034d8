package io.fastleader.it.cluster;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;

/**
 * A real Apache Kafka cluster in KRaft mode, started for a test or a benchmark, that can be
 * disturbed on cue. Every method that changes the cluster returns once the cluster reports the
 * new state.
 */
public interface KafkaTestCluster extends AutoCloseable {

    /** The Apache Kafka version the brokers run, e.g. {@code 4.3.1}. */
    String kafkaVersion();

    /** How the brokers run. */
    Execution execution();

    /** {@code bootstrap.servers} for clients. */
    String bootstrapServers();

    /** The first address of {@link #bootstrapServers()}, for a connection to one broker. */
    default InetSocketAddress firstBootstrapAddress() {
        String first = bootstrapServers().split(",")[0];
        int colon = first.lastIndexOf(':');
        return new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }

    /** Everything a kafka-clients client needs to connect: bootstrap servers and security settings. */
    Map<String, Object> clientConfig();

    /** Node ids of every broker, running or stopped. */
    SortedSet<Integer> brokerIds();

    /** Node ids of the brokers that are stopped or killed. */
    Set<Integer> stoppedBrokers();

    /**
     * Stops a broker gracefully (controlled shutdown: its leaderships move away first) and
     * returns once it is down.
     */
    void stopBroker(int nodeId);

    /**
     * Kills a broker abruptly, without controlled shutdown, and returns once it is down.
     *
     * @throws UnsupportedOperationException if the brokers share this JVM ({@link #supportsKill()})
     */
    void killBroker(int nodeId);

    /** Whether {@link #killBroker} is possible: only a broker in its own process can be killed. */
    boolean supportsKill();

    /** Starts a stopped or killed broker and returns once it is registered and unfenced. */
    void startBroker(int nodeId);

    /** Adds a broker to the cluster and returns its node id once it is registered and unfenced. */
    int addBroker();

    /** Stops every broker and controller; no broker thread, process or listening port is left. */
    @Override
    void close();
}
