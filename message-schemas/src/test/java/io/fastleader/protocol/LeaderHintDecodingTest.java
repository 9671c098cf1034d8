package io.fastleader.protocol;

import static io.fastleader.protocol.FramingTest.kafkaResponseFrame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;

import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.ProduceResponseData;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-951 hints as a 3.7+ broker writes them (built with kafka-clients' own classes), read back
 * through our framing.
 */
class LeaderHintDecodingTest {

    private static final Uuid TOPIC_ID = Uuid.fromString("vK2n6a3uQ6mJ0b3lZyV1Cw");

    @Test
    void hintedProduceResponseV10CarriesLeaderEpochAndEndpoint() {
        ProduceResponseData response = decodeProduce((short) 10, hintedProduceResponse((short) 10));

        ProduceResponseData.PartitionProduceResponse partition = response.responses().find("orders").partitionResponses().get(0);
        assertThat(partition.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
        assertThat(partition.currentLeader().leaderId()).isEqualTo(2);
        assertThat(partition.currentLeader().leaderEpoch()).isEqualTo(17);
        ProduceResponseData.NodeEndpoint endpoint = response.nodeEndpoints().find(2);
        assertThat(endpoint.host()).isEqualTo("broker-2.local");
        assertThat(endpoint.port()).isEqualTo(9094);
        assertThat(endpoint.rack()).isEqualTo("rack-b");
    }

    @Test
    void theSameProduceBytesAreRefusedAtV9() {
        // v9 and v10 share one encoding, but tag 0 is not defined before v10: a hint never
        // slips into a pre-KIP-951 decode.
        assertThatThrownBy(() -> decodeProduce((short) 9, hintedProduceResponse((short) 10)))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageContaining("Tag 0 is not valid for version 9");
    }

    @Test
    void hintedFetchResponseV16CarriesLeaderEpochAndEndpoint() {
        FetchResponseData response = decodeFetch((short) 16, hintedFetchResponse((short) 16));

        FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
        assertThat(response.responses().get(0).topicId()).isEqualTo(TOPIC_ID);
        assertThat(partition.errorCode()).isEqualTo(Errors.FENCED_LEADER_EPOCH.code());
        assertThat(partition.currentLeader().leaderId()).isEqualTo(3);
        assertThat(partition.currentLeader().leaderEpoch()).isEqualTo(8);
        FetchResponseData.NodeEndpoint endpoint = response.nodeEndpoints().find(3);
        assertThat(endpoint.host()).isEqualTo("broker-3.local");
        assertThat(endpoint.port()).isEqualTo(9095);
        assertThat(endpoint.rack()).isNull();
    }

    @Test
    void theSameFetchBytesAreRefusedAtV15() {
        assertThatThrownBy(() -> decodeFetch((short) 15, hintedFetchResponse((short) 16)))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageContaining("Tag 0 is not valid for version 15");
    }

    @Test
    void fetchResponsesBeforeV16CarryNoEndpoints() {
        // CurrentLeader has been a Fetch tag since v12 (KRaft fetches); the NodeEndpoints that
        // make it a usable hint come only with v16.
        var response = new org.apache.kafka.common.message.FetchResponseData();
        response.responses().add(new org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse()
            .setTopicId(TOPIC_ID)
            .setPartitions(List.of(new org.apache.kafka.common.message.FetchResponseData.PartitionData()
                .setPartitionIndex(1)
                .setErrorCode(Errors.FENCED_LEADER_EPOCH.code()))));

        FetchResponseData decoded = decodeFetch((short) 15, kafkaResponseFrame(ApiKeys.FETCH, (short) 15, 12, response));

        assertThat(decoded.responses().get(0).partitions().get(0).currentLeader().leaderId()).isEqualTo(-1);
        assertThat(decoded.nodeEndpoints()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(shorts = {9, 10})
    void unhintedErrorResponsesDecodeToAnUnknownLeader(short version) {
        var kafkas = new org.apache.kafka.common.message.ProduceResponseData();
        kafkas.responses().add(new org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse()
            .setName("orders")
            .setPartitionResponses(List.of(new org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse()
                .setIndex(0).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()))));

        ProduceResponseData response = decodeProduce(version, kafkaResponseFrame(ApiKeys.PRODUCE, version, 1, kafkas));

        ProduceResponseData.PartitionProduceResponse partition = response.responses().find("orders").partitionResponses().get(0);
        assertThat(partition.currentLeader().leaderId()).isEqualTo(-1);
        assertThat(partition.currentLeader().leaderEpoch()).isEqualTo(-1);
        assertThat(response.nodeEndpoints()).isEmpty();
    }

    private static ProduceResponseData decodeProduce(short version, ByteBuffer frame) {
        return (ProduceResponseData) Framing.decodeResponse(ApiKey.PRODUCE, version, frame).body();
    }

    private static FetchResponseData decodeFetch(short version, ByteBuffer frame) {
        return (FetchResponseData) Framing.decodeResponse(ApiKey.FETCH, version, frame).body();
    }

    static ByteBuffer hintedProduceResponse(short version) {
        var response = new org.apache.kafka.common.message.ProduceResponseData();
        response.responses().add(new org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse()
            .setName("orders")
            .setPartitionResponses(List.of(new org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse()
                .setIndex(4)
                .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                .setBaseOffset(-1)
                .setCurrentLeader(new org.apache.kafka.common.message.ProduceResponseData.LeaderIdAndEpoch()
                    .setLeaderId(2).setLeaderEpoch(17)))));
        response.nodeEndpoints().add(new org.apache.kafka.common.message.ProduceResponseData.NodeEndpoint()
            .setNodeId(2).setHost("broker-2.local").setPort(9094).setRack("rack-b"));
        return kafkaResponseFrame(ApiKeys.PRODUCE, version, 11, response);
    }

    static ByteBuffer hintedFetchResponse(short version) {
        var response = new org.apache.kafka.common.message.FetchResponseData();
        response.responses().add(new org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse()
            .setTopicId(TOPIC_ID)
            .setPartitions(List.of(new org.apache.kafka.common.message.FetchResponseData.PartitionData()
                .setPartitionIndex(1)
                .setErrorCode(Errors.FENCED_LEADER_EPOCH.code())
                .setCurrentLeader(new org.apache.kafka.common.message.FetchResponseData.LeaderIdAndEpoch()
                    .setLeaderId(3).setLeaderEpoch(8)))));
        response.nodeEndpoints().add(new org.apache.kafka.common.message.FetchResponseData.NodeEndpoint()
            .setNodeId(3).setHost("broker-3.local").setPort(9095));
        return kafkaResponseFrame(ApiKeys.FETCH, version, 12, response);
    }
}
