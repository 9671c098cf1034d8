package io.fastleader.clients.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * The {@link LeaderCache} in kafka-clients' public types: {@link PartitionInfo} for
 * {@code partitionsFor} and {@code listTopics}, and a {@link Cluster} for {@code Partitioner}
 * plugins. Built on demand; a copy, not a live view.
 */
public final class ClusterView {

    private ClusterView() {
    }

    /** Every partition of the topic the cache knows, in partition order. */
    public static List<PartitionInfo> partitions(LeaderCache cache, String topic) {
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int index = 0; index < cache.partitionCount(topic); index++) {
            PartitionLeadership leadership = cache.leadership(new TopicPartition(topic, index));
            if (leadership == null) {
                continue;
            }
            partitions.add(new PartitionInfo(topic, index, leadership.hasLeader() ? node(cache, leadership.leaderId()) : null,
                    nodes(cache, leadership.replicas()), nodes(cache, leadership.isr()),
                    nodes(cache, leadership.offlineReplicas())));
        }
        return partitions;
    }

    /**
     * Every topic of a Metadata answer with its partitions, for {@code listTopics}: internal topics
     * included and topics the broker reported an error for left out, as {@code KafkaConsumer} does.
     */
    public static Map<String, List<PartitionInfo>> topics(MetadataResponseData response) {
        Map<Integer, Node> brokers = new HashMap<>();
        for (MetadataResponseData.MetadataResponseBroker broker : response.brokers()) {
            brokers.put(broker.nodeId(), new Node(broker.nodeId(), broker.host(), broker.port(), broker.rack()));
        }
        Map<String, List<PartitionInfo>> topics = new TreeMap<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.errorCode() != ErrorCode.NONE.code()) {
                continue;
            }
            List<PartitionInfo> partitions = new ArrayList<>();
            for (MetadataResponseData.MetadataResponsePartition partition : topic.partitions()) {
                partitions.add(new PartitionInfo(topic.name(), partition.partitionIndex(), brokers.get(partition.leaderId()),
                        nodes(brokers, partition.replicaNodes()), nodes(brokers, partition.isrNodes()),
                        nodes(brokers, partition.offlineReplicas())));
            }
            partitions.sort(Comparator.comparingInt(PartitionInfo::partition));
            topics.put(topic.name(), partitions);
        }
        return topics;
    }

    /** The cluster a Metadata answer of every topic describes, as a client-side assignor is given it. */
    public static Cluster cluster(MetadataResponseData response) {
        List<Node> nodes = new ArrayList<>();
        for (MetadataResponseData.MetadataResponseBroker broker : response.brokers()) {
            nodes.add(new Node(broker.nodeId(), broker.host(), broker.port(), broker.rack()));
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        topics(response).values().forEach(partitions::addAll);
        Set<String> internal = new HashSet<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.isInternal() && topic.name() != null) {
                internal.add(topic.name());
            }
        }
        return new Cluster(response.clusterId(), nodes, partitions, Set.of(), internal);
    }

    private static Node[] nodes(Map<Integer, Node> brokers, List<Integer> ids) {
        return ids.stream().map(id -> brokers.getOrDefault(id, new Node(id, "", -1))).toArray(Node[]::new);
    }

    /** A cluster holding every known broker and the partitions of one topic. */
    public static Cluster forTopic(LeaderCache cache, String topic) {
        return forTopics(cache, List.of(topic));
    }

    /** A cluster holding every known broker and the partitions of {@code topics}. */
    public static Cluster forTopics(LeaderCache cache, Collection<String> topics) {
        List<Node> nodes = new ArrayList<>();
        for (Map.Entry<Integer, BrokerEndpoint> entry : cache.nodes().entrySet()) {
            nodes.add(node(cache, entry.getKey()));
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        topics.forEach(topic -> partitions.addAll(partitions(cache, topic)));
        return new Cluster(null, nodes, partitions, Set.of(), Set.of());
    }

    private static Node[] nodes(LeaderCache cache, List<Integer> ids) {
        return ids.stream().map(id -> node(cache, id)).toArray(Node[]::new);
    }

    /** The broker as a {@link Node}; one the cache has no address for yet gets an empty host, as Kafka does. */
    private static Node node(LeaderCache cache, int id) {
        BrokerEndpoint endpoint = cache.node(id);
        return endpoint == null ? new Node(id, "", -1) : new Node(id, endpoint.host(), endpoint.port(), endpoint.rack());
    }
}
