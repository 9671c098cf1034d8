package io.fastleader.clients.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.LeaderHint;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;

/**
 * The KIP-951 hints of one Produce response: a {@code CurrentLeader} per partition refused for
 * leadership reasons, and the response's {@code NodeEndpoints}. Responses below v10 carry neither;
 * their refused partitions come back as incomplete hints, which ask for a Metadata refresh.
 *
 * @param hints     one per partition refused with NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH
 * @param endpoints the brokers the response named
 */
public record ProduceResponseHints(List<LeaderHint> hints, List<BrokerEndpoint> endpoints) {

    public ProduceResponseHints {
        hints = List.copyOf(hints);
        endpoints = List.copyOf(endpoints);
    }

    /**
     * Reads the hints of a response.
     *
     * @param topicIds the id each topic had when the request was built, so a hint for a topic
     *                 recreated since is not applied to the new one; topics without one are matched by name
     */
    public static ProduceResponseHints of(ProduceResponseData response, Map<String, Uuid> topicIds) {
        List<LeaderHint> hints = new ArrayList<>();
        for (TopicProduceResponse topic : response.responses()) {
            Uuid topicId = topicIds.getOrDefault(topic.name(), Uuid.ZERO_UUID);
            for (PartitionProduceResponse partition : topic.partitionResponses()) {
                if (ProduceErrorKind.mayCarryHint(Errors.forCode(partition.errorCode()))) {
                    hints.add(new LeaderHint(new TopicPartition(topic.name(), partition.index()), topicId,
                            partition.currentLeader().leaderId(), partition.currentLeader().leaderEpoch()));
                }
            }
        }
        List<BrokerEndpoint> endpoints = new ArrayList<>();
        for (ProduceResponseData.NodeEndpoint endpoint : response.nodeEndpoints()) {
            endpoints.add(new BrokerEndpoint(endpoint.nodeId(), endpoint.host(), endpoint.port(), endpoint.rack(), true));
        }
        return new ProduceResponseHints(hints, endpoints);
    }
}
