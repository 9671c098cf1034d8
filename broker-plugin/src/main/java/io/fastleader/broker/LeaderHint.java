package io.fastleader.broker;

/**
 * A KIP-951 hint for one refused partition: its {@code CurrentLeader} and the
 * {@code NodeEndpoints} entry that tells the client how to reach that leader.
 *
 * @param leader   the new leader and its epoch, always complete
 * @param endpoint the leader's endpoint; {@code endpoint.nodeId() == leader.leaderId()}
 */
public record LeaderHint(PartitionLeader leader, Endpoint endpoint) {

    public LeaderHint {
        if (!leader.isComplete() || endpoint.nodeId() != leader.leaderId()) {
            throw new IllegalArgumentException("a hint needs a complete leader and that leader's endpoint, not " + leader + " at " + endpoint);
        }
    }
}
