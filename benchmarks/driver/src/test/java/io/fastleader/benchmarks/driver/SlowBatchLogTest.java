package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;

class SlowBatchLogTest {

    private static final String LINE = "Slow batch t-%d (1 records) took %d ms: in-flight node 1 epoch 3 %d ms NONE";

    @Test
    void readsTheLinesFastleadersProducerLogs() {
        SlowBatchLog log = SlowBatchLog.install(5);
        log.startMeasuring();
        LogManager.getLogger(SlowBatchLog.LOGGER).info(String.format(LINE, 1, 0, 0));

        assertThat(log.slowest()).containsExactly(String.format(LINE, 1, 0, 0));
    }

    @Test
    void keepsTheSlowestBatchesSlowestFirst() {
        SlowBatchLog log = SlowBatchLog.install(2);
        log.startMeasuring();
        long later = System.currentTimeMillis() + 60_000;
        log.add(later, String.format(LINE, 1, 5, 5));
        log.add(later, String.format(LINE, 2, 7, 7));
        log.add(later, String.format(LINE, 3, 6, 6));

        assertThat(log.slowest()).containsExactly(String.format(LINE, 2, 7, 7), String.format(LINE, 3, 6, 6));
    }

    @Test
    void leavesOutBatchesCreatedBeforeMeasuringBegan() {
        SlowBatchLog log = SlowBatchLog.install(5);
        log.startMeasuring();
        log.add(System.currentTimeMillis(), String.format(LINE, 1, 60_000, 60_000));

        assertThat(log.slowest()).isEmpty();
    }
}
