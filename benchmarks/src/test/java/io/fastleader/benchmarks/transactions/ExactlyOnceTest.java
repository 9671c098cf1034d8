package io.fastleader.benchmarks.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ExactlyOnceTest {

    private static BitSet numbers(int... numbers) {
        BitSet set = new BitSet();
        for (int number : numbers) {
            set.set(number);
        }
        return set;
    }

    @Test
    void testEveryAcknowledgedRecordOnceHolds() {
        ExactlyOnce tally = ExactlyOnce.of(numbers(0, 1, 2), Map.of(0L, 1, 1L, 1, 2L, 1));

        assertThat(tally.holds()).isTrue();
        assertThat(tally.outputRecords()).isEqualTo(3);
    }

    @Test
    void testAMissingRecordIsLost() {
        ExactlyOnce tally = ExactlyOnce.of(numbers(0, 1, 2), Map.of(0L, 1, 2L, 1));

        assertThat(tally.holds()).isFalse();
        assertThat(tally.missing()).isEqualTo(1);
        assertThat(tally.duplicates()).isZero();
    }

    @Test
    void testExtraCopiesAreDuplicates() {
        ExactlyOnce tally = ExactlyOnce.of(numbers(0, 1), Map.of(0L, 3, 1L, 1));

        assertThat(tally.holds()).isFalse();
        assertThat(tally.duplicates()).isEqualTo(2);
        assertThat(tally.outputRecords()).isEqualTo(4);
    }

    @Test
    void testARecordWhoseFeedSendFailedMayBeThereOnce() {
        ExactlyOnce tally = ExactlyOnce.of(numbers(0), Map.of(0L, 1, 1L, 1));

        assertThat(tally.holds()).isTrue();
        assertThat(tally.unacknowledgedInOutput()).isEqualTo(1);
    }
}
