package io.fastleader.benchmarks.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.Latency;

class TimedSamplesTest {

    @Test
    void testAWindowHoldsTheLatenciesThatBelongToItBoundsIncluded() {
        TimedSamples samples = new TimedSamples();
        for (int i = 0; i < 10_000; i++) {
            samples.add(i, 1_000);
        }
        samples.add(20_000, 9_000_000);

        Latency window = samples.latency(100, 199);
        assertThat(window.records()).isEqualTo(100);
        assertThat(window.max()).isEqualTo(1.0);
        assertThat(samples.latency(0, 20_000).records()).isEqualTo(10_001);
        assertThat(samples.latency(0, 20_000).max()).isGreaterThan(8_990);
    }
}
