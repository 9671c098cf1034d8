package io.fastleader.benchmarks.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class RecoverySummaryTest {

    @Test
    void takesTheNearestRankOfAThousandValues() {
        long[] micros = LongStream.rangeClosed(1, 1000).map(i -> 1001 - i).toArray();

        assertThat(RecoverySummary.of(micros)).isEqualTo(new RecoverySummary(1000, 500, 990, 999, 1000));
    }

    @Test
    void givesTheMaximumAsP999OfFewerThanAThousandValues() {
        RecoverySummary summary = RecoverySummary.of(new long[] {7, 3, 5});

        assertThat(summary.p999()).isEqualTo(7);
        assertThat(summary.p50()).isEqualTo(5);
    }

    @Test
    void summarisesNoValuesAsZeros() {
        assertThat(RecoverySummary.of(new long[0])).isEqualTo(new RecoverySummary(0, 0, 0, 0, 0));
    }
}
