package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.it.sim.ClusterState.CommandOutcome;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ElectLeadersRequestData;
import io.fastleader.protocol.message.ElectLeadersRequestData.TopicPartitions;
import io.fastleader.protocol.message.ElectLeadersResponseData;
import io.fastleader.protocol.message.ElectLeadersResponseData.PartitionResult;
import io.fastleader.protocol.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ElectLeaders. PREFERRED (and every v0 request): each partition's first replica takes over at
 * epoch + 1, or the partition is answered ELECTION_NOT_NEEDED when it already leads and
 * PREFERRED_LEADER_NOT_AVAILABLE when it does not run, as a broker answers; all partitions are
 * elected at once. UNCLEAN elects only where no in-sync replica is
 * left, and in the simulation every replica always is, so every partition is answered
 * ELECTION_NOT_NEEDED, as a broker answers a partition that has a leader. Partitions that do not
 * exist are UNKNOWN_TOPIC_OR_PARTITION. A null list asks for every partition, and the answer then
 * leaves out those that needed no election, as Kafka 4.3's controller does.
 */
final class ElectLeadersHandler implements RequestHandler {

    private final ClusterState state;

    ElectLeadersHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        ElectLeadersRequestData data = (ElectLeadersRequestData) request;
        boolean everyPartition = data.topicPartitions() == null;
        List<TopicPartition> partitions = everyPartition ? state.partitions() : named(data);
        Map<TopicPartition, CommandOutcome> outcomes = data.electionType() == ElectionType.PREFERRED.value
            ? state.electPreferredLeaders(partitions)
            : noElection(partitions, data.electionType());
        Map<String, List<PartitionResult>> byTopic = new LinkedHashMap<>();
        outcomes.forEach((tp, outcome) -> {
            if (!(everyPartition && outcome.error() == ErrorCode.ELECTION_NOT_NEEDED)) {
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(new PartitionResult()
                    .setPartitionId(tp.partition())
                    .setErrorCode(outcome.error().code())
                    .setErrorMessage(outcome.message()));
            }
        });
        List<ReplicaElectionResult> results = new ArrayList<>();
        byTopic.forEach((topic, partitionResults) -> results.add(new ReplicaElectionResult()
            .setTopic(topic)
            .setPartitionResult(partitionResults)));
        return CompletableFuture.completedFuture(new ElectLeadersResponseData()
            .setErrorCode(ErrorCode.NONE.code())
            .setReplicaElectionResults(results));
    }

    private static List<TopicPartition> named(ElectLeadersRequestData data) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (TopicPartitions topic : data.topicPartitions()) {
            topic.partitions().forEach(p -> partitions.add(new TopicPartition(topic.topic(), p)));
        }
        return partitions;
    }

    /** An unclean election (or an unknown type): nothing to elect where every partition has an in-sync leader. */
    private Map<TopicPartition, CommandOutcome> noElection(List<TopicPartition> partitions, byte electionType) {
        Map<TopicPartition, CommandOutcome> outcomes = new LinkedHashMap<>();
        Set<TopicPartition> known = new HashSet<>(state.partitions());
        for (TopicPartition tp : partitions) {
            if (electionType != ElectionType.UNCLEAN.value) {
                outcomes.put(tp, new CommandOutcome(ErrorCode.INVALID_REQUEST, "Unknown election type " + electionType + "."));
            } else if (!known.contains(tp)) {
                outcomes.put(tp, new CommandOutcome(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition " + tp + "."));
            } else {
                outcomes.put(tp, new CommandOutcome(ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for " + tp + "."));
            }
        }
        return outcomes;
    }
}
