package io.fastleader.clients.producer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.IntPredicate;

import org.apache.kafka.common.TopicPartition;

import io.fastleader.clients.metadata.PartitionLeadership;

/**
 * Where the partitions that are ready to send go: grouped by the node that leads them, one
 * Produce request per node. A pure function of the leader lookups it is given.
 *
 * @param byLeader            leader node id to its ready partitions, to be drained into one request
 * @param topicsWithoutLeader topics with a ready partition whose leader, or the leader's address, is
 *                            unknown: their partitions stay queued, and the topics want a refresh
 */
public record SendPlan(Map<Integer, List<TopicPartition>> byLeader, Set<String> topicsWithoutLeader) {

    /**
     * Groups ready partitions by leader.
     *
     * @param leadership   the partition's leadership, null when untracked
     * @param nodeKnown    whether a node's address is known
     * @param mayGoTo      whether the partition's next batch may go to its leader now (the node's
     *                     in-flight limit, batches of the partition still in flight to another
     *                     node); one that may not waits for an answer, and needs no refresh
     */
    public static SendPlan of(Collection<TopicPartition> ready, Function<TopicPartition, PartitionLeadership> leadership,
                              IntPredicate nodeKnown, BiPredicate<TopicPartition, Integer> mayGoTo) {
        Map<Integer, List<TopicPartition>> byLeader = new LinkedHashMap<>();
        Set<String> withoutLeader = new HashSet<>();
        for (TopicPartition partition : ready) {
            PartitionLeadership current = leadership.apply(partition);
            if (current == null || !current.hasLeader() || !nodeKnown.test(current.leaderId())) {
                withoutLeader.add(partition.topic());
            } else if (mayGoTo.test(partition, current.leaderId())) {
                byLeader.computeIfAbsent(current.leaderId(), id -> new ArrayList<>()).add(partition);
            }
        }
        return new SendPlan(byLeader, withoutLeader);
    }
}
