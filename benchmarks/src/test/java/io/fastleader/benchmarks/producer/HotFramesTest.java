package io.fastleader.benchmarks.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class HotFramesTest {

    @Test
    void selfCountsTheTopFrameAndTotalEveryMethodOnTheStack() {
        HotFrames hot = HotFrames.count(List.of(List.of("a", "b", "c"), List.of("a", "b"), List.of("d", "a")));

        assertThat(hot.samples()).isEqualTo(3);
        assertThat(hot.self()).isEqualTo(Map.of("a", 2, "d", 1));
        assertThat(hot.total()).isEqualTo(Map.of("a", 3, "b", 2, "c", 1, "d", 1));
    }

    @Test
    void aMethodOnAStackTwiceCountsOnceInTotal() {
        assertThat(HotFrames.count(List.of(List.of("a", "b", "a"))).total()).isEqualTo(Map.of("a", 1, "b", 1));
    }

    @Test
    void aSampleWithoutJavaFramesIsNotCounted() {
        assertThat(HotFrames.count(List.of(List.of(), List.of("a"))).samples()).isEqualTo(1);
    }

    @Test
    void theTopListIsMostSamplesFirstTiesByName() {
        assertThat(HotFrames.top(Map.of("b", 2, "a", 2, "c", 5, "d", 1), 3))
            .containsExactly(Map.entry("c", 5), Map.entry("a", 2), Map.entry("b", 2));
    }
}
