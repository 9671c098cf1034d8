package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ClusterPausesTest {

    @Test
    void collectorsThatWorkWhileTheJvmRunsAreNotPauses() {
        assertThat(ClusterPauses.stopsTheWorld("G1 Young Generation")).isTrue();
        assertThat(ClusterPauses.stopsTheWorld("G1 Old Generation")).isTrue();
        assertThat(ClusterPauses.stopsTheWorld("G1 Concurrent GC")).isFalse();
        assertThat(ClusterPauses.stopsTheWorld("ZGC Major Cycles")).isFalse();
        assertThat(ClusterPauses.stopsTheWorld("Shenandoah Cycles")).isFalse();
    }

    @Test
    void aCollectionWhileAttachedIsKeptAsAnIntervalInEpochMicroseconds() {
        long beforeMicros = System.currentTimeMillis() * 1000;
        try (ClusterPauses pauses = ClusterPauses.attach()) {
            System.gc();
            // The JVM tells of a collection from a thread of its own, after it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pauses.pauses().isEmpty() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(pauses.pauses()).isNotEmpty().allSatisfy(pause -> {
                assertThat(pause[1]).isGreaterThanOrEqualTo(pause[0]);
                // The JVM's start time is its wall clock in milliseconds: allow that much.
                assertThat(pause[0]).isGreaterThanOrEqualTo(beforeMicros - 1000);
            });
        }
    }
}
