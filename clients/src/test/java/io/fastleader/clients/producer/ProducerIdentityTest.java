package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;

class ProducerIdentityTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 0);
    private final ProducerIdentity identity = new ProducerIdentity(false);

    @Test
    void testFirstRequestAsksForANewId() {
        InitProducerIdRequestData request = identity.initRequest();

        assertThat(identity.isHeld()).isFalse();
        assertThat(request.transactionalId()).isNull();
        assertThat(request.producerId()).isEqualTo(-1);
        assertThat(request.producerEpoch()).isEqualTo((short) -1);
    }

    @Test
    void testNothingIsStampedWithoutAnId() {
        assertThatThrownBy(() -> identity.stamp(batch(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testBatchesTakeConsecutiveSequencesAndARetryKeepsItsOwn() {
        identity.initialized(answer(42, 0));
        ProducerBatch first = batch(3);
        ProducerBatch second = batch(2);

        identity.stamp(first);
        identity.stamp(second);
        identity.stamp(first);

        assertThat(first.baseSequence()).isZero();
        assertThat(second.baseSequence()).isEqualTo(3);
        assertThat(first.producerId()).isEqualTo(42);
    }

    @Test
    void testBumpAsksWithTheCurrentIdAndResequencesFromZeroInSendOrder() {
        identity.initialized(answer(42, 0));
        ProducerBatch refused = batch(3);
        ProducerBatch queued = batch(2);
        identity.stamp(refused);

        assertThat(identity.bumpFor(refused)).isTrue();
        assertThat(identity.isHeld()).isFalse();
        assertThat(identity.initRequest().producerId()).isEqualTo(42);
        assertThat(identity.initRequest().producerEpoch()).isZero();

        identity.initialized(answer(42, 1));
        identity.stamp(refused);
        identity.stamp(queued);

        assertThat(refused.producerEpoch()).isEqualTo((short) 1);
        assertThat(refused.baseSequence()).isZero();
        assertThat(queued.baseSequence()).isEqualTo(3);
    }

    @Test
    void testABatchFromAnEarlierEpochDoesNotBumpAgain() {
        identity.initialized(answer(42, 0));
        ProducerBatch old = batch(1);
        identity.stamp(old);
        identity.bumpFor(old);
        identity.initialized(answer(42, 1));

        assertThat(identity.bumpFor(old)).isFalse();
        assertThat(identity.isHeld()).isTrue();
    }

    @Test
    void testABatchRefusedBehindAnUnwrittenOneWaitsForItButTheNextExpectedBatchDoesNot() {
        identity.initialized(answer(42, 0));
        ProducerBatch first = batch(3);
        ProducerBatch second = batch(2);
        identity.stamp(first);
        identity.stamp(second);

        assertThat(identity.waitsForAnEarlierBatch(second)).isTrue();
        assertThat(identity.waitsForAnEarlierBatch(first)).as("nothing is ahead of it: the broker lost its state").isFalse();

        identity.written(first);

        assertThat(identity.waitsForAnEarlierBatch(second)).isFalse();
    }

    @Test
    void testABatchRefusedBehindBatchesAlreadyWrittenWaitsForNothing() {
        identity.initialized(answer(42, 0));
        ProducerBatch first = batch(3);
        ProducerBatch second = batch(2);
        identity.stamp(first);
        identity.stamp(second);

        // A broker without state for the producer took the second batch first.
        identity.written(second);

        assertThat(identity.waitsForAnEarlierBatch(first)).isFalse();
    }

    @Test
    void testAPartitionPipelinesOnlyOnceABatchOfItWasWrittenUnderTheHeldIdentity() {
        identity.initialized(answer(42, 0));
        ProducerBatch first = batch(1);
        identity.stamp(first);
        assertThat(identity.mayPipeline(PARTITION)).isFalse();

        identity.written(first);
        assertThat(identity.mayPipeline(PARTITION)).isTrue();

        identity.bumpFor(first);
        assertThat(identity.mayPipeline(PARTITION)).as("a bump is under way").isFalse();
        identity.initialized(answer(43, 0));
        assertThat(identity.mayPipeline(PARTITION)).isFalse();
    }

    @Test
    void testABatchOfAnEarlierEpochWaitsForNothing() {
        identity.initialized(answer(42, 0));
        identity.stamp(batch(3));
        ProducerBatch old = batch(2);
        identity.stamp(old);
        identity.initialized(answer(42, 1));

        assertThat(identity.waitsForAnEarlierBatch(old)).isFalse();
    }

    private static InitProducerIdResponseData answer(long producerId, int epoch) {
        return new InitProducerIdResponseData().setProducerId(producerId).setProducerEpoch((short) epoch);
    }

    private static ProducerBatch batch(int records) {
        ProducerBatch batch = new ProducerBatch(PARTITION, Compression.NONE, 4096, 0);
        for (int i = 0; i < records; i++) {
            batch.tryAppend(0, null, ("v" + i).getBytes(), new Header[0], null);
        }
        return batch;
    }
}
