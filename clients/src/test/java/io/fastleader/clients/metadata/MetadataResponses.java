package io.fastleader.clients.metadata;

import java.util.List;

import org.apache.kafka.common.Uuid;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBroker;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import io.fastleader.protocol.message.MetadataResponseData;

/** Builds Metadata responses as a broker would send them, for tests of the cache. */
final class MetadataResponses {

    private final MetadataResponseData response = new MetadataResponseData();

    /** A response listing brokers {@code ids}, each at {@code broker-<id>:9092}. */
    static MetadataResponses brokers(int... ids) {
        MetadataResponses builder = new MetadataResponses();
        for (int id : ids) {
            builder.response.brokers().add(new MetadataResponseBroker()
                    .setNodeId(id).setHost("broker-" + id).setPort(9092));
        }
        return builder;
    }

    /** Adds a broker at a given address. */
    MetadataResponses broker(int id, String host, int port) {
        response.brokers().add(new MetadataResponseBroker().setNodeId(id).setHost(host).setPort(port));
        return this;
    }

    /**
     * Adds a topic whose partition {@code i} is led by {@code leaders[i]} at {@code epoch}, replicated
     * on brokers 1, 2 and 3, all in sync.
     */
    MetadataResponses topic(String name, Uuid id, int epoch, int... leaders) {
        MetadataResponseTopic topic = new MetadataResponseTopic().setName(name).setTopicId(id);
        for (int index = 0; index < leaders.length; index++) {
            topic.partitions().add(partition(index, leaders[index], epoch, List.of(1, 2, 3)));
        }
        response.topics().add(topic);
        return this;
    }

    /** Adds a topic described by one partition, {@code index}, in the given state. */
    MetadataResponses partition(String name, Uuid id, int index, int leader, int epoch, List<Integer> isr) {
        MetadataResponseTopic topic = new MetadataResponseTopic().setName(name).setTopicId(id);
        topic.partitions().add(partition(index, leader, epoch, isr));
        response.topics().add(topic);
        return this;
    }

    /** Adds a topic the broker reports with an error and no partitions. */
    MetadataResponses topicError(String name, ErrorCode error) {
        response.topics().add(new MetadataResponseTopic().setName(name).setErrorCode(error.code()));
        return this;
    }

    MetadataResponseData build() {
        return response;
    }

    private static MetadataResponsePartition partition(int index, int leader, int epoch, List<Integer> isr) {
        return new MetadataResponsePartition()
                .setPartitionIndex(index)
                .setLeaderId(leader)
                .setLeaderEpoch(epoch)
                .setReplicaNodes(List.of(1, 2, 3))
                .setIsrNodes(isr);
    }
}
