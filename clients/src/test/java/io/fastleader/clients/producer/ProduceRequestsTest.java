package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;

class ProduceRequestsTest {

    @Test
    void testOneRequestGroupsBatchesByTopicWithAcksAndTimeout() {
        ProducerBatch a0 = batch(new TopicPartition("a", 0));
        ProducerBatch b2 = batch(new TopicPartition("b", 2));
        ProducerBatch a1 = batch(new TopicPartition("a", 1));

        ProduceRequestData request = ProduceRequests.build(null, (short) -1, 30_000, List.of(a0, b2, a1));

        assertThat(request.acks()).isEqualTo((short) -1);
        assertThat(request.timeoutMs()).isEqualTo(30_000);
        assertThat(request.transactionalId()).isNull();
        assertThat(request.topicData()).hasSize(2);
        assertThat(request.topicData().find("a").partitionData()).extracting(p -> p.index()).containsExactly(0, 1);
        assertThat(request.topicData().find("b").partitionData().get(0).records()).isEqualTo(b2.records());
    }

    @Test
    void testFindsAPartitionsAnswerOrNull() {
        ProduceResponseData response = new ProduceResponseData();
        TopicProduceResponse topic = new TopicProduceResponse().setName("a");
        topic.partitionResponses().add(new PartitionProduceResponse().setIndex(1).setBaseOffset(77));
        response.responses().add(topic);

        assertThat(ProduceRequests.answerFor(response, new TopicPartition("a", 1)).baseOffset()).isEqualTo(77);
        assertThat(ProduceRequests.answerFor(response, new TopicPartition("a", 0))).isNull();
        assertThat(ProduceRequests.answerFor(response, new TopicPartition("b", 1))).isNull();
    }

    private static ProducerBatch batch(TopicPartition partition) {
        ProducerBatch batch = new ProducerBatch(partition, Compression.NONE, 1024, 0);
        batch.tryAppend(0, null, "v".getBytes(), new Header[0], null);
        return batch;
    }
}
