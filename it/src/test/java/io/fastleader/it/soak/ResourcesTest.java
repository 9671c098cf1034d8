package io.fastleader.it.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ResourcesTest {

    @Test
    void aThreadReplacedByOneOfTheSameKindIsNoGrowth() {
        Resources before = new Resources(List.of("delay-link-33073-76-up-read", "process reaper (pid 30011)"), 0, 0);
        Resources after = new Resources(List.of("delay-link-33073-199-up-read", "process reaper (pid 31318)"), 0, 0);

        assertThat(after.threadGrowth(before)).isEmpty();
    }

    @Test
    void growthIsCountedPerKindOfThread() {
        Resources before = new Resources(List.of("delay-link-1-2-up-read", "main"), 0, 0);
        Resources after = new Resources(List.of("delay-link-1-3-up-read", "delay-link-1-4-up-read", "delay-link-5-6-up-read",
            "kafka-producer-network-thread | producer-7"), 0, 0);

        assertThat(after.threadGrowth(before)).isEqualTo(Map.of(
            "delay-link-#-#-up-read", 2L,
            "kafka-producer-network-thread | producer-#", 1L));
    }
}
