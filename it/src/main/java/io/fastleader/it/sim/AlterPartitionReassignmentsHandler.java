package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.it.sim.ClusterState.CommandOutcome;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterPartitionReassignments: every partition's move completes before the answer, all at once
 * ({@link ClusterState#reassign}): the replicas become the target, the ISR follows (no data is
 * copied: every replica is always in sync), a leader left out of the target hands over to the
 * target's first running replica (none when none runs), and the epoch grows by one when any
 * replica is left out. A broker only starts a reassignment and answers; the
 * replicas catch up and the controller finishes it later, so ListPartitionReassignments shows it
 * meanwhile. Cancelling (a null target) is answered NO_REASSIGNMENT_IN_PROGRESS, since none ever is.
 */
final class AlterPartitionReassignmentsHandler implements RequestHandler {

    private final ClusterState state;

    AlterPartitionReassignmentsHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        AlterPartitionReassignmentsRequestData data = (AlterPartitionReassignmentsRequestData) request;
        Map<TopicPartition, List<Integer>> targets = new LinkedHashMap<>();
        for (ReassignableTopic topic : data.topics()) {
            for (ReassignablePartition partition : topic.partitions()) {
                targets.put(new TopicPartition(topic.name(), partition.partitionIndex()), partition.replicas());
            }
        }
        Map<TopicPartition, CommandOutcome> outcomes = state.reassign(targets, data.allowReplicationFactorChange());
        List<ReassignableTopicResponse> responses = new ArrayList<>();
        for (ReassignableTopic topic : data.topics()) {
            List<ReassignablePartitionResponse> partitions = new ArrayList<>();
            for (ReassignablePartition partition : topic.partitions()) {
                CommandOutcome outcome = outcomes.get(new TopicPartition(topic.name(), partition.partitionIndex()));
                partitions.add(new ReassignablePartitionResponse()
                    .setPartitionIndex(partition.partitionIndex())
                    .setErrorCode(outcome.error().code())
                    .setErrorMessage(outcome.message()));
            }
            responses.add(new ReassignableTopicResponse().setName(topic.name()).setPartitions(partitions));
        }
        return CompletableFuture.completedFuture(new AlterPartitionReassignmentsResponseData()
            .setAllowReplicationFactorChange(data.allowReplicationFactorChange())
            .setErrorCode(ErrorCode.NONE.code())
            .setResponses(responses));
    }
}
