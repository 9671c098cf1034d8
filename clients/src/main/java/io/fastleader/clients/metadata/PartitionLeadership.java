package io.fastleader.clients.metadata;

import java.util.List;
import java.util.Objects;

import org.apache.kafka.common.Uuid;

/**
 * What the client believes about one partition's leadership. Immutable: the cache replaces the
 * whole value, so a reader always sees a leader together with the epoch it was learned at.
 *
 * @param topicId         the topic's id, {@link Uuid#ZERO_UUID} when the broker did not say (Metadata below v10)
 * @param leaderId        the leader's node id, -1 while the partition has none
 * @param leaderEpoch     the epoch of that leadership, -1 when the broker did not say
 * @param replicas        ids of the brokers holding a replica
 * @param isr             ids of the in-sync replicas
 * @param offlineReplicas ids of the replicas that are offline
 * @param view            the sequence number of the Metadata request whose answer last set the
 *                        replicas and ISR (a hint keeps the view it replaced)
 */
public record PartitionLeadership(Uuid topicId, int leaderId, int leaderEpoch, List<Integer> replicas,
                                  List<Integer> isr, List<Integer> offlineReplicas, long view) {

    public PartitionLeadership {
        Objects.requireNonNull(topicId, "topicId");
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        offlineReplicas = List.copyOf(offlineReplicas);
    }

    /** Whether a leader is known. */
    public boolean hasLeader() {
        return leaderId >= 0;
    }

    /** The same replicas and view, led by {@code newLeaderId} at {@code newLeaderEpoch}, as a hint said. */
    PartitionLeadership hinted(int newLeaderId, int newLeaderEpoch) {
        return new PartitionLeadership(topicId, newLeaderId, newLeaderEpoch, replicas, isr, offlineReplicas, view);
    }
}
