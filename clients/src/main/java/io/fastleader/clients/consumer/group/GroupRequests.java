package io.fastleader.clients.consumer.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.VersionedRequest;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchResponseData;

/**
 * The wire side of a consumer's group offsets: OffsetCommit and OffsetFetch requests in the
 * layout of the version they are sent at, and their answers read the same whatever that version was.
 */
final class GroupRequests {

    private static final Logger LOG = LoggerFactory.getLogger(GroupRequests.class);

    /** OffsetFetch v7 added {@code RequireStable}. */
    private static final short FIRST_REQUIRE_STABLE_FETCH = 7;
    /** OffsetFetch v8 batched the groups into {@code Groups}. */
    private static final short FIRST_BATCHED_FETCH = 8;
    /** OffsetFetch v9 added a member's id and epoch, checked under the consumer group protocol. */
    private static final short FIRST_MEMBER_FETCH = 9;

    private GroupRequests() {
    }

    /**
     * One partition's committed offset as OffsetFetch answered it.
     *
     * @param offset      -1 when the group has no offset for the partition
     * @param leaderEpoch -1 when none was committed
     */
    record FetchedOffset(TopicPartition partition, long offset, int leaderEpoch, String metadata, ErrorCode error) {
    }

    /** OffsetFetch's answer for the group: its group-level error, and each partition's offset. */
    record Fetched(ErrorCode groupError, List<FetchedOffset> partitions) {
    }

    /**
     * A commit by {@code member}: a member of the group sends its id, its epoch in the generation
     * field (the consumer group protocol reuses it, v9+) and its instance id; a consumer outside the
     * group sends generation -1 and no ids. The layout is the same at every version we speak; fields
     * a version lacks (the leader epoch before v6) are left out.
     */
    static OffsetCommitRequestData commit(String groupId, MemberIdentity member, Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<String, OffsetCommitRequestTopic> topics = new LinkedHashMap<>();
        offsets.forEach((partition, committed) -> topics
                .computeIfAbsent(partition.topic(), name -> new OffsetCommitRequestTopic().setName(name))
                .partitions().add(new OffsetCommitRequestPartition()
                        .setPartitionIndex(partition.partition())
                        .setCommittedOffset(committed.offset())
                        .setCommittedLeaderEpoch(committed.leaderEpoch().orElse(-1))
                        .setCommittedMetadata(committed.metadata())));
        return new OffsetCommitRequestData()
                .setGroupId(groupId)
                .setGenerationIdOrMemberEpoch(member.epoch())
                .setMemberId(member.memberId())
                .setGroupInstanceId(member.instanceId().orElse(null))
                .setTopics(new ArrayList<>(topics.values()));
    }

    /** Each partition's error in an OffsetCommit response, in response order. */
    static Map<TopicPartition, ErrorCode> commitErrors(OffsetCommitResponseData response) {
        Map<TopicPartition, ErrorCode> errors = new LinkedHashMap<>();
        for (OffsetCommitResponseData.OffsetCommitResponseTopic topic : response.topics()) {
            for (OffsetCommitResponseData.OffsetCommitResponsePartition partition : topic.partitions()) {
                errors.put(new TopicPartition(topic.name(), partition.partitionIndex()), ErrorCode.forCode(partition.errorCode()));
            }
        }
        return errors;
    }

    /**
     * The group's committed offsets for {@code partitions}: the batched {@code Groups} layout from
     * v8, the top-level {@code GroupId}/{@code Topics} one below.
     *
     * @param member        a group member sends its id and epoch (v9+), which the coordinator checks
     * @param stable whether the coordinator is asked to refuse, retriably, partitions with a pending
     *               transactional commit (v7+), and what a broker too old to be asked gets
     */
    static VersionedRequest fetch(String groupId, MemberIdentity member, Collection<TopicPartition> partitions, StableOffsets stable) {
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        partitions.forEach(partition -> byTopic.computeIfAbsent(partition.topic(), topic -> new ArrayList<>()).add(partition.partition()));
        return version -> {
            boolean requireStable = stable != StableOffsets.NOT_ASKED;
            if (requireStable && version < FIRST_REQUIRE_STABLE_FETCH) {
                if (stable == StableOffsets.ASKED) {
                    throw new UnsupportedVersionException("The broker speaks OffsetFetch up to v" + version
                            + ", too old to fetch stable offsets (v" + FIRST_REQUIRE_STABLE_FETCH + ", Kafka 2.5)");
                }
                LOG.trace("Fallback the requireStable flag to false as broker only supports OffsetFetchRequest version {}. "
                        + "Need v{} or newer to enable this feature", version, FIRST_REQUIRE_STABLE_FETCH);
                requireStable = false;
            }
            OffsetFetchRequestData request = new OffsetFetchRequestData().setRequireStable(requireStable);
            if (version >= FIRST_BATCHED_FETCH) {
                List<OffsetFetchRequestTopics> topics = new ArrayList<>();
                byTopic.forEach((topic, indexes) -> topics.add(new OffsetFetchRequestTopics().setName(topic).setPartitionIndexes(indexes)));
                OffsetFetchRequestGroup group = new OffsetFetchRequestGroup().setGroupId(groupId).setTopics(topics);
                if (version >= FIRST_MEMBER_FETCH && member.isMember()) {
                    group.setMemberId(member.memberId()).setMemberEpoch(member.epoch());
                }
                return request.setGroups(List.of(group));
            }
            List<OffsetFetchRequestTopic> topics = new ArrayList<>();
            byTopic.forEach((topic, indexes) -> topics.add(new OffsetFetchRequestTopic().setName(topic).setPartitionIndexes(indexes)));
            return request.setGroupId(groupId).setTopics(topics);
        };
    }

    /** The answer for {@code groupId}, in the batched layout (v8+) or the top-level one. */
    static Fetched fetched(OffsetFetchResponseData response, String groupId) {
        List<FetchedOffset> partitions = new ArrayList<>();
        if (response.groups().isEmpty()) {
            for (OffsetFetchResponseData.OffsetFetchResponseTopic topic : response.topics()) {
                for (OffsetFetchResponseData.OffsetFetchResponsePartition answer : topic.partitions()) {
                    partitions.add(new FetchedOffset(new TopicPartition(topic.name(), answer.partitionIndex()),
                            answer.committedOffset(), answer.committedLeaderEpoch(), answer.metadata(),
                            ErrorCode.forCode(answer.errorCode())));
                }
            }
            return new Fetched(ErrorCode.forCode(response.errorCode()), partitions);
        }
        for (OffsetFetchResponseData.OffsetFetchResponseGroup group : response.groups()) {
            if (!groupId.equals(group.groupId())) {
                continue;
            }
            for (OffsetFetchResponseData.OffsetFetchResponseTopics topic : group.topics()) {
                for (OffsetFetchResponseData.OffsetFetchResponsePartitions answer : topic.partitions()) {
                    partitions.add(new FetchedOffset(new TopicPartition(topic.name(), answer.partitionIndex()),
                            answer.committedOffset(), answer.committedLeaderEpoch(), answer.metadata(),
                            ErrorCode.forCode(answer.errorCode())));
                }
            }
            return new Fetched(ErrorCode.forCode(group.errorCode()), partitions);
        }
        return new Fetched(ErrorCode.COORDINATOR_NOT_AVAILABLE, partitions);
    }
}
