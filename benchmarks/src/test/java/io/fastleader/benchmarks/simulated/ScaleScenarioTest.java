package io.fastleader.benchmarks.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class ScaleScenarioTest {

    @Test
    void choosesTheGivenShareOfPartitionsSpreadEvenly() {
        assertThat(LongStream.range(0, 20).filter(i -> ScaleScenario.chosen(i, 25)).toArray()).containsExactly(3, 7, 11, 15, 19);
    }

    @Test
    void choosesEveryPartitionAtAHundredPercent() {
        assertThat(LongStream.range(0, 1000).filter(i -> ScaleScenario.chosen(i, 100)).count()).isEqualTo(1000);
    }
}
