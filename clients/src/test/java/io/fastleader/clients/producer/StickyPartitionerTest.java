package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class StickyPartitionerTest {

    @Test
    void testKnownKeyLandsWhereKafkaPutsIt() {
        byte[] key = "customer-42".getBytes(StandardCharsets.UTF_8);

        assertThat(StickyPartitioner.partitionForKey(key, 100)).isEqualTo(BuiltInPartitioner.partitionForKey(key, 100));
    }

    @Test
    void testUnkeyedRecordsStickUntilBatchSizeBytes() {
        List<Integer> draws = new ArrayList<>(List.of(3, 7));
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> draws.remove(0));

        List<Integer> chosen = new ArrayList<>();
        for (int record = 0; record < 5; record++) {
            chosen.add(partitioner.partitionForUnkeyed("orders", 10, index -> true, 400));
        }

        assertThat(chosen).containsExactly(3, 3, 3, 7, 7);
    }

    @Test
    void testUnkeyedRecordsAvoidPartitionsWithoutLeader() {
        List<Integer> bounds = new ArrayList<>();
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> {
            bounds.add(bound);
            return bound - 1;
        });

        int partition = partitioner.partitionForUnkeyed("orders", 4, index -> index != 3, 10);

        assertThat(bounds).containsExactly(3);
        assertThat(partition).isEqualTo(2);
    }

    @Test
    void testUnkeyedRecordsUseAnyPartitionWhenNoneHasALeader() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> bound - 1);

        assertThat(partitioner.partitionForUnkeyed("orders", 4, index -> false, 10)).isEqualTo(3);
    }

    @Test
    void testStickyPartitionBeyondAShrunkCountIsReplaced() {
        List<Integer> draws = new ArrayList<>(List.of(5, 1));
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> draws.remove(0));
        partitioner.partitionForUnkeyed("orders", 6, index -> true, 10);

        assertThat(partitioner.partitionForUnkeyed("orders", 3, index -> true, 10)).isEqualTo(1);
    }
}
