package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class TallyTest {

    private final Tally tally = new Tally();

    @Test
    void countsARecordConsumedTwiceAsADuplicate() {
        tally.acked(0, 1_000);
        tally.consumed(0, 2_000);
        tally.consumed(0, 3_000);

        assertThat(tally.toJson("v", Map.of(), List.of())).contains("\"consumed\":1", "\"duplicates\":1", "\"lost\":0");
    }

    @Test
    void countsAnAcknowledgedRecordNeverConsumedAsLost() {
        tally.acked(0, 1_000);
        tally.acked(1, 1_000);
        tally.consumed(0, 2_000);

        assertThat(tally.toJson("v", Map.of(), List.of())).contains("\"acked\":2", "\"lost\":1", "\"duplicates\":0");
    }

    @Test
    void keepsOnlyTheFirstErrorAndQuotesItForJson() {
        tally.failed(new IllegalStateException("a \"quoted\" \\ word"));
        tally.failed(new IllegalArgumentException("second"));

        assertThat(tally.toJson("v", Map.of(), List.of()))
            .contains("\"errors\":2", "\"firstError\":\"IllegalStateException: a \\\"quoted\\\" \\\\ word\"")
            .doesNotContain("second");
    }

    @Test
    void leavesRecordsSentBeforeMeasuringOutOfThePercentiles() {
        long sentBefore = System.nanoTime();
        tally.startMeasuring();
        long sentAfter = System.nanoTime();
        tally.acked(0, sentBefore);
        tally.acked(1, sentAfter);

        assertThat(tally.toJson("v", Map.of(), List.of())).contains("\"acked\":2", "\"measured\":1");
    }

    @Test
    void awaitsNoLongerOnceEveryAcknowledgedRecordWasConsumed() throws InterruptedException {
        tally.acked(0, 1_000);
        tally.consumed(0, 2_000);

        tally.awaitConsumedAllAcked(Duration.ofDays(1));

        assertThat(tally.progress()).contains("acked=1 consumed=1");
    }

    @Test
    void reportsNoMeasuredTimeOrCpuBeforeMeasuringStarts() {
        tally.sent();

        assertThat(tally.toJson("v", Map.of(), List.of())).contains("\"measuredSeconds\":0.0,\"measuredCpuSeconds\":0.0");
    }
}
