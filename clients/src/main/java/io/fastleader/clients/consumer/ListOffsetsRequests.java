package io.fastleader.clients.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsPartition;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsTopic;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsTopicResponse;

/** The wire side of ListOffsets: which leader each lookup goes to, the request per leader, and the answers by partition. */
final class ListOffsetsRequests {

    /** ReplicaId of a consumer: not a broker. */
    private static final int CONSUMER_REPLICA_ID = -1;

    private ListOffsetsRequests() {
    }

    /**
     * One partition's lookup as sent.
     *
     * @param timestamp          the target: a timestamp, or EARLIEST_TIMESTAMP (-2) / LATEST_TIMESTAMP (-1)
     * @param currentLeaderEpoch the leader epoch the cache knew when the request was built, -1 if none:
     *                           the broker fences a lookup made at an older epoch than its own
     */
    record Target(TopicPartition partition, long timestamp, int currentLeaderEpoch) {
    }

    /**
     * Where the lookups go.
     *
     * @param byLeader      leader node id to the lookups it is asked in one request
     * @param withoutLeader partitions that cannot go to their leader now
     */
    record Plan(Map<Integer, List<Target>> byLeader, Set<TopicPartition> withoutLeader) {
    }

    /**
     * Groups the lookups by the leader the cache knows, with the epoch it knows it at.
     *
     * @param routable the partition's leadership, null when it cannot go to its leader now
     *                 ({@link io.fastleader.clients.metadata.LeaderCache#routable})
     */
    static Plan plan(Map<TopicPartition, Long> timestamps, Function<TopicPartition, PartitionLeadership> routable) {
        Map<Integer, List<Target>> byLeader = new LinkedHashMap<>();
        Set<TopicPartition> withoutLeader = new LinkedHashSet<>();
        timestamps.forEach((partition, timestamp) -> {
            PartitionLeadership current = routable.apply(partition);
            if (current == null) {
                withoutLeader.add(partition);
            } else {
                byLeader.computeIfAbsent(current.leaderId(), id -> new ArrayList<>())
                        .add(new Target(partition, timestamp, current.leaderEpoch()));
            }
        });
        return new Plan(byLeader, withoutLeader);
    }

    /**
     * The request for one leader's lookups.
     *
     * @param timeoutMs how long the broker may spend on lookups in tiered storage (v10+)
     */
    static ListOffsetsRequestData request(List<Target> targets, IsolationLevel isolation, int timeoutMs) {
        Map<String, ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (Target target : targets) {
            topics.computeIfAbsent(target.partition().topic(), name -> new ListOffsetsTopic().setName(name))
                    .partitions().add(new ListOffsetsPartition()
                            .setPartitionIndex(target.partition().partition())
                            .setCurrentLeaderEpoch(target.currentLeaderEpoch())
                            .setTimestamp(target.timestamp()));
        }
        return new ListOffsetsRequestData()
                .setReplicaId(CONSUMER_REPLICA_ID)
                .setIsolationLevel(isolation.id())
                .setTopics(new ArrayList<>(topics.values()))
                .setTimeoutMs(timeoutMs);
    }

    /** Every partition's answer in the response, by partition. */
    static Map<TopicPartition, ListOffsetsPartitionResponse> answers(ListOffsetsResponseData response) {
        Map<TopicPartition, ListOffsetsPartitionResponse> answers = new HashMap<>();
        for (ListOffsetsTopicResponse topic : response.topics()) {
            for (ListOffsetsPartitionResponse answer : topic.partitions()) {
                answers.put(new TopicPartition(topic.name(), answer.partitionIndex()), answer);
            }
        }
        return answers;
    }

    /** A found offset as {@link OffsetLookup} returns it. */
    static ListedOffset listed(ListOffsetsPartitionResponse answer) {
        long offset = Math.max(ListedOffset.NOT_FOUND, answer.offset());
        return new ListedOffset(offset, answer.timestamp(), Optional.of(answer.leaderEpoch()));
    }
}
