package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.LeaderHint;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.LeaderIdAndEpoch;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;

class ProduceResponseHintsTest {

    private static final Uuid ORDERS_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    @Test
    void testReadsHintsOfPartitionsRefusedForLeadership() {
        ProduceResponseData response = response(
                partition(0, Errors.NOT_LEADER_OR_FOLLOWER, 2, 7),
                partition(1, Errors.NONE, -1, -1),
                partition(2, Errors.FENCED_LEADER_EPOCH, 3, 9));
        response.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(2).setHost("broker-2").setPort(9092).setRack("a"));

        ProduceResponseHints hints = ProduceResponseHints.of(response, Map.of("orders", ORDERS_ID));

        assertThat(hints.hints()).containsExactly(
                new LeaderHint(new TopicPartition("orders", 0), ORDERS_ID, 2, 7),
                new LeaderHint(new TopicPartition("orders", 2), ORDERS_ID, 3, 9));
        assertThat(hints.endpoints()).containsExactly(new BrokerEndpoint(2, "broker-2", 9092, "a", true));
    }

    @Test
    void testRefusalWithoutCurrentLeaderIsAnIncompleteHint() {
        ProduceResponseData response = response(new PartitionProduceResponse()
                .setIndex(0).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()));

        ProduceResponseHints hints = ProduceResponseHints.of(response, Map.of());

        assertThat(hints.hints()).singleElement().satisfies(hint -> {
            assertThat(hint.isComplete()).isFalse();
            assertThat(hint.topicId()).isEqualTo(Uuid.ZERO_UUID);
        });
    }

    @Test
    void testOtherErrorsCarryNoHint() {
        ProduceResponseData response = response(partition(0, Errors.NOT_ENOUGH_REPLICAS, 2, 7));

        assertThat(ProduceResponseHints.of(response, Map.of()).hints()).isEmpty();
    }

    private static ProduceResponseData response(PartitionProduceResponse... partitions) {
        ProduceResponseData response = new ProduceResponseData();
        response.responses().add(new TopicProduceResponse().setName("orders").setPartitionResponses(List.of(partitions)));
        return response;
    }

    private static PartitionProduceResponse partition(int index, Errors error, int leaderId, int leaderEpoch) {
        return new PartitionProduceResponse().setIndex(index).setErrorCode(error.code())
                .setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(leaderId).setLeaderEpoch(leaderEpoch));
    }
}
