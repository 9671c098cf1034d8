package io.fastleader.benchmarks.group;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecoveryWatchTest {

    @Test
    void testRecoversOnceEveryPartitionHandedOutARecordProducedAfterTheEvent() {
        RecoveryWatch watch = new RecoveryWatch(2);
        watch.eventAt(1_000);

        watch.consumed(0, 1_010, 1_020);
        watch.consumed(1, 999, 1_030);
        assertThat(watch.recoveryMs()).as("partition 1 only handed out a record from before the event").isEmpty();

        watch.consumed(1, 1_200, 1_450);
        assertThat(watch.recoveryMs()).hasValue(450);
    }

    @Test
    void testTheFirstRecordAfterTheEventCountsNotALaterOne() {
        RecoveryWatch watch = new RecoveryWatch(1);
        watch.eventAt(1_000);

        watch.consumed(0, 1_000, 1_100);
        watch.consumed(0, 1_050, 1_900);

        assertThat(watch.recoveryMs()).hasValue(100);
    }

    @Test
    void testANewEventStartsAfresh() {
        RecoveryWatch watch = new RecoveryWatch(1);
        watch.eventAt(1_000);
        watch.consumed(0, 1_000, 1_100);

        watch.eventAt(2_000);

        assertThat(watch.recoveryMs()).isEmpty();
    }

    @Test
    void testTheLongestGapSpansMembersAndStartsAfreshOnReset() {
        RecoveryWatch watch = new RecoveryWatch(2);
        watch.consumed(0, 0, 100);
        watch.consumed(0, 0, 400);
        watch.consumed(1, 0, 120);
        watch.consumed(1, 0, 200);
        assertThat(watch.longestGapMs()).isEqualTo(300);

        watch.resetGaps();
        watch.consumed(0, 0, 450);

        assertThat(watch.longestGapMs()).isEqualTo(50);
    }
}
