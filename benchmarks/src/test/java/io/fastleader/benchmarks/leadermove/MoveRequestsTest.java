package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class MoveRequestsTest {

    @Test
    void aMoveCostsWhatTheCountedSpanSentBeyondTheQuietRate() {
        MoveRequests.Marks move = new MoveRequests.Marks("rotation 1",
            mark(0, Map.of("Produce", 0L, "Fetch", 0L)),
            mark(10_000, Map.of("Produce", 500L, "Fetch", 1_000L)),
            mark(15_000, Map.of("Produce", 800L, "Fetch", 1_400L, "Metadata", 3L)));

        MoveRequests requests = MoveRequests.of("fastleader", List.of(move));

        assertThat(requests.perMove().get(0).excess()).isEqualTo(Map.of("Produce", 50.0, "Fetch", -100.0, "Metadata", 3.0,
            MoveRequests.ALL, -47.0));
    }

    @Test
    void theMeanIsOverEveryMoveAnApiCostNothingInCountingAsZero() {
        MoveRequests.Mark quiet = mark(0, Map.of());
        MoveRequests.Mark first = mark(1_000, Map.of());
        MoveRequests.Mark firstCounted = mark(2_000, Map.of("Metadata", 4L));
        MoveRequests.Mark second = mark(3_000, Map.of("Metadata", 4L));
        MoveRequests.Mark secondCounted = mark(4_000, Map.of("Metadata", 4L));

        MoveRequests requests = MoveRequests.of("fastleader", List.of(
            new MoveRequests.Marks("rotation 1", quiet, first, firstCounted),
            new MoveRequests.Marks("rotation 2", firstCounted, second, secondCounted)));

        assertThat(requests.meanExcess().get("Metadata")).isCloseTo(2.0, within(1e-9));
        assertThat(requests.perMove().get(1).excess()).isEqualTo(Map.of(MoveRequests.ALL, 0.0));
    }

    @Test
    void eachVariantIsAccountedFromItsOwnCounts() {
        MoveRequests.Marks move = new MoveRequests.Marks("restart of broker 1",
            new MoveRequests.Mark(0, Map.of("fastleader", Map.of(), "kafka-clients-4.3.1", Map.of())),
            new MoveRequests.Mark(1_000, Map.of("fastleader", Map.of(), "kafka-clients-4.3.1", Map.of())),
            new MoveRequests.Mark(2_000, Map.of("fastleader", Map.of("Metadata", 1L), "kafka-clients-4.3.1", Map.of("Metadata", 5L))));

        assertThat(MoveRequests.of("kafka-clients-4.3.1", List.of(move)).meanExcess()).containsEntry("Metadata", 5.0);
    }

    private static MoveRequests.Mark mark(long epochMillis, Map<String, Long> sent) {
        return new MoveRequests.Mark(epochMillis, Map.of("fastleader", sent));
    }
}
