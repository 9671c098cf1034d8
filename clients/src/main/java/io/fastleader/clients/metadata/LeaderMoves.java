package io.fastleader.clients.metadata;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidMetadataException;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.ProduceResponseData;

/**
 * The partitions one Produce or Fetch response refused for leadership reasons, read by this one
 * piece of code for both clients, and handed whole to {@link ClusterMetadata#onLeaderMoves}, as
 * franz-go collects a response's moved partitions and applies them once.
 *
 * <p>Which errors count is decided here and nowhere else: every error whose exception is an
 * {@link InvalidMetadataException} (not the leader, fenced epoch, no leader, unknown partition or
 * topic id, replica not available, offline log directory) means the client's view of the
 * partition's leadership is wrong. Of these, NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH carry
 * the broker's {@code CurrentLeader} (KIP-951: Produce v10+, Fetch v12+, its endpoints in
 * {@code NodeEndpoints} from Produce v10 and Fetch v16); the others carry none.
 */
public final class LeaderMoves {

    private final List<LeaderHint> hints = new ArrayList<>();
    private final Map<TopicPartition, Integer> namedEpochs = new HashMap<>();
    private final Set<String> unhintedTopics = new HashSet<>();
    private final List<BrokerEndpoint> endpoints = new ArrayList<>();

    private LeaderMoves() {
    }

    /** Whether the error means the client's view of the partition's leadership is wrong. */
    public static boolean isLeadershipError(ErrorCode error) {
        return error.exceptionIs(InvalidMetadataException.class);
    }

    /** Whether an answer refusing a partition with this error may name its current leader (KIP-951). */
    public static boolean mayCarryHint(ErrorCode error) {
        return error == ErrorCode.NOT_LEADER_OR_FOLLOWER || error == ErrorCode.FENCED_LEADER_EPOCH;
    }

    /**
     * The leader moves of a Produce response.
     *
     * @param topicIds the id each topic had when the request was built, so a hint for a topic
     *                 recreated since is not applied to the new one; topics without one are matched by name
     */
    public static LeaderMoves of(ProduceResponseData response, Map<String, Uuid> topicIds) {
        LeaderMoves moves = new LeaderMoves();
        for (ProduceResponseData.TopicProduceResponse topic : response.responses()) {
            Uuid topicId = topicIds.getOrDefault(topic.name(), Uuid.ZERO_UUID);
            for (ProduceResponseData.PartitionProduceResponse partition : topic.partitionResponses()) {
                moves.add(new TopicPartition(topic.name(), partition.index()), topicId, ErrorCode.forCode(partition.errorCode()),
                        partition.currentLeader().leaderId(), partition.currentLeader().leaderEpoch());
            }
        }
        response.nodeEndpoints().forEach(endpoint -> moves.addEndpoint(endpoint.nodeId(), endpoint.host(), endpoint.port(),
                endpoint.rack()));
        return moves;
    }

    /**
     * The leader moves of a Fetch response.
     *
     * @param topicNames the name of each topic id the request was built with: a Fetch response
     *                   from v13 names its topics by id only
     */
    public static LeaderMoves of(FetchResponseData response, Map<Uuid, String> topicNames) {
        LeaderMoves moves = new LeaderMoves();
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            String name = topic.topic().isEmpty() ? topicNames.get(topic.topicId()) : topic.topic();
            if (name == null) {
                continue;
            }
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                moves.add(new TopicPartition(name, partition.partitionIndex()), topic.topicId(),
                        ErrorCode.forCode(partition.errorCode()), partition.currentLeader().leaderId(),
                        partition.currentLeader().leaderEpoch());
            }
        }
        response.nodeEndpoints().forEach(endpoint -> moves.addEndpoint(endpoint.nodeId(), endpoint.host(), endpoint.port(),
                endpoint.rack()));
        return moves;
    }

    private void add(TopicPartition partition, Uuid topicId, ErrorCode error, int leaderId, int leaderEpoch) {
        if (!isLeadershipError(error)) {
            return;
        }
        if (!mayCarryHint(error)) {
            unhintedTopics.add(partition.topic());
            return;
        }
        hints.add(new LeaderHint(partition, topicId, leaderId, leaderEpoch));
        namedEpochs.put(partition, leaderEpoch);
    }

    private void addEndpoint(int nodeId, String host, int port, String rack) {
        endpoints.add(new BrokerEndpoint(nodeId, host, port, rack, true));
    }

    /** Whether the response refused no partition for a leadership reason. */
    public boolean isEmpty() {
        return hints.isEmpty() && unhintedTopics.isEmpty();
    }

    /**
     * What the refusal of {@code partition} said of the refusing broker, for the retry's backoff
     * ({@link EpochBackoff#refused}).
     *
     * @param roundTripMs how long the refused request took
     */
    public Refusal refusal(TopicPartition partition, long roundTripMs) {
        return new Refusal(namedEpochs.getOrDefault(partition, -1), roundTripMs);
    }

    /** One {@code CurrentLeader} per partition refused with an error that may carry one; -1 fields when the broker named none. */
    List<LeaderHint> hints() {
        return hints;
    }

    /** The topics of partitions refused with a leadership error that carries no hint. */
    Set<String> unhintedTopics() {
        return unhintedTopics;
    }

    /** The response's {@code NodeEndpoints}. */
    List<BrokerEndpoint> endpoints() {
        return endpoints;
    }
}
