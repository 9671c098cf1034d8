package io.fastleader.clients.producer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;

import io.fastleader.clients.metadata.PartitionLeadership;

/**
 * Where the partitions that are ready to send go: grouped by the node that leads them, one
 * Produce request per node. A pure function of the leader lookups it is given.
 *
 * @param byLeader            leader node id to its ready partitions, to be drained into one request
 * @param topicsWithoutLeader topics with a ready partition that cannot go to its leader now
 *                            ({@link io.fastleader.clients.metadata.LeaderCache#routable}): their
 *                            partitions stay queued, and the topics want a refresh
 * @param held                the ready partitions that stay queued, and what their batches wait for:
 *                            {@link BatchPhase#METADATA} for those without a leader, else the hold
 */
public record SendPlan(Map<Integer, List<TopicPartition>> byLeader, Set<String> topicsWithoutLeader,
                       Map<TopicPartition, BatchPhase> held) {

    /**
     * Groups ready partitions by leader.
     *
     * @param routable     the partition's leadership, null when it cannot go to its leader now
     *                     ({@link io.fastleader.clients.metadata.LeaderCache#routable})
     * @param holdAt       why the partition's next batch may not go to its leader now (the node's
     *                     in-flight limit, batches of the partition still in flight to another
     *                     node), null when it may; one held waits for an answer, and needs no refresh
     */
    public static SendPlan of(Collection<TopicPartition> ready, Function<TopicPartition, PartitionLeadership> routable,
                              BiFunction<TopicPartition, Integer, BatchPhase> holdAt) {
        Map<Integer, List<TopicPartition>> byLeader = new LinkedHashMap<>();
        // Made only when needed: in steady state every ready partition goes, and a pass runs per answer.
        Set<String> withoutLeader = null;
        Map<TopicPartition, BatchPhase> held = null;
        for (TopicPartition partition : ready) {
            PartitionLeadership current = routable.apply(partition);
            BatchPhase hold;
            if (current == null) {
                withoutLeader = withoutLeader == null ? new HashSet<>() : withoutLeader;
                withoutLeader.add(partition.topic());
                hold = BatchPhase.METADATA;
            } else {
                hold = holdAt.apply(partition, current.leaderId());
                if (hold == null) {
                    byLeader.computeIfAbsent(current.leaderId(), id -> new ArrayList<>()).add(partition);
                    continue;
                }
            }
            held = held == null ? new HashMap<>() : held;
            held.put(partition, hold);
        }
        return new SendPlan(byLeader, withoutLeader == null ? Set.of() : withoutLeader, held == null ? Map.of() : held);
    }
}
