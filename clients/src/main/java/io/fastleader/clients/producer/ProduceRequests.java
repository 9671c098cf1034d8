package io.fastleader.clients.producer;

import java.util.List;

import org.apache.kafka.common.TopicPartition;

import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceRequestData.PartitionProduceData;
import io.fastleader.protocol.message.ProduceRequestData.TopicProduceData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;

/** The wire side of producing: one Produce request from drained batches, and finding a partition's answer in the response. */
public final class ProduceRequests {

    private ProduceRequests() {
    }

    /**
     * One request carrying each batch's records (at most one batch per partition, as the
     * accumulator drains them). Stamp the batches' producer state first: this closes them.
     *
     * @param transactionalId {@code transactional.id}, null for a producer without transactions
     * @param acks            {@code acks}: -1 for all
     * @param timeoutMs       {@code request.timeout.ms}: how long the leader may wait for replication
     */
    public static ProduceRequestData build(String transactionalId, short acks, int timeoutMs, List<ProducerBatch> batches) {
        ProduceRequestData request = new ProduceRequestData().setTransactionalId(transactionalId).setAcks(acks)
                .setTimeoutMs(timeoutMs);
        for (ProducerBatch batch : batches) {
            TopicPartition partition = batch.topicPartition();
            TopicProduceData topic = request.topicData().find(partition.topic());
            if (topic == null) {
                topic = new TopicProduceData().setName(partition.topic());
                request.topicData().add(topic);
            }
            topic.partitionData().add(new PartitionProduceData().setIndex(partition.partition()).setRecords(batch.records()));
        }
        return request;
    }

    /** The response's answer for a partition, or null when the broker left it out. */
    public static PartitionProduceResponse answerFor(ProduceResponseData response, TopicPartition partition) {
        TopicProduceResponse topic = response.responses().find(partition.topic());
        if (topic == null) {
            return null;
        }
        for (PartitionProduceResponse answer : topic.partitionResponses()) {
            if (answer.index() == partition.partition()) {
                return answer;
            }
        }
        return null;
    }
}
