package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.fastleader.it.network.DelayLink;

/**
 * The network a fixture cluster pretends to run on. On loopback a round trip costs nothing, so
 * clients that differ by round trips (a refresh before a retry, a connection opened late) look
 * alike; this model puts {@link DelayLink}s in front of the brokers' listeners so that every hop
 * costs what it would between machines. Build one from {@link #loopback()} with the
 * {@code with...} methods and hand it to {@link ClusterSpec.Builder#network(NetworkModel)}.
 *
 * <p>A relay stands in front of a kind of traffic only if its round trip or the jitter is non-zero;
 * {@link #loopback()} has none at all, so brokers are reached directly.
 *
 * @param clientRtt   round trip between a client and any broker, bootstrap included: each broker's
 *                    client listener is advertised at a relay that delays each direction by half of it
 * @param brokerRtt   round trip between brokers: replication (the inter-broker listener) and KRaft
 *                    traffic (the controller listener), half of it each way
 * @param jitter      up to this much extra delay per chunk of bytes on every relay, drawn uniformly;
 *                    bytes are never reordered
 * @param metadataLag node id to how late that node hears from the KRaft quorum: every byte the quorum
 *                    sends it (the metadata log it fetches, the answers to its heartbeats) is held back
 *                    by this much on top of {@code brokerRtt / 2}, so a metadata change reaches the
 *                    node at least this long after the controller committed it, while the node is a
 *                    follower of the quorum. A client that asks that node for Metadata right after a
 *                    leader move is sent to the old leader.
 */
public record NetworkModel(Duration clientRtt, Duration brokerRtt, Duration jitter, Map<Integer, Duration> metadataLag) {

    private static final NetworkModel LOOPBACK = new NetworkModel(Duration.ZERO, Duration.ZERO, Duration.ZERO, Map.of());

    /** @throws IllegalArgumentException if a duration is negative or a node id is */
    public NetworkModel {
        requireNonNegative(clientRtt, "clientRtt");
        requireNonNegative(brokerRtt, "brokerRtt");
        requireNonNegative(jitter, "jitter");
        Objects.requireNonNull(metadataLag, "metadataLag");
        metadataLag.forEach((nodeId, lag) -> {
            if (nodeId == null || nodeId < 0) {
                throw new IllegalArgumentException("metadataLag names node id " + nodeId + "; node ids are 0 or more");
            }
            requireNonNegative(lag, "metadataLag of node " + nodeId);
        });
        metadataLag = Map.copyOf(metadataLag);
    }

    /** No delay anywhere and no relay: clients and brokers reach each other directly on loopback. */
    public static NetworkModel loopback() {
        return LOOPBACK;
    }

    /** This model with another client round trip. */
    public NetworkModel withClientRtt(Duration rtt) {
        return new NetworkModel(rtt, brokerRtt, jitter, metadataLag);
    }

    /** This model with another round trip between brokers. */
    public NetworkModel withBrokerRtt(Duration rtt) {
        return new NetworkModel(clientRtt, rtt, jitter, metadataLag);
    }

    /** This model with another jitter. */
    public NetworkModel withJitter(Duration maxExtraDelay) {
        return new NetworkModel(clientRtt, brokerRtt, maxExtraDelay, metadataLag);
    }

    /** This model with node {@code nodeId} hearing from the KRaft quorum {@code lag} late (zero: not at all). */
    public NetworkModel withMetadataLag(int nodeId, Duration lag) {
        Map<Integer, Duration> lags = new TreeMap<>(metadataLag);
        lags.put(nodeId, lag);
        return new NetworkModel(clientRtt, brokerRtt, jitter, lags);
    }

    /** Whether this model puts no relay anywhere. */
    public boolean isLoopback() {
        return !relaysClients() && !relaysBrokers() && !hasMetadataLag();
    }

    /** Whether clients reach the brokers through relays. */
    public boolean relaysClients() {
        return !clientRtt.isZero() || !jitter.isZero();
    }

    /** Whether brokers and controllers reach each other through relays. */
    public boolean relaysBrokers() {
        return !brokerRtt.isZero() || !jitter.isZero();
    }

    /** Whether some node hears from the quorum late. */
    public boolean hasMetadataLag() {
        return metadataLag.values().stream().anyMatch(lag -> !lag.isZero());
    }

    /** How late {@code nodeId} hears from the quorum; zero for a node without lag. */
    public Duration metadataLagOf(int nodeId) {
        return metadataLag.getOrDefault(nodeId, Duration.ZERO);
    }

    /** The longest metadata lag of any node. */
    public Duration maxMetadataLag() {
        return metadataLag.values().stream().max(Duration::compareTo).orElse(Duration.ZERO);
    }

    /** Each direction's delay between a client and a broker. */
    Duration clientOneWay() {
        return clientRtt.dividedBy(2);
    }

    /** Each direction's delay between two nodes. */
    Duration brokerOneWay() {
        return brokerRtt.dividedBy(2);
    }

    private static void requireNonNegative(Duration duration, String what) {
        Objects.requireNonNull(duration, what);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, but is " + duration);
        }
    }
}
