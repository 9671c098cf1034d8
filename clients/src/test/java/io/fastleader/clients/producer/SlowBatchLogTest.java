package io.fastleader.clients.producer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class SlowBatchLogTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 3);
    private static final long CREATED_MS = 1_000;

    private final List<String> lines = new ArrayList<>();

    @Test
    void testTheLineNamesEachPhaseInOrderWithItsNodeEpochDurationAndOutcome() {
        ProducerBatch batch = batchOf(2);
        BatchTimeline timeline = batch.timeline();
        timeline.sent(1, 5, 1_001);
        timeline.answered("NOT_LEADER_OR_FOLLOWER", 1_013);
        timeline.waiting(BatchPhase.BEHIND_IN_FLIGHT, BatchTimeline.NO_NODE, 1_013);
        timeline.waiting(BatchPhase.METADATA, BatchTimeline.NO_NODE, 1_016);
        timeline.waiting(BatchPhase.CONNECTING, 2, 1_296);
        timeline.sent(2, 6, 1_336);
        timeline.answered("NONE", 1_345);

        new SlowBatchLog(100, lines::add).ended(batch, 1_345);

        assertThat(lines).containsExactly("Slow batch orders-3 (2 records) took 345 ms: queued 1 ms, in-flight node 1 epoch 5 12 ms "
                + "NOT_LEADER_OR_FOLLOWER, behind-in-flight 3 ms, metadata 280 ms, connecting node 2 40 ms, "
                + "in-flight node 2 epoch 6 9 ms NONE");
        SlowBatchLines.assertPhasesAddUpToTheTotal(lines.get(0));
    }

    @Test
    void testABatchThatEndsWhileWaitingShowsThatWaitLast() {
        ProducerBatch batch = batchOf(1);
        batch.timeline().waiting(BatchPhase.METADATA, BatchTimeline.NO_NODE, 1_010);

        new SlowBatchLog(0, lines::add).ended(batch, 121_000);

        assertThat(lines).containsExactly("Slow batch orders-3 (1 records) took 120000 ms: queued 10 ms, metadata 119990 ms");
    }

    @Test
    void testNothingIsLoggedWhenTheLogIsOff() {
        new SlowBatchLog(SlowBatchLog.OFF, lines::add).ended(batchOf(1), CREATED_MS + 60_000);

        assertThat(lines).isEmpty();
    }

    @Test
    void testABatchThatTookNoLongerThanTheThresholdIsNotLogged() {
        SlowBatchLog log = new SlowBatchLog(50, lines::add);

        log.ended(batchOf(1), CREATED_MS + 50);
        log.ended(batchOf(1), CREATED_MS + 51);

        assertThat(lines).containsExactly("Slow batch orders-3 (1 records) took 51 ms: queued 51 ms");
    }

    @Test
    void testAThresholdOfZeroLogsEveryBatchEvenOneThatTookNoTime() {
        new SlowBatchLog(0, lines::add).ended(batchOf(1), CREATED_MS);

        assertThat(lines).containsExactly("Slow batch orders-3 (1 records) took 0 ms:");
    }

    private static ProducerBatch batchOf(int records) {
        ProducerBatch batch = new ProducerBatch(PARTITION, Compression.NONE, 1024, CREATED_MS);
        for (int i = 0; i < records; i++) {
            batch.tryAppend(CREATED_MS, null, ("r" + i).getBytes(UTF_8), new Header[0], null);
        }
        return batch;
    }

    @Test
    void testTheLogIsOnAtAnyThresholdButOff() {
        assertThat(new SlowBatchLog(0, lines::add).isOn()).isTrue();
        assertThat(new SlowBatchLog(SlowBatchLog.OFF, lines::add).isOn()).isFalse();
    }
}
