package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataRequestData.MetadataRequestTopic;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBroker;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBrokerCollection;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopicCollection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Metadata: every broker, and the topics asked for (all of them for a null list, or an empty one at v0), each partition
 * with its current leader, leader epoch (v7+), replicas and ISR (all replicas: nothing falls
 * behind in the simulation), topic ids from v10. Every broker answers from the same state, at
 * once: no broker's view lags. Unknown topics are answered UNKNOWN_TOPIC_OR_PARTITION; topics
 * are never created by a Metadata request. A partition without a leader (-1: no replica runs) is
 * answered LEADER_NOT_AVAILABLE, as a broker answers it. The controller named is the running broker
 * of lowest id ({@link ClusterState#controllerId}).
 */
final class MetadataHandler implements RequestHandler {

    private final ClusterState state;

    MetadataHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        MetadataRequestData data = (MetadataRequestData) request;
        short version = context.version();
        MetadataResponseBrokerCollection brokers = new MetadataResponseBrokerCollection();
        for (ClusterState.Endpoint endpoint : state.brokers()) {
            brokers.add(new MetadataResponseBroker()
                .setNodeId(endpoint.brokerId())
                .setHost(endpoint.host())
                .setPort(endpoint.port()));
        }
        MetadataResponseTopicCollection topics = new MetadataResponseTopicCollection();
        for (ClusterState.TopicView view : views(data, version)) {
            MetadataResponseTopic topic = new MetadataResponseTopic().setName(view.name());
            if (version >= 10) {
                topic.setTopicId(view.topicId());
            }
            if (view.partitions() == null) {
                // a topic asked for by id has no name to answer with
                topic.setErrorCode((view.name() == null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).code());
            } else {
                List<MetadataResponsePartition> partitions = new ArrayList<>();
                for (ClusterState.PartitionView p : view.partitions()) {
                    MetadataResponsePartition partition = new MetadataResponsePartition()
                        .setPartitionIndex(p.partition())
                        .setLeaderId(p.leader())
                        .setReplicaNodes(new ArrayList<>(p.replicas()))
                        .setIsrNodes(new ArrayList<>(p.isr()));
                    if (p.leader() == -1) {
                        partition.setErrorCode(ErrorCode.LEADER_NOT_AVAILABLE.code());
                    }
                    if (version >= 7) {
                        partition.setLeaderEpoch(p.leaderEpoch());
                    }
                    partitions.add(partition);
                }
                topic.setPartitions(partitions);
            }
            topics.add(topic);
        }
        return CompletableFuture.completedFuture(new MetadataResponseData()
            .setBrokers(brokers)
            .setClusterId(version >= 2 ? state.clusterId() : null)
            .setControllerId(state.controllerId())
            .setTopics(topics));
    }

    /**
     * The topics asked for, by id where one is given (v12+; the name is then left empty, or null,
     * as a broker ignores it), by name otherwise; all of them when the list is null.
     */
    private List<ClusterState.TopicView> views(MetadataRequestData data, short version) {
        if (data.topics() == null || (data.topics().isEmpty() && version == 0)) {
            // null asks for every topic; so does an empty list at v0, which has no null
            return state.topics(null);
        }
        List<ClusterState.TopicView> views = new ArrayList<>();
        for (MetadataRequestTopic wanted : data.topics()) {
            Uuid id = wanted.topicId();
            if (id.equals(Uuid.ZERO_UUID)) {
                views.addAll(state.topics(List.of(wanted.name())));
            } else {
                views.add(state.topic(id).orElse(new ClusterState.TopicView(null, id, null)));
            }
        }
        return views;
    }
}
