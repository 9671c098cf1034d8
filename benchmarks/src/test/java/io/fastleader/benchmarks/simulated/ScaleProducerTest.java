package io.fastleader.benchmarks.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ScaleProducerTest {

    @Test
    void listsPartitionsByTopicInTheOrderGiven() {
        List<TopicPartition> partitions = List.of(new TopicPartition("a", 2), new TopicPartition("a", 0), new TopicPartition("b", 5),
            new TopicPartition("a", 1));

        assertThat(ScaleProducer.listing(partitions)).isEqualTo("a:2,0;b:5;a:1");
    }
}
