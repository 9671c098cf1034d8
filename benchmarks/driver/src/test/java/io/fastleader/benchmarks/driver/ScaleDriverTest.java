package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ScaleDriverTest {

    @Test
    void readsAListingOfPartitionsInItsOrder() {
        assertThat(ScaleDriver.partitions("a:2,0;b:5;a:1")).containsExactly(new TopicPartition("a", 2), new TopicPartition("a", 0),
            new TopicPartition("b", 5), new TopicPartition("a", 1));
    }
}
