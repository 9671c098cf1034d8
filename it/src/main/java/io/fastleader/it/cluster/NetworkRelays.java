package io.fastleader.it.cluster;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.fastleader.it.network.DelayLink;

/**
 * The {@link DelayLink}s a {@link NetworkModel} puts in front of a cluster's nodes: one per node
 * and kind of traffic, plus, for each node with metadata lag, one per controller it reaches. A
 * link is opened the first time its address is asked for and kept until {@link #close()}, so a
 * node keeps its advertised addresses across restarts.
 *
 * <p>A node's client link listens while the node runs and its client links are not
 * {@linkplain #cutClientLinks cut}: a cut outlasts a restart of the node, and a node restored while
 * stopped gets its clients back when it starts.
 */
final class NetworkRelays implements AutoCloseable {

    /** What a link carries, which decides its delays. */
    enum Traffic {
        /** Clients to a broker's client listener. */
        CLIENT,
        /** Brokers to a broker's inter-broker (replication) listener. */
        INTER_BROKER,
        /** Nodes to a controller's listener: KRaft fetches, votes, broker heartbeats. */
        CONTROLLER
    }

    /** A link to {@code upstreamNode}'s listener for {@code traffic}, used by {@code user}, or by everybody if {@link #EVERY_NODE}. */
    private record Key(int upstreamNode, Traffic traffic, int user) {
    }

    private static final int EVERY_NODE = -1;

    private final NetworkModel model;
    private final Map<Key, DelayLink> links = new LinkedHashMap<>();
    private final Set<Integer> stoppedNodes = new HashSet<>();
    private final Set<Integer> cutClientNodes = new HashSet<>();

    NetworkRelays(NetworkModel model) {
        this.model = model;
    }

    /**
     * Where everybody reaches {@code nodeId}'s listener for {@code traffic}: a relay in front of
     * {@code direct}, or {@code direct} itself if the model puts no relay there.
     */
    synchronized InetSocketAddress address(int nodeId, Traffic traffic, InetSocketAddress direct) {
        boolean relayed = traffic == Traffic.CLIENT ? model.relaysClients() : model.relaysBrokers();
        if (!relayed) {
            return direct;
        }
        Duration oneWay = traffic == Traffic.CLIENT ? model.clientOneWay() : model.brokerOneWay();
        return links.computeIfAbsent(new Key(nodeId, traffic, EVERY_NODE),
            key -> DelayLink.open(direct, oneWay, oneWay, model.jitter())).address();
    }

    /**
     * Opens, for node {@code user} with metadata lag, its own link to controller
     * {@code controllerId}, whose answers come that much late. It listens on
     * {@link #laggingNodeLoopback(int) an address of the user's own}, on the port everybody else
     * reaches the controller at through {@link #address}: a node that resolves the controller's
     * host name to its own loopback address, while every other node resolves it to
     * {@code 127.0.0.1}, reaches the controller through this link wherever it learns the
     * controller's port, from {@code controller.quorum.voters} or from the KRaft leader itself.
     */
    synchronized void openLaggingControllerLink(int user, int controllerId, InetSocketAddress direct) {
        Duration lag = model.metadataLagOf(user);
        int port = address(controllerId, Traffic.CONTROLLER, direct).getPort();
        Duration oneWay = model.brokerOneWay();
        links.computeIfAbsent(new Key(controllerId, Traffic.CONTROLLER, user),
            key -> DelayLink.open(new InetSocketAddress(laggingNodeLoopback(user), port), direct, oneWay, oneWay.plus(lag), model.jitter()));
    }

    /** The loopback address of node {@code nodeId}'s own links to the controllers: {@code 127.1.0.(nodeId + 1)}. */
    static InetAddress laggingNodeLoopback(int nodeId) {
        if (nodeId < 0 || nodeId > 253) {
            throw new IllegalArgumentException("metadata lag is possible for node ids 0 to 253, not " + nodeId);
        }
        try {
            return InetAddress.getByAddress(new byte[] {127, 1, 0, (byte) (nodeId + 1)});
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes always make an IPv4 address", e);
        }
    }

    /** The ports of every link, suspended ones included, which no node may be given. */
    synchronized Set<Integer> ports() {
        return links.values().stream().map(DelayLink::port).collect(Collectors.toUnmodifiableSet());
    }

    /** Refuses connections to a stopped node and drops those open to it, as its own sockets would. */
    synchronized void nodeStopped(int nodeId) {
        stoppedNodes.add(nodeId);
        links.forEach((key, link) -> {
            if (key.upstreamNode() == nodeId) {
                link.suspend();
            }
        });
    }

    /** Accepts connections to a node again; call before it starts, so that its peers can reach it. */
    synchronized void nodeStarting(int nodeId) {
        stoppedNodes.remove(nodeId);
        links.forEach((key, link) -> {
            if (key.upstreamNode() == nodeId && (key.traffic() != Traffic.CLIENT || admitsClients(nodeId))) {
                link.resume();
            }
        });
    }

    /**
     * Closes every client connection open to {@code nodeId}, bytes on their way either direction
     * lost, as a network failure between them would; the node stays up and new connections are
     * accepted at once, unless its client links are cut.
     *
     * @throws IllegalStateException if no relay stands between the clients and the node
     */
    synchronized void dropClientConnections(int nodeId) {
        DelayLink link = clientLink(nodeId);
        link.suspend();
        if (admitsClients(nodeId)) {
            link.resume();
        }
    }

    /**
     * Closes every client connection to {@code nodeId} and refuses new ones until
     * {@link #restoreClientLinks}, whether the node runs, stops or starts meanwhile; its links to
     * other nodes stay as they are. Does nothing if already cut.
     *
     * @throws IllegalStateException if no relay stands between the clients and the node
     */
    synchronized void cutClientLinks(int nodeId) {
        DelayLink link = clientLink(nodeId);
        cutClientNodes.add(nodeId);
        link.suspend();
    }

    /**
     * Accepts client connections to {@code nodeId} again, at once if it runs, else when it starts.
     * Does nothing if its client links are not cut.
     *
     * @throws IllegalStateException if no relay stands between the clients and the node
     */
    synchronized void restoreClientLinks(int nodeId) {
        DelayLink link = clientLink(nodeId);
        cutClientNodes.remove(nodeId);
        if (admitsClients(nodeId)) {
            link.resume();
        }
    }

    /**
     * Adds {@code extraOneWay} to each direction of {@code nodeId}'s client link, on top of the
     * model's delay, for every chunk from now on ({@link DelayLink#addedDelay}); zero removes it.
     *
     * @throws IllegalStateException    if no relay stands between the clients and the node
     * @throws IllegalArgumentException if {@code extraOneWay} is negative
     */
    synchronized void delayClientLinks(int nodeId, Duration extraOneWay) {
        clientLink(nodeId).addedDelay(extraOneWay);
    }

    /**
     * How many bytes {@code nodeId} has sent its clients, counted as they reach its relay, before
     * their delay.
     *
     * @throws IllegalStateException if no relay stands between the clients and the node
     */
    synchronized long clientBytesFrom(int nodeId) {
        return clientLink(nodeId).bytesFromUpstream();
    }

    /** Whether {@code nodeId}'s client link should listen: the node runs and its client links are not cut. */
    private boolean admitsClients(int nodeId) {
        return !stoppedNodes.contains(nodeId) && !cutClientNodes.contains(nodeId);
    }

    private DelayLink clientLink(int nodeId) {
        DelayLink link = links.get(new Key(nodeId, Traffic.CLIENT, EVERY_NODE));
        if (link == null) {
            throw new IllegalStateException("clients reach node " + nodeId + " directly: the cluster's network model needs a client round trip");
        }
        return link;
    }

    /** Closes every link. */
    @Override
    public synchronized void close() {
        links.values().forEach(DelayLink::close);
        links.clear();
    }
}
