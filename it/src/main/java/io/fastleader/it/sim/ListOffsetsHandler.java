package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsPartition;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsTopic;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ListOffsets: for each partition, the earliest offset (-2, and -4 for the earliest on local
 * storage: nothing is tiered) is 0 with the log's first leader epoch; the latest (-1) is the high
 * watermark with the current leader epoch, for read_committed too (there are no transactions, so
 * the last stable offset is the high watermark); the largest timestamp (-3) and a timestamp are
 * found through the batches' timestamps as a broker finds them, with their batch's leader epoch,
 * and -1s when no record qualifies. Refusals are {@link ClusterState#listOffset}'s: unknown
 * partition, a replica-less broker, the {@code CurrentLeaderEpoch} check, and a follower asked by
 * a consumer (a request of the debugging replica id -2 may ask a follower, as of a broker). Tiered
 * storage's other codes are a {@link RequestDispatcher.ProtocolViolation}.
 */
final class ListOffsetsHandler implements RequestHandler {

    /** ListOffsets' replica id for a debugging client, which followers answer too. */
    private static final int DEBUGGING_REPLICA_ID = -2;
    /** ListOffsetsResponse v4 is the first with LeaderEpoch. */
    private static final short FIRST_LEADER_EPOCH_VERSION = 4;
    /** The negative timestamps that are codes the simulation answers. */
    private static final Set<Long> SIMULATED_CODES = Set.of(ClusterState.EARLIEST_TIMESTAMP, ClusterState.LATEST_TIMESTAMP,
        ClusterState.MAX_TIMESTAMP, ClusterState.EARLIEST_LOCAL_TIMESTAMP);

    private final ClusterState state;

    ListOffsetsHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        ListOffsetsRequestData data = (ListOffsetsRequestData) request;
        boolean leaderOnly = data.replicaId() != DEBUGGING_REPLICA_ID;
        List<ListOffsetsTopicResponse> topics = new ArrayList<>();
        for (ListOffsetsTopic topic : data.topics()) {
            List<ListOffsetsPartitionResponse> partitions = new ArrayList<>();
            for (ListOffsetsPartition wanted : topic.partitions()) {
                if (wanted.timestamp() < 0 && !SIMULATED_CODES.contains(wanted.timestamp())) {
                    throw new RequestDispatcher.ProtocolViolation("ListOffsets for timestamp " + wanted.timestamp()
                        + ": tiered storage is not simulated");
                }
                ClusterState.ListOffsetsOutcome outcome = state.listOffset(context.brokerId(),
                    new TopicPartition(topic.name(), wanted.partitionIndex()), wanted.currentLeaderEpoch(), leaderOnly, wanted.timestamp());
                ListOffsetsPartitionResponse answer = new ListOffsetsPartitionResponse()
                    .setPartitionIndex(wanted.partitionIndex())
                    .setErrorCode(outcome.error().code())
                    .setTimestamp(outcome.timestamp())
                    .setOffset(outcome.offset());
                if (context.version() >= FIRST_LEADER_EPOCH_VERSION) {
                    answer.setLeaderEpoch(outcome.leaderEpoch());
                }
                partitions.add(answer);
            }
            topics.add(new ListOffsetsTopicResponse().setName(topic.name()).setPartitions(partitions));
        }
        return CompletableFuture.completedFuture(new ListOffsetsResponseData().setTopics(topics));
    }
}
