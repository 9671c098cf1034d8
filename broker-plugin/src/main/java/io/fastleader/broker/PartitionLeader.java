package io.fastleader.broker;

/**
 * A partition's leader as a Metadata response states it.
 *
 * @param leaderId    the leader's node id; negative if the partition has no leader
 * @param leaderEpoch the leader epoch; negative if unknown
 */
public record PartitionLeader(int leaderId, int leaderEpoch) {

    /** Whether both the id and the epoch are known, as KIP-951 requires of a hint. */
    public boolean isComplete() {
        return leaderId >= 0 && leaderEpoch >= 0;
    }
}
