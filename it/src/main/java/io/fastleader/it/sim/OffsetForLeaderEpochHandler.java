package io.fastleader.it.sim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * OffsetForLeaderEpoch, with which a consumer validates its position after a leader change
 * (KIP-320): for each partition, where the requested {@code LeaderEpoch} ended, from the log's
 * leader-epoch cache as a broker answers it ({@link PartitionLog#endOf}): the largest epoch not
 * above the one requested and the start of the next, the log end for the latest epoch, -1s when
 * the epoch is above every epoch known. Only the leader answers, after the
 * {@code CurrentLeaderEpoch} check ({@link ClusterState#epochEnd}); a refusal carries -1s.
 */
final class OffsetForLeaderEpochHandler implements RequestHandler {

    private final ClusterState state;

    OffsetForLeaderEpochHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        OffsetForLeaderEpochRequestData data = (OffsetForLeaderEpochRequestData) request;
        OffsetForLeaderTopicResultCollection topics = new OffsetForLeaderTopicResultCollection();
        for (OffsetForLeaderTopic topic : data.topics()) {
            OffsetForLeaderTopicResult result = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderPartition wanted : topic.partitions()) {
                ClusterState.EpochEndOutcome outcome = state.epochEnd(context.brokerId(),
                    new TopicPartition(topic.topic(), wanted.partition()), wanted.currentLeaderEpoch(), wanted.leaderEpoch());
                result.partitions().add(new EpochEndOffset()
                    .setPartition(wanted.partition())
                    .setErrorCode(outcome.error().code())
                    .setLeaderEpoch(outcome.end().leaderEpoch())
                    .setEndOffset(outcome.end().endOffset()));
            }
            topics.add(result);
        }
        return CompletableFuture.completedFuture(new OffsetForLeaderEpochResponseData().setTopics(topics));
    }
}
