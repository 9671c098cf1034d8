package io.fastleader.benchmarks.leadermove;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class SlowBatchPhasesTest {

    @Test
    void sumsEachPhaseOverEveryLineWhateverNodeOrEpochItNames() {
        List<String> lines = List.of(
            "Slow batch t-3 (2 records) took 312 ms: queued 1 ms, in-flight node 1 epoch 5 12 ms NOT_LEADER_OR_FOLLOWER,"
                + " metadata 280 ms, in-flight node 2 epoch 6 19 ms NONE",
            "Slow batch t-4 (1 records) took 150 ms: behind-in-flight 3 ms, backoff 100 ms, connecting node 2 40 ms,"
                + " in-flight node 2 epoch 6 7 ms NONE");

        assertThat(SlowBatchPhases.totals(lines)).containsExactly(
            entry("queued", 1L), entry("in-flight", 38L), entry("behind-in-flight", 3L),
            entry("backoff", 100L), entry("metadata", 280L), entry("connecting", 40L), entry("transaction", 0L));
    }
}
