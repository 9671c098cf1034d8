package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;
import io.fastleader.protocol.message.FindCoordinatorRequestData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.FindCoordinatorResponseData.Coordinator;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import io.fastleader.protocol.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchResponseData;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import io.fastleader.protocol.message.SyncGroupResponseData;

/**
 * The error answers of the group RPCs, for {@code SimulatedCluster.injectError}, as a coordinator
 * refusing the request would answer: the error where the response carries a group's (or a
 * coordinator key's) error, and in each partition of an OffsetCommit (and of an OffsetFetch v1,
 * which has no other place for it).
 */
final class GroupErrorAnswers {

    private GroupErrorAnswers() {
    }

    /** Adds the group RPCs' builders to {@code builders}. */
    static void register(Map<ApiKey, ErrorAnswers.ErrorAnswer> builders) {
        builders.put(ApiKey.FIND_COORDINATOR, (context, request, error) -> findCoordinator(context, (FindCoordinatorRequestData) request, error));
        builders.put(ApiKey.JOIN_GROUP, (context, request, error) ->
            ClassicGroup.joinError(error, ((JoinGroupRequestData) request).memberId()));
        builders.put(ApiKey.SYNC_GROUP, (context, request, error) -> new SyncGroupResponseData().setErrorCode(error.code()));
        builders.put(ApiKey.HEARTBEAT, (context, request, error) -> new HeartbeatResponseData().setErrorCode(error.code()));
        builders.put(ApiKey.LEAVE_GROUP, (context, request, error) -> new LeaveGroupResponseData().setErrorCode(error.code()));
        builders.put(ApiKey.OFFSET_COMMIT, (context, request, error) -> offsetCommit((OffsetCommitRequestData) request, error));
        builders.put(ApiKey.OFFSET_FETCH, (context, request, error) -> offsetFetch(context, (OffsetFetchRequestData) request, error));
        builders.put(ApiKey.CONSUMER_GROUP_HEARTBEAT, (context, request, error) ->
            ConsumerGroup.error(error, "injected by the simulated cluster"));
    }

    private static FindCoordinatorResponseData findCoordinator(RequestContext context, FindCoordinatorRequestData request,
                                                               ErrorCode error) {
        if (context.version() < 4) {
            return new FindCoordinatorResponseData().setErrorCode(error.code()).setNodeId(-1).setHost("").setPort(-1);
        }
        List<Coordinator> coordinators = new ArrayList<>();
        for (String key : request.coordinatorKeys()) {
            coordinators.add(new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1).setErrorCode(error.code()));
        }
        return new FindCoordinatorResponseData().setCoordinators(coordinators);
    }

    private static OffsetCommitResponseData offsetCommit(OffsetCommitRequestData request, ErrorCode error) {
        List<OffsetCommitResponseTopic> topics = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic topic : request.topics()) {
            List<OffsetCommitResponsePartition> partitions = new ArrayList<>();
            for (OffsetCommitRequestData.OffsetCommitRequestPartition partition : topic.partitions()) {
                partitions.add(new OffsetCommitResponsePartition().setPartitionIndex(partition.partitionIndex()).setErrorCode(error.code()));
            }
            topics.add(new OffsetCommitResponseTopic().setName(topic.name()).setPartitions(partitions));
        }
        return new OffsetCommitResponseData().setTopics(topics);
    }

    private static OffsetFetchResponseData offsetFetch(RequestContext context, OffsetFetchRequestData request, ErrorCode error) {
        if (context.version() >= 8) {
            List<OffsetFetchResponseGroup> groups = new ArrayList<>();
            for (OffsetFetchRequestData.OffsetFetchRequestGroup group : request.groups()) {
                groups.add(new OffsetFetchResponseGroup().setGroupId(group.groupId()).setErrorCode(error.code()));
            }
            return new OffsetFetchResponseData().setGroups(groups);
        }
        if (context.version() >= 2) {
            return new OffsetFetchResponseData().setErrorCode(error.code());
        }
        List<OffsetFetchResponseTopic> topics = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestTopic topic : request.topics()) {
            List<OffsetFetchResponsePartition> partitions = new ArrayList<>();
            for (int partition : topic.partitionIndexes()) {
                partitions.add(new OffsetFetchResponsePartition().setPartitionIndex(partition).setCommittedOffset(-1)
                    .setMetadata("").setErrorCode(error.code()));
            }
            topics.add(new OffsetFetchResponseTopic().setName(topic.name()).setPartitions(partitions));
        }
        return new OffsetFetchResponseData().setTopics(topics);
    }
}
