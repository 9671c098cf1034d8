package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import io.fastleader.protocol.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * OffsetCommit, v2-v9: each partition's offset, leader epoch (v6+) and metadata stored for the
 * group, once the group's checks let the commit in ({@link GroupCoordinator#commit}); a refusal
 * of the commit is every partition's error. The retention time of v2-v4 is ignored: offsets
 * never expire. Topics are not checked to exist, as a broker does not.
 */
final class OffsetCommitHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    OffsetCommitHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        OffsetCommitRequestData data = (OffsetCommitRequestData) request;
        if (data.groupInstanceId() != null) {
            throw new RequestDispatcher.ProtocolViolation("OffsetCommit with group.instance.id " + data.groupInstanceId()
                + ": static membership is not simulated yet");
        }
        Map<TopicPartition, OffsetAndMetadata> commits = new LinkedHashMap<>();
        for (OffsetCommitRequestTopic topic : data.topics()) {
            for (OffsetCommitRequestPartition partition : topic.partitions()) {
                Optional<Integer> leaderEpoch = partition.committedLeaderEpoch() < 0
                    ? Optional.empty() : Optional.of(partition.committedLeaderEpoch());
                commits.put(new TopicPartition(topic.name(), partition.partitionIndex()),
                    new OffsetAndMetadata(partition.committedOffset(), leaderEpoch, partition.committedMetadata()));
            }
        }
        Map<TopicPartition, ErrorCode> outcomes = new LinkedHashMap<>();
        ErrorCode refusal = coordinator.commit(context.brokerId(), data.groupId(), data.generationIdOrMemberEpoch(),
            data.memberId(), context.version(), commits, outcomes);
        List<OffsetCommitResponseTopic> topics = new ArrayList<>();
        for (OffsetCommitRequestTopic topic : data.topics()) {
            List<OffsetCommitResponsePartition> partitions = new ArrayList<>();
            for (OffsetCommitRequestPartition partition : topic.partitions()) {
                ErrorCode error = refusal != ErrorCode.NONE ? refusal
                    : outcomes.get(new TopicPartition(topic.name(), partition.partitionIndex()));
                partitions.add(new OffsetCommitResponsePartition()
                    .setPartitionIndex(partition.partitionIndex())
                    .setErrorCode(error.code()));
            }
            topics.add(new OffsetCommitResponseTopic().setName(topic.name()).setPartitions(partitions));
        }
        return CompletableFuture.completedFuture(new OffsetCommitResponseData().setTopics(topics));
    }
}
