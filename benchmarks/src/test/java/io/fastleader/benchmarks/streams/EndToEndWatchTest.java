package io.fastleader.benchmarks.streams;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EndToEndWatchTest {

    @Test
    void testLatencyRunsFromTheInputsSendTimeToTheUpdatesArrival() {
        EndToEndWatch watch = new EndToEndWatch(1, 0);
        watch.beginPhase(1_000);

        watch.counted(0, 1_000, 1_020);
        watch.counted(0, 1_010, 1_040);
        watch.counted(0, 1_020, 1_520);

        EndToEndWatch.Figures figures = watch.endPhase(1_600);
        assertThat(figures.updates()).isEqualTo(3);
        assertThat(figures.p50Ms()).isEqualTo(30);
        assertThat(figures.maxMs()).isEqualTo(500);
        assertThat(figures.durationMs()).isEqualTo(600);
    }

    @Test
    void testTheLongestGapCountsFromThePhasesStartAndToItsEndInEveryPartition() {
        EndToEndWatch watch = new EndToEndWatch(2, 0);
        watch.beginPhase(1_000);

        watch.counted(0, 1_000, 1_100);
        watch.counted(0, 1_500, 1_600);
        watch.counted(1, 1_000, 1_050);
        watch.counted(1, 1_700, 1_800);

        assertThat(watch.endPhase(1_850).longestGapMs()).as("partition 1, 1050 to 1800").isEqualTo(750);

        watch.counted(0, 1_900, 1_950);
        assertThat(watch.endPhase(3_000).longestGapMs()).as("partition 1 had no update since the phase began at 1850")
            .isEqualTo(1_150);
    }

    @Test
    void testBeginPhaseForgetsWhatCameBefore() {
        EndToEndWatch watch = new EndToEndWatch(1, 0);
        watch.counted(0, 0, 9_000);
        watch.fed(5_000);

        watch.beginPhase(10_000);
        watch.counted(0, 10_000, 10_010);

        EndToEndWatch.Figures figures = watch.endPhase(10_020);
        assertThat(figures.maxMs()).isEqualTo(10);
        assertThat(figures.longestGapMs()).isEqualTo(10);
        assertThat(figures.feedMaxMs()).isZero();
    }

    @Test
    void testFreshEverywhereOnlyOnceEveryPartitionHadAnUpdateAtMostASecondOld() {
        EndToEndWatch watch = new EndToEndWatch(2, 0);

        watch.counted(0, 5_000, 5_100);
        watch.counted(1, 3_000, 5_200);
        assertThat(watch.freshEverywhereSince(5_000)).as("partition 1's update was 2.2 s old").isFalse();

        watch.counted(1, 5_300, 5_400);
        assertThat(watch.freshEverywhereSince(5_000)).isTrue();
        assertThat(watch.freshEverywhereSince(5_150)).as("partition 0's last fresh update came at 5100").isFalse();
    }

    @Test
    void testFeedLatency() {
        EndToEndWatch watch = new EndToEndWatch(1, 0);
        for (int i = 1; i <= 100; i++) {
            watch.fed(i);
        }
        EndToEndWatch.Figures figures = watch.endPhase(1);
        assertThat(figures.feedP99Ms()).isEqualTo(99);
        assertThat(figures.feedMaxMs()).isEqualTo(100);
    }
}
