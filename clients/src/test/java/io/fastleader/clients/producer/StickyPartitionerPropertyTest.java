package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class StickyPartitionerPropertyTest {

    @Property(tries = 2000)
    void testKeyLandsOnTheSamePartitionAsWithKafkaProducer(@ForAll byte[] key, @ForAll @IntRange(min = 1, max = 10_000) int partitions) {
        assertThat(StickyPartitioner.partitionForKey(key, partitions))
                .isEqualTo(BuiltInPartitioner.partitionForKey(key, partitions));
    }
}
