package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.junit.jupiter.api.Test;

class SequenceNumbersTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final SequenceNumbers sequences = new SequenceNumbers();

    @Test
    void testEachPartitionCountsFromZeroByRecords() {
        assertThat(sequences.take(P0, 3)).isZero();
        assertThat(sequences.take(P0, 2)).isEqualTo(3);
        assertThat(sequences.take(P1, 1)).isZero();
        assertThat(sequences.take(P0, 1)).isEqualTo(5);
    }

    @Test
    void testResetStartsEveryPartitionAgainAtZero() {
        sequences.take(P0, 3);
        sequences.take(P1, 4);

        sequences.reset();

        assertThat(sequences.take(P0, 1)).isZero();
        assertThat(sequences.take(P1, 1)).isZero();
    }

    @Test
    void testASequenceIsAheadOfExpectedOnlyPastTheLastWrittenBatch() {
        assertThat(sequences.isAheadOfExpected(P0, 0)).as("0 is expected first").isFalse();
        assertThat(sequences.isAheadOfExpected(P0, 3)).isTrue();

        sequences.written(P0, 0, 3);
        sequences.written(P0, 3, 2);

        assertThat(sequences.isAheadOfExpected(P0, 5)).as("the next expected").isFalse();
        assertThat(sequences.isAheadOfExpected(P0, 0)).as("behind what was written").isFalse();
        assertThat(sequences.isAheadOfExpected(P0, 6)).isTrue();
        assertThat(sequences.isAheadOfExpected(P1, 6)).isTrue();
    }

    @Test
    void testALateDuplicateOfAnEarlierBatchDoesNotMoveTheExpectedSequenceBack() {
        sequences.written(P0, 3, 2);
        sequences.written(P0, 0, 3);

        assertThat(sequences.isAheadOfExpected(P0, 5)).isFalse();
        assertThat(sequences.isAheadOfExpected(P0, 6)).isTrue();
    }

    @Test
    void testTheExpectedSequenceMovesForwardAcrossTheWrap() {
        sequences.written(P0, Integer.MAX_VALUE - 1, 1);
        sequences.written(P0, Integer.MAX_VALUE, 3);

        assertThat(sequences.isAheadOfExpected(P0, 2)).isFalse();
        assertThat(sequences.isAheadOfExpected(P0, 3)).isTrue();
        assertThat(sequences.isAheadOfExpected(P0, Integer.MAX_VALUE)).isFalse();
    }

    @Test
    void testAPartitionCountsAsWrittenOnceABatchOfItWasUntilReset() {
        assertThat(sequences.anyWritten(P0)).isFalse();

        sequences.written(P0, 0, 3);

        assertThat(sequences.anyWritten(P0)).isTrue();
        assertThat(sequences.anyWritten(P1)).isFalse();
        sequences.reset();
        assertThat(sequences.anyWritten(P0)).isFalse();
    }

    @Test
    void testSequenceWrapsAsTheRecordBatchFormatDoes() {
        for (int sequence : new int[] {0, 5, Integer.MAX_VALUE - 3, Integer.MAX_VALUE - 1, Integer.MAX_VALUE}) {
            for (int increment : new int[] {1, 2, 4, 10}) {
                assertThat(SequenceNumbers.increment(sequence, increment))
                        .as("%d + %d", sequence, increment)
                        .isEqualTo(DefaultRecordBatch.incrementSequence(sequence, increment));
            }
        }
    }
}
