package io.fastleader.benchmarks.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The leader-move benchmark's rounds, at a small scale so the build stays short. */
class ProducingClusterTest {

    @Test
    void aRoundMovesEveryMovedPartitionAndEachClientsNextRecordLandsAtTheNewLeader() {
        try (ProducingCluster cluster = new ProducingCluster(4, 3, 2, 10, 4)) {
            for (int round = 0; round < 3; round++) {
                assertThat(cluster.move()).isEqualTo(20);
                assertThat(cluster.produceAndAwaitAppends()).hasSize(4).doesNotContain(0L);
                cluster.checkLedByNewLeaders();
            }
            assertThat(cluster.movedPartitions()).isEqualTo(20);
            assertThat(cluster.simulationThreadsCpuNanos()).isPositive();
        }
    }
}
