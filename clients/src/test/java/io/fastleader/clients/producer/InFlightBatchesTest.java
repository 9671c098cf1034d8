package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;

class InFlightBatchesTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final InFlightBatches inFlight = new InFlightBatches();

    @Test
    void testAPartitionWithNothingInFlightMayGoToAnyNode() {
        assertThat(inFlight.mayGoTo(P0, 1)).isTrue();
        assertThat(inFlight.mayGoTo(P0, 2)).isTrue();
        assertThat(inFlight.isEmpty()).isTrue();
    }

    @Test
    void testAPartitionWithBatchesInFlightMayOnlyAddToThemOnTheirNode() {
        inFlight.sent(1, batch(P0));
        inFlight.sent(1, batch(P0));

        assertThat(inFlight.mayGoTo(P0, 1)).isTrue();
        assertThat(inFlight.mayGoTo(P0, 2)).as("its leader moved to node 2").isFalse();
        assertThat(inFlight.mayGoTo(P1, 2)).isTrue();
    }

    @Test
    void testOnlyOnceItsLastBatchIsAnsweredMayAPartitionGoToAnotherNode() {
        ProducerBatch first = batch(P0);
        ProducerBatch second = batch(P0);
        inFlight.sent(1, first);
        inFlight.sent(1, second);

        inFlight.answered(first);
        assertThat(inFlight.mayGoTo(P0, 2)).isFalse();

        inFlight.answered(second);
        assertThat(inFlight.mayGoTo(P0, 2)).isTrue();
        assertThat(inFlight.isEmpty()).isTrue();
    }

    @Test
    void testABatchSentToAnotherNodeThanItsPartitionsBatchesInFlightIsRefused() {
        inFlight.sent(1, batch(P0));

        assertThatThrownBy(() -> inFlight.sent(2, batch(P0))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("in flight to node 1");
    }

    @Test
    void testBatchesListsEveryBatchInFlightAndAnAnswerIsCountedOnce() {
        ProducerBatch first = batch(P0);
        ProducerBatch other = batch(P1);
        inFlight.sent(1, first);
        inFlight.sent(2, other);

        inFlight.answered(first);
        inFlight.answered(first);

        assertThat(inFlight.batches()).containsExactly(other);
        assertThat(inFlight.mayGoTo(P0, 2)).isTrue();
    }

    @Test
    void testTheOldestUnendedBatchInFlightIsTheOldestNotYetEndedOfAnyPartition() {
        ProducerBatch ended = batch(P0, 10);
        inFlight.sent(1, ended);
        inFlight.sent(1, batch(P0, 30));
        inFlight.sent(2, batch(P1, 20));

        ended.fail(new KafkaException("expired"));

        assertThat(inFlight.oldestUnendedCreatedMs()).isEqualTo(20);
    }

    @Test
    void testWithNothingInFlightNoBatchIsTheOldest() {
        assertThat(inFlight.oldestUnendedCreatedMs()).isEqualTo(Long.MAX_VALUE);
    }

    private static ProducerBatch batch(TopicPartition partition) {
        return batch(partition, 0);
    }

    private static ProducerBatch batch(TopicPartition partition, long createdMs) {
        return new ProducerBatch(partition, Compression.NONE, 1024, createdMs);
    }
}
