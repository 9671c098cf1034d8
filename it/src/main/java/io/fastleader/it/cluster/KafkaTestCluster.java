package io.fastleader.it.cluster;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
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

    /** The addresses in {@link #bootstrapServers()}, one per running broker. */
    default List<InetSocketAddress> bootstrapAddresses() {
        return Arrays.stream(bootstrapServers().split(","))
            .map(address -> {
                int colon = address.lastIndexOf(':');
                return InetSocketAddress.createUnresolved(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
            })
            .toList();
    }

    /** The first of {@link #bootstrapAddresses()}, for a connection to one broker. */
    default InetSocketAddress firstBootstrapAddress() {
        InetSocketAddress first = bootstrapAddresses().get(0);
        return new InetSocketAddress(first.getHostString(), first.getPort());
    }

    /**
     * Where clients reach broker {@code nodeId}: the address its client listener advertises, which
     * is the relay in front of it when the cluster has a {@link NetworkModel} with client delays.
     * It stays the same while the broker is stopped and after it restarts.
     *
     * @throws IllegalArgumentException      if there is no such broker
     * @throws UnsupportedOperationException if this cluster cannot tell
     */
    default InetSocketAddress brokerAddress(int nodeId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not tell where each broker is");
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

    /**
     * Closes every client connection open to broker {@code nodeId}, as a network failure between
     * them would, while the broker runs on: requests and answers on their way are lost. Clients
     * may connect again at once, unless its client links are {@linkplain #cutClientLinks cut}. The
     * connections run through the relays of a {@link NetworkModel} with a client round trip, which
     * the cluster must have.
     *
     * @throws UnsupportedOperationException if this cluster cannot
     * @throws IllegalStateException         if its clients reach the broker directly
     */
    default void dropClientConnections(int nodeId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot drop client connections");
    }

    /**
     * How many bytes broker {@code nodeId} has sent its clients, counted as they reach its relay,
     * before the delay the {@link NetworkModel} adds: a test sees an answer leave the broker while
     * it is still on its way, and can cut the connection under it ({@link #dropClientConnections}).
     *
     * @throws UnsupportedOperationException if this cluster cannot tell
     * @throws IllegalStateException         if its clients reach the broker directly
     */
    default long clientBytesFrom(int nodeId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not count the bytes of client connections");
    }

    /**
     * Cuts broker {@code nodeId} off from its clients, as a network partition between them would,
     * while the broker runs on: every client connection to it is closed, requests and answers on
     * their way lost, and new ones are refused until {@link #restoreClientLinks}. Its replication
     * and KRaft traffic go on, so it keeps its leaderships and its place in the ISRs. The cut
     * outlasts a {@link #stopBroker stop} and {@link #startBroker start} of the broker, whose
     * start is then confirmed through the other brokers. Does nothing if already cut. The
     * connections run through the relays of a {@link NetworkModel} with a client round trip, which
     * the cluster must have.
     *
     * @throws UnsupportedOperationException if this cluster cannot
     * @throws IllegalArgumentException      if there is no such broker
     * @throws IllegalStateException         if its clients reach the broker directly
     */
    default void cutClientLinks(int nodeId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot cut client links");
    }

    /**
     * Undoes {@link #cutClientLinks}: broker {@code nodeId} accepts client connections again, at
     * once if it runs, else once it starts. Does nothing if its client links are not cut.
     *
     * @throws UnsupportedOperationException if this cluster cannot
     * @throws IllegalArgumentException      if there is no such broker
     * @throws IllegalStateException         if its clients reach the broker directly
     */
    default void restoreClientLinks(int nodeId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot restore client links");
    }

    /**
     * Slows the path between broker {@code nodeId} and its clients: {@code extraOneWay} is added to
     * each direction's delay, on top of the {@link NetworkModel}'s, for every chunk of bytes that
     * reaches its relay from now on, on open connections and new ones; bytes are never reordered.
     * {@link Duration#ZERO} restores the model's delay. The delay outlasts restarts of the broker.
     *
     * @param extraOneWay the extra delay each way; replaces any added before
     * @throws UnsupportedOperationException if this cluster cannot
     * @throws IllegalArgumentException      if there is no such broker, or {@code extraOneWay} is negative
     * @throws IllegalStateException         if its clients reach the broker directly
     */
    default void delayClientLinks(int nodeId, Duration extraOneWay) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot delay client links");
    }

    /** Adds a broker to the cluster and returns its node id once it is registered and unfenced. */
    int addBroker();

    /** Stops every broker and controller; no broker thread, process or listening port is left. */
    @Override
    void close();
}
