package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.ProduceResponseData;

class LeaderMovesTest {

    private static final Uuid ORDERS_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static final TopicPartition P2 = new TopicPartition("orders", 2);

    @Test
    void testReadsTheHintsOfAProduceResponsesPartitionsRefusedForLeadership() {
        ProduceResponseData response = produceResponse(
                producePartition(0, ErrorCode.NOT_LEADER_OR_FOLLOWER, 2, 7),
                producePartition(1, ErrorCode.NONE, -1, -1),
                producePartition(2, ErrorCode.FENCED_LEADER_EPOCH, 3, 9));
        response.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(2).setHost("broker-2").setPort(9092).setRack("a"));

        LeaderMoves moves = LeaderMoves.of(response, Map.of("orders", ORDERS_ID));

        assertThat(moves.hints()).containsExactly(new LeaderHint(P0, ORDERS_ID, 2, 7), new LeaderHint(P2, ORDERS_ID, 3, 9));
        assertThat(moves.endpoints()).containsExactly(new BrokerEndpoint(2, "broker-2", 9092, "a", true));
        assertThat(moves.unhintedTopics()).isEmpty();
    }

    @Test
    void testReadsAFetchResponseNamingItsTopicsByIdTheSameWay() {
        FetchResponseData response = new FetchResponseData();
        response.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(ORDERS_ID).setPartitions(List.of(
                fetchPartition(0, ErrorCode.NOT_LEADER_OR_FOLLOWER, 2, 7),
                fetchPartition(1, ErrorCode.NONE, -1, -1),
                fetchPartition(2, ErrorCode.FENCED_LEADER_EPOCH, 3, 9))));
        response.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(2).setHost("broker-2").setPort(9092).setRack("a"));

        LeaderMoves moves = LeaderMoves.of(response, Map.of(ORDERS_ID, "orders"));

        assertThat(moves.hints()).containsExactly(new LeaderHint(P0, ORDERS_ID, 2, 7), new LeaderHint(P2, ORDERS_ID, 3, 9));
        assertThat(moves.endpoints()).containsExactly(new BrokerEndpoint(2, "broker-2", 9092, "a", true));
    }

    @Test
    void testARefusalWithoutCurrentLeaderIsAnIncompleteHint() {
        ProduceResponseData response = produceResponse(new ProduceResponseData.PartitionProduceResponse()
                .setIndex(0).setErrorCode(ErrorCode.NOT_LEADER_OR_FOLLOWER.code()));

        LeaderMoves moves = LeaderMoves.of(response, Map.of());

        assertThat(moves.hints()).singleElement().satisfies(hint -> {
            assertThat(hint.isComplete()).isFalse();
            assertThat(hint.topicId()).isEqualTo(Uuid.ZERO_UUID);
        });
    }

    @Test
    void testALeadershipErrorThatCarriesNoHintRefreshesItsTopic() {
        LeaderMoves moves = LeaderMoves.of(produceResponse(producePartition(0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 2, 7)), Map.of());

        assertThat(moves.hints()).isEmpty();
        assertThat(moves.unhintedTopics()).containsExactly("orders");
        assertThat(moves.isEmpty()).isFalse();
    }

    @Test
    void testOtherErrorsAreNoLeaderMove() {
        LeaderMoves moves = LeaderMoves.of(produceResponse(producePartition(0, ErrorCode.NOT_ENOUGH_REPLICAS, 2, 7)), Map.of());

        assertThat(moves.isEmpty()).isTrue();
    }

    @Test
    void testTheRefusalOfAPartitionCarriesTheEpochItsBrokerNamed() {
        LeaderMoves moves = LeaderMoves.of(produceResponse(producePartition(0, ErrorCode.NOT_LEADER_OR_FOLLOWER, 2, 7)), Map.of());

        assertThat(moves.refusal(P0, 12)).isEqualTo(new Refusal(7, 12));
        assertThat(moves.refusal(P1, 12)).isEqualTo(new Refusal(-1, 12));
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void testOnlyNotLeaderAndFencedEpochMayCarryAHintAndBothAreLeadershipErrors(ErrorCode error) {
        boolean carries = error == ErrorCode.NOT_LEADER_OR_FOLLOWER || error == ErrorCode.FENCED_LEADER_EPOCH;

        assertThat(LeaderMoves.mayCarryHint(error)).isEqualTo(carries);
        assertThat(LeaderMoves.isLeadershipError(error)).isEqualTo(error.exception() instanceof InvalidMetadataException);
        if (carries) {
            assertThat(LeaderMoves.isLeadershipError(error)).isTrue();
        }
    }

    private static ProduceResponseData produceResponse(ProduceResponseData.PartitionProduceResponse... partitions) {
        ProduceResponseData response = new ProduceResponseData();
        response.responses().add(new ProduceResponseData.TopicProduceResponse().setName("orders")
                .setPartitionResponses(List.of(partitions)));
        return response;
    }

    private static ProduceResponseData.PartitionProduceResponse producePartition(int index, ErrorCode error, int leaderId,
                                                                                 int leaderEpoch) {
        return new ProduceResponseData.PartitionProduceResponse().setIndex(index).setErrorCode(error.code())
                .setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(leaderId).setLeaderEpoch(leaderEpoch));
    }

    private static FetchResponseData.PartitionData fetchPartition(int index, ErrorCode error, int leaderId, int leaderEpoch) {
        return new FetchResponseData.PartitionData().setPartitionIndex(index).setErrorCode(error.code())
                .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(leaderId).setLeaderEpoch(leaderEpoch));
    }
}
