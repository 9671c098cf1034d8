package io.fastleader.broker;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * What one Metadata response says about leaders, topic ids and broker addresses.
 *
 * @param leaders   every partition that has a complete leader, by partition
 * @param topicIds  topic ids by name, for the topics the response names without error
 * @param endpoints the brokers, with the addresses the response gives
 */
public record MetadataSnapshot(Map<Partition, PartitionLeader> leaders, Map<String, Uuid> topicIds, List<Endpoint> endpoints) {

    public MetadataSnapshot {
        leaders = Map.copyOf(leaders);
        topicIds = Map.copyOf(topicIds);
        endpoints = List.copyOf(endpoints);
    }

    /**
     * Reads a Metadata response. Partitions with an error or without a complete leader are left
     * out: they say nothing a hint could use.
     */
    public static MetadataSnapshot of(MetadataResponseData response) {
        Map<Partition, PartitionLeader> leaders = new HashMap<>();
        Map<String, Uuid> topicIds = new HashMap<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.errorCode() != Errors.NONE.code() || topic.name() == null) {
                continue;
            }
            if (!Uuid.ZERO_UUID.equals(topic.topicId())) {
                topicIds.put(topic.name(), topic.topicId());
            }
            for (MetadataResponseData.MetadataResponsePartition partition : topic.partitions()) {
                PartitionLeader leader = new PartitionLeader(partition.leaderId(), partition.leaderEpoch());
                if (partition.errorCode() == Errors.NONE.code() && leader.isComplete()) {
                    leaders.put(new Partition(topic.name(), partition.partitionIndex()), leader);
                }
            }
        }
        List<Endpoint> endpoints = response.brokers().stream()
            .map(broker -> new Endpoint(broker.nodeId(), broker.host(), broker.port(), broker.rack()))
            .toList();
        return new MetadataSnapshot(leaders, topicIds, endpoints);
    }
}
