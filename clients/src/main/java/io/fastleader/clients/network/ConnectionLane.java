package io.fastleader.clients.network;

import io.fastleader.protocol.ApiKey;

/**
 * Which of its connections to a broker {@link ConnectionPool} sends a request over. A broker reads
 * one request per connection at a time and reads the next only once it has answered, and some
 * requests may be held there a long time: a Fetch for up to {@code fetch.max.wait.ms} waiting for
 * records, a JoinGroup until every member has rejoined and a follower's SyncGroup until the leader
 * has sent the assignment, each for up to the rebalance timeout ({@code max.poll.interval.ms}).
 * Each of these gets a connection of its own, so that nothing else (heartbeats, offset commits,
 * Metadata, ListOffsets) waits behind them.
 *
 * <p>Every request of one lane has the same timeout ({@link ConnectionConfig#requestTimeoutFor}),
 * so on each of the pool's connections the oldest request in flight has the earliest deadline,
 * which is the one {@link BrokerConnection} watches.
 */
enum ConnectionLane {

    /** Fetch requests, which may long-poll. */
    FETCH(true),

    /**
     * JoinGroup and SyncGroup, which the group coordinator holds until the group has rebalanced.
     * Opened only when one is sent, never ahead of need: only the coordinator's broker gets them,
     * a few times per rebalance, and a leader move never waits for one.
     */
    REBALANCE(false),

    /**
     * Every other request, including the admin APIs {@link ApiKey} lists for the simulated cluster
     * (fastleader's clients never send them).
     */
    OTHER(true);

    private final boolean connectedAheadOfNeed;

    ConnectionLane(boolean connectedAheadOfNeed) {
        this.connectedAheadOfNeed = connectedAheadOfNeed;
    }

    /** The lane requests of {@code api} take. */
    static ConnectionLane of(ApiKey api) {
        return switch (api) {
            case FETCH -> FETCH;
            case JOIN_GROUP, SYNC_GROUP -> REBALANCE;
            default -> OTHER;
        };
    }

    /**
     * Whether {@link ConnectionPool#connect} opens this lane's connection to a node, and
     * {@link ConnectionPool#isReady} waits for it, once the pool has sent a request on the lane.
     */
    boolean connectedAheadOfNeed() {
        return connectedAheadOfNeed;
    }
}
