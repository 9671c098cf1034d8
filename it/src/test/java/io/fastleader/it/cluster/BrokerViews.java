package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;

/**
 * What each broker of a plaintext cluster says about a topic when asked itself, rather than what
 * the one broker an {@code Admin} asks says: a topic just created is known to the controller's
 * quorum before every broker has applied it, and a broker that has not yet answers a Produce for
 * a partition it is to lead with NOT_LEADER_OR_FOLLOWER.
 */
public final class BrokerViews {

    private static final short METADATA_VERSION = 12;
    private static final AtomicInteger CORRELATION_IDS = new AtomicInteger();

    private BrokerViews() {
    }

    /** Waits until every running broker names a leader for each of the topic's {@code partitions} partitions. */
    public static void awaitLeadersKnownEverywhere(KafkaTestCluster cluster, String topic, int partitions, Duration timeout) {
        for (int nodeId : cluster.brokerIds()) {
            if (!cluster.stoppedBrokers().contains(nodeId)) {
                Await.until("broker " + nodeId + " to name a leader for every partition of " + topic, timeout,
                        () -> ledPartitions(cluster, nodeId, topic) == partitions);
            }
        }
    }

    /** The topic as broker {@code nodeId} answers a Metadata request sent straight to it; null if it does not know the topic. */
    public static MetadataResponseTopic topicAt(KafkaTestCluster cluster, int nodeId, String topic) {
        MetadataRequestData request = new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)))
                .setAllowAutoTopicCreation(false);
        byte[] frame = RawExchange.roundTrip(cluster.brokerAddress(nodeId), ApiKey.METADATA, METADATA_VERSION,
                CORRELATION_IDS.incrementAndGet(), request);
        return ((MetadataResponseData) RawExchange.body(ApiKey.METADATA, METADATA_VERSION, frame)).topics().find(topic);
    }

    private static long ledPartitions(KafkaTestCluster cluster, int nodeId, String topic) {
        MetadataResponseTopic answer = topicAt(cluster, nodeId, topic);
        return answer == null ? 0 : answer.partitions().stream().filter(partition -> partition.leaderId() >= 0).count();
    }
}
