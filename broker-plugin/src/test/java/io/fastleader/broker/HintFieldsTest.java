package io.fastleader.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

/** The hinted old-version responses against the same responses encoded natively at the hinting version. */
class HintFieldsTest {

    private static final LeaderHint NODE_2_AT_EPOCH_7 = new LeaderHint(new PartitionLeader(2, 7), new Endpoint(2, "proxy.example", 9094, "rack-b"));
    private static final LeaderHint NODE_3_AT_EPOCH_4 = new LeaderHint(new PartitionLeader(3, 4), new Endpoint(3, "proxy.example", 9095, null));
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private static byte[] bytes(Message message, short version) {
        ByteBuffer buffer = MessageUtil.toByteBuffer(message, version);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static ProduceResponseData produceResponse() {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(0);
        ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse().setName("orders");
        topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(0).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setBaseOffset(-1));
        topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(1).setBaseOffset(42));
        topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(2).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setBaseOffset(-1));
        response.responses().add(topic);
        return response;
    }

    private static FetchResponseData fetchResponse() {
        FetchResponseData response = new FetchResponseData().setSessionId(0);
        FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse().setTopicId(TOPIC_ID);
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0).setErrorCode(Errors.FENCED_LEADER_EPOCH.code()));
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(1).setHighWatermark(42));
        response.responses().add(topic);
        return response;
    }

    @Test
    void aHintedProduceV9ResponseIsByteForByteTheNativeV10One() {
        ProduceResponseData hinted = produceResponse();
        ProduceResponseData.TopicProduceResponse topic = hinted.responses().find("orders");
        HintFields.addToProduce(hinted, Map.of(
            topic.partitionResponses().get(0), NODE_2_AT_EPOCH_7,
            topic.partitionResponses().get(2), NODE_3_AT_EPOCH_4));

        ProduceResponseData expected = produceResponse();
        ProduceResponseData.TopicProduceResponse expectedTopic = expected.responses().find("orders");
        expectedTopic.partitionResponses().get(0).setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(7));
        expectedTopic.partitionResponses().get(2).setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(3).setLeaderEpoch(4));
        expected.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(2).setHost("proxy.example").setPort(9094).setRack("rack-b"));
        expected.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(3).setHost("proxy.example").setPort(9095).setRack(null));

        assertThat(bytes(hinted, (short) 9)).isEqualTo(bytes(expected, (short) 10));
    }

    @Test
    void aHintedFetchV15ResponseIsByteForByteTheNativeV16One() {
        FetchResponseData hinted = fetchResponse();
        HintFields.addToFetch(hinted, Map.of(hinted.responses().get(0).partitions().get(0), NODE_2_AT_EPOCH_7));

        FetchResponseData expected = fetchResponse();
        expected.responses().get(0).partitions().get(0).setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(7));
        expected.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(2).setHost("proxy.example").setPort(9094).setRack("rack-b"));

        assertThat(bytes(hinted, (short) 15)).isEqualTo(bytes(expected, (short) 16));
    }

    @Test
    void oneEndpointPerLeaderHowEverManyPartitionsItLeads() {
        ProduceResponseData hinted = produceResponse();
        ProduceResponseData.TopicProduceResponse topic = hinted.responses().find("orders");
        HintFields.addToProduce(hinted, Map.of(
            topic.partitionResponses().get(0), NODE_2_AT_EPOCH_7,
            topic.partitionResponses().get(2), NODE_2_AT_EPOCH_7));

        ProduceResponseData parsed = new ProduceResponseData(new ByteBufferAccessor(ByteBuffer.wrap(bytes(hinted, (short) 9))), (short) 10);

        assertThat(parsed.nodeEndpoints()).hasSize(1);
        assertThat(parsed.responses().find("orders").partitionResponses().get(2).currentLeader().leaderId()).isEqualTo(2);
    }
}
