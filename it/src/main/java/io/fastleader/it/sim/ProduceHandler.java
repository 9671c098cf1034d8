package io.fastleader.it.sim;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceRequestData.PartitionProduceData;
import io.fastleader.protocol.message.ProduceRequestData.TopicProduceData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.LeaderIdAndEpoch;
import io.fastleader.protocol.message.ProduceResponseData.NodeEndpoint;
import io.fastleader.protocol.message.ProduceResponseData.NodeEndpointCollection;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponseCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Produce: each partition's batches are appended to its log if this broker leads it, whatever
 * {@code acks} (every replica is in sync, so acks=1 and acks=all are alike), and answered with
 * the base offset assigned; a request with {@code acks=0} is served and not answered, but if any
 * partition of it is refused the connection is closed, as a broker closes it to tell such a
 * client (see {@link RequestDispatcher.ConnectionClosedByBroker}). A partition
 * this broker does not lead is refused with NOT_LEADER_OR_FOLLOWER; when the cluster gives hints
 * and the request is v10+, the refusal names the current leader and its epoch
 * ({@code CurrentLeader}) and the response carries that leader's endpoint ({@code NodeEndpoints}),
 * as a KIP-951 broker does. Record batches are checked for framing, magic 2 and idempotent
 * producers' sequences (OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, a duplicate answered
 * with its first offset); there are no CRC, size or timestamp checks.
 */
final class ProduceHandler implements RequestHandler {

    /** ProduceResponse v10 is the first to carry KIP-951's CurrentLeader and NodeEndpoints. */
    private static final short FIRST_HINTED_VERSION = 10;

    private final ClusterState state;

    ProduceHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        ProduceRequestData data = (ProduceRequestData) request;
        boolean hints = context.version() >= FIRST_HINTED_VERSION && state.hints();
        TopicProduceResponseCollection topics = new TopicProduceResponseCollection();
        NodeEndpointCollection endpoints = new NodeEndpointCollection();
        for (TopicProduceData topicData : data.topicData()) {
            List<PartitionProduceResponse> partitions = new ArrayList<>();
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                TopicPartition tp = new TopicPartition(topicData.name(), partitionData.index());
                ClusterState.AppendOutcome outcome = state.append(context.brokerId(), tp, buffer(partitionData));
                PartitionProduceResponse answer = new PartitionProduceResponse()
                    .setIndex(partitionData.index())
                    .setErrorCode(outcome.error().code())
                    .setBaseOffset(outcome.baseOffset())
                    .setLogStartOffset(outcome.baseOffset() < 0 ? -1 : 0);
                if (hints && outcome.leader().isPresent()) {
                    ClusterState.PartitionView leader = outcome.leader().get();
                    answer.setCurrentLeader(new LeaderIdAndEpoch()
                        .setLeaderId(leader.leader())
                        .setLeaderEpoch(leader.leaderEpoch()));
                    addEndpoint(endpoints, leader.leader());
                }
                partitions.add(answer);
            }
            topics.add(new TopicProduceResponse().setName(topicData.name()).setPartitionResponses(partitions));
        }
        if (data.acks() == 0) {
            List<TopicPartition> refused = refused(topics);
            return refused.isEmpty()
                ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(new RequestDispatcher.ConnectionClosedByBroker(
                    "an acks=0 Produce from " + context.clientId() + " was refused for " + refused));
        }
        ProduceResponseData response = new ProduceResponseData().setResponses(topics);
        if (hints) {
            response.setNodeEndpoints(endpoints);
        }
        return CompletableFuture.completedFuture(response);
    }

    /** The partitions of an answer that carry an error. */
    private static List<TopicPartition> refused(TopicProduceResponseCollection topics) {
        List<TopicPartition> refused = new ArrayList<>();
        for (TopicProduceResponse topic : topics) {
            for (PartitionProduceResponse partition : topic.partitionResponses()) {
                if (partition.errorCode() != ErrorCode.NONE.code()) {
                    refused.add(new TopicPartition(topic.name(), partition.index()));
                }
            }
        }
        return refused;
    }

    private void addEndpoint(NodeEndpointCollection endpoints, int brokerId) {
        if (endpoints.find(brokerId) != null) {
            return;
        }
        state.broker(brokerId).ifPresent(endpoint -> endpoints.add(new NodeEndpoint()
            .setNodeId(endpoint.brokerId())
            .setHost(endpoint.host())
            .setPort(endpoint.port())));
    }

    private static ByteBuffer buffer(PartitionProduceData partitionData) {
        if (partitionData.records() instanceof MemoryRecords memory) {
            return memory.buffer();
        }
        return null;
    }
}
