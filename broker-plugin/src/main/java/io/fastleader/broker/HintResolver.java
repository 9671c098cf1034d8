package io.fastleader.broker;

import java.util.Optional;

/**
 * Decides which KIP-951 hint, if any, the proxy adds for a partition a broker has refused with
 * {@code NOT_LEADER_OR_FOLLOWER} or {@code FENCED_LEADER_EPOCH}. A pure function of its
 * arguments.
 *
 * <p>A hint is only worth sending if a client would act on it and land somewhere better, so the
 * resolver answers none unless every rule holds:
 * <ul>
 *   <li>the view knows a complete leader (id and epoch) for the partition;</li>
 *   <li>its epoch is strictly newer than the epoch the client already knows: clients ignore a
 *       hint that does not advance the epoch, and one that did not would only echo stale
 *       metadata back at them;</li>
 *   <li>the leader is not the broker that just refused: that would send the client straight
 *       back into the same error;</li>
 *   <li>the proxy advertises an address for the leader: the hint's endpoint must be the one the
 *       client reaches that node by, through the proxy.</li>
 * </ul>
 */
public final class HintResolver {

    /** Stands for an unknown epoch or node id, as in the Kafka protocol. */
    public static final int UNKNOWN = -1;

    private HintResolver() {
    }

    /**
     * The hint to add for {@code partition}, or none.
     *
     * @param partition      the refused partition
     * @param knownEpoch     the leader epoch the client knows for it, {@link #UNKNOWN} if none
     * @param refusingNodeId the broker that refused, {@link #UNKNOWN} if not known
     * @param view           the proxy's view of leaders and advertised addresses
     */
    public static Optional<LeaderHint> resolve(Partition partition, int knownEpoch, int refusingNodeId, LeaderView view) {
        return view.leader(partition)
            .filter(PartitionLeader::isComplete)
            .filter(leader -> leader.leaderEpoch() > knownEpoch)
            .filter(leader -> leader.leaderId() != refusingNodeId)
            .flatMap(leader -> view.advertisedEndpoint(leader.leaderId()).map(endpoint -> new LeaderHint(leader, endpoint)));
    }
}
