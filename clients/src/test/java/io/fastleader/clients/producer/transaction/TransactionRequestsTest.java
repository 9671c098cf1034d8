package io.fastleader.clients.producer.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.producer.transaction.TransactionRequests.Identity;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AddPartitionsToTxnRequestData;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import io.fastleader.protocol.message.TxnOffsetCommitRequestData;

class TransactionRequestsTest {

    private static final Identity IDENTITY = new Identity(42, (short) 7);
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    @Test
    void testAddsPartitionsGroupedByTopicInTheClientsLayoutAtEveryVersionWeSpeak() {
        AddPartitionsToTxnRequestData request = TransactionRequests.addPartitions("tx", IDENTITY, List.of(A0, B0, A1));

        assertThat(request.v3AndBelowTransactionalId()).isEqualTo("tx");
        assertThat(request.v3AndBelowProducerId()).isEqualTo(42);
        assertThat(request.v3AndBelowProducerEpoch()).isEqualTo((short) 7);
        assertThat(request.v3AndBelowTopics().find("a").partitions()).containsExactly(0, 1);
        assertThat(request.v3AndBelowTopics().find("b").partitions()).containsExactly(0);
        for (short version = ApiKey.ADD_PARTITIONS_TO_TXN.lowestVersion(); version <= ApiKey.ADD_PARTITIONS_TO_TXN.highestVersion();
             version++) {
            assertSerializable(request, version);
        }
    }

    @Test
    void testReadsEachPartitionsErrorOfAnAddPartitionsAnswer() {
        AddPartitionsToTxnTopicResult topic = new AddPartitionsToTxnTopicResult().setName("a");
        topic.resultsByPartition().add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(0));
        topic.resultsByPartition().add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(1)
                .setPartitionErrorCode(ErrorCode.TOPIC_AUTHORIZATION_FAILED.code()));
        AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
        response.resultsByTopicV3AndBelow().add(topic);

        assertThat(TransactionRequests.addPartitionsErrors(response))
                .containsExactly(Map.entry(A0, ErrorCode.NONE), Map.entry(A1, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
    }

    @Test
    void testCommitsOffsetsWithTheConsumersGroupMetadataSoTheCoordinatorCanFenceAZombie() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        offsets.put(A0, new OffsetAndMetadata(10, Optional.of(3), "m"));
        offsets.put(B0, new OffsetAndMetadata(20));
        ConsumerGroupMetadata group = new ConsumerGroupMetadata("g", 5, "member-1", Optional.of("instance-1"));

        TxnOffsetCommitRequestData request = TransactionRequests.txnOffsetCommit("tx", IDENTITY, group, offsets);

        assertThat(request.groupId()).isEqualTo("g");
        assertThat(request.generationId()).isEqualTo(5);
        assertThat(request.memberId()).isEqualTo("member-1");
        assertThat(request.groupInstanceId()).isEqualTo("instance-1");
        assertThat(request.producerId()).isEqualTo(42);
        assertThat(request.producerEpoch()).isEqualTo((short) 7);
        assertThat(request.topics()).extracting(TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic::name).containsExactly("a", "b");
        assertThat(request.topics().get(0).partitions().get(0).committedLeaderEpoch()).isEqualTo(3);
        assertThat(request.topics().get(1).partitions().get(0).committedLeaderEpoch()).isEqualTo(-1);
        // v3 brought the group metadata; brokers 2.5 and later speak it.
        for (short version = 3; version <= ApiKey.TXN_OFFSET_COMMIT.highestVersion(); version++) {
            assertSerializable(request, version);
        }
    }

    @Test
    void testAFirstInitProducerIdCarriesNoIdentityAndABumpTheOneHeld() {
        assertThat(TransactionRequests.initProducerId("tx", 60_000, Identity.NONE).producerId()).isEqualTo(-1);
        assertThat(TransactionRequests.initProducerId("tx", 60_000, IDENTITY).producerEpoch()).isEqualTo((short) 7);
        assertThat(TransactionRequests.initProducerId("tx", 60_000, IDENTITY).transactionTimeoutMs()).isEqualTo(60_000);
    }

    private static void assertSerializable(ApiMessage message, short version) {
        assertThat(MessageUtil.toByteBufferAccessor(message, version).buffer().remaining()).as("written at v%d", version).isPositive();
    }
}
