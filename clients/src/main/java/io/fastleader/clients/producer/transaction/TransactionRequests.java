package io.fastleader.clients.producer.transaction;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AddOffsetsToTxnRequestData;
import io.fastleader.protocol.message.AddPartitionsToTxnRequestData;
import io.fastleader.protocol.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import io.fastleader.protocol.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData;
import io.fastleader.protocol.message.EndTxnRequestData;
import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.TxnOffsetCommitRequestData;
import io.fastleader.protocol.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import io.fastleader.protocol.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import io.fastleader.protocol.message.TxnOffsetCommitResponseData;

/**
 * The wire side of transactions: the requests a transactional producer sends its coordinators,
 * and the per-partition answers of those that answer per partition. Every request carries the
 * transactional id and the producer id and epoch it is sent under.
 */
final class TransactionRequests {

    private TransactionRequests() {
    }

    /** The producer id and epoch a request is sent under; -1 and -1 before the first InitProducerId. */
    record Identity(long producerId, short epoch) {
        static final Identity NONE = new Identity(-1, (short) -1);
    }

    /** InitProducerId: a first one ({@link Identity#NONE}), or an epoch bump carrying the identity held. */
    static InitProducerIdRequestData initProducerId(String transactionalId, int transactionTimeoutMs, Identity held) {
        return new InitProducerIdRequestData()
                .setTransactionalId(transactionalId)
                .setTransactionTimeoutMs(transactionTimeoutMs)
                .setProducerId(held.producerId())
                .setProducerEpoch(held.epoch());
    }

    /** AddPartitionsToTxn in the client's layout (v3 and below). */
    static AddPartitionsToTxnRequestData addPartitions(String transactionalId, Identity identity,
                                                       Collection<TopicPartition> partitions) {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        for (TopicPartition partition : partitions) {
            AddPartitionsToTxnTopic topic = topics.find(partition.topic());
            if (topic == null) {
                topic = new AddPartitionsToTxnTopic().setName(partition.topic());
                topics.add(topic);
            }
            topic.partitions().add(partition.partition());
        }
        return new AddPartitionsToTxnRequestData()
                .setV3AndBelowTransactionalId(transactionalId)
                .setV3AndBelowProducerId(identity.producerId())
                .setV3AndBelowProducerEpoch(identity.epoch())
                .setV3AndBelowTopics(topics);
    }

    /** Each partition's error in an AddPartitionsToTxn answer (v3 and below), in the answer's order. */
    static Map<TopicPartition, ErrorCode> addPartitionsErrors(AddPartitionsToTxnResponseData response) {
        Map<TopicPartition, ErrorCode> errors = new LinkedHashMap<>();
        response.resultsByTopicV3AndBelow().forEach(topic -> topic.resultsByPartition().forEach(result -> errors.put(
                new TopicPartition(topic.name(), result.partitionIndex()), ErrorCode.forCode(result.partitionErrorCode()))));
        return errors;
    }

    /** AddOffsetsToTxn: the group's offsets partition joins the transaction (transaction version 1 only). */
    static AddOffsetsToTxnRequestData addOffsets(String transactionalId, Identity identity, String groupId) {
        return new AddOffsetsToTxnRequestData()
                .setTransactionalId(transactionalId)
                .setProducerId(identity.producerId())
                .setProducerEpoch(identity.epoch())
                .setGroupId(groupId);
    }

    /**
     * TxnOffsetCommit to the group's coordinator, carrying the consumer's group metadata so that the
     * coordinator refuses a zombie of an older generation. The layout is the same at every version
     * we speak; fields a version lacks are left out.
     */
    static TxnOffsetCommitRequestData txnOffsetCommit(String transactionalId, Identity identity, ConsumerGroupMetadata group,
                                                      Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<String, TxnOffsetCommitRequestTopic> topics = new LinkedHashMap<>();
        offsets.forEach((partition, offset) -> topics
                .computeIfAbsent(partition.topic(), name -> new TxnOffsetCommitRequestTopic().setName(name))
                .partitions().add(new TxnOffsetCommitRequestPartition()
                        .setPartitionIndex(partition.partition())
                        .setCommittedOffset(offset.offset())
                        .setCommittedLeaderEpoch(offset.leaderEpoch().orElse(-1))
                        .setCommittedMetadata(offset.metadata())));
        return new TxnOffsetCommitRequestData()
                .setTransactionalId(transactionalId)
                .setGroupId(group.groupId())
                .setProducerId(identity.producerId())
                .setProducerEpoch(identity.epoch())
                .setGenerationId(group.generationId())
                .setMemberId(group.memberId())
                .setGroupInstanceId(group.groupInstanceId().orElse(null))
                .setTopics(new ArrayList<>(topics.values()));
    }

    /** Each partition's error in a TxnOffsetCommit answer, in the answer's order. */
    static Map<TopicPartition, ErrorCode> txnOffsetCommitErrors(TxnOffsetCommitResponseData response) {
        Map<TopicPartition, ErrorCode> errors = new LinkedHashMap<>();
        response.topics().forEach(topic -> topic.partitions().forEach(partition -> errors.put(
                new TopicPartition(topic.name(), partition.partitionIndex()), ErrorCode.forCode(partition.errorCode()))));
        return errors;
    }

    /** EndTxn: commit or abort the transaction open under {@code identity}. */
    static EndTxnRequestData endTxn(String transactionalId, Identity identity, boolean commit) {
        return new EndTxnRequestData()
                .setTransactionalId(transactionalId)
                .setProducerId(identity.producerId())
                .setProducerEpoch(identity.epoch())
                .setCommitted(commit);
    }
}
