package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class StickyPartitionerTest {

    private static final IntPredicate ALL_LED = index -> true;
    private static final IntPredicate FITS = index -> false;
    private static final IntPredicate STARTS_A_BATCH = index -> true;
    /** No partition led in the producer's rack: {@code partitioner.rack.aware} off, or no leader there. */
    private static final IntPredicate NO_RACK = index -> false;

    @Test
    void testKnownKeyLandsWhereKafkaPutsIt() {
        byte[] key = "customer-42".getBytes(StandardCharsets.UTF_8);

        assertThat(StickyPartitioner.partitionForKey(key, 100)).isEqualTo(BuiltInPartitioner.partitionForKey(key, 100));
    }

    @Test
    void testAStintBelowBatchSizeKeepsItsPartitionEvenForARecordThatStartsABatch() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(3, 7));

        StickyPartitioner.Stint first = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, STARTS_A_BATCH);
        partitioner.appended("orders", first, 999, false);

        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, STARTS_A_BATCH).partition()).isEqualTo(3);
    }

    @Test
    void testAStintPastBatchSizeKeepsItsPartitionWhileRecordsFitItsOpenBatch() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(3, 7));

        StickyPartitioner.Stint stint = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, STARTS_A_BATCH);
        partitioner.appended("orders", stint, 1200, false);

        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS).partition()).isEqualTo(3);
    }

    @Test
    void testAStintPastBatchSizeEndsAtTheFirstRecordThatWouldStartABatch() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(3, 7));

        StickyPartitioner.Stint stint = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS);
        partitioner.appended("orders", stint, 1200, false);

        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, index -> index == 3).partition()).isEqualTo(7);
    }

    @Test
    void testAStintEndsOnceBatchSizeIsReachedAndItsBatchIsFull() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(3, 7));

        StickyPartitioner.Stint stint = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS);
        partitioner.appended("orders", stint, 1000, true);

        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS).partition()).isEqualTo(7);
    }

    @Test
    void testAStintEndsAtTwiceBatchSizeWhateverItsBatches() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(3, 7));

        StickyPartitioner.Stint stint = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS);
        partitioner.appended("orders", stint, 1999, false);
        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS).partition()).isEqualTo(3);
        partitioner.appended("orders", stint, 1, false);

        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS).partition()).isEqualTo(7);
    }

    @Test
    void testARecordCountedToAStintAnotherThreadEndedEndsNoOtherStint() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(3, 7));
        StickyPartitioner.Stint ended = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS);
        partitioner.appended("orders", ended, 1000, true);
        StickyPartitioner.Stint next = partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS);

        partitioner.appended("orders", ended, 1000, true);

        assertThat(partitioner.stintForUnkeyed("orders", 10, ALL_LED, NO_RACK, FITS)).isSameAs(next);
    }

    @Test
    void testUnkeyedRecordsAvoidPartitionsWithoutLeader() {
        List<Integer> bounds = new ArrayList<>();
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> {
            bounds.add(bound);
            return bound - 1;
        });

        int partition = partitioner.stintForUnkeyed("orders", 4, index -> index != 3, NO_RACK, FITS).partition();

        assertThat(bounds).containsExactly(3);
        assertThat(partition).isEqualTo(2);
    }

    @Test
    void testUnkeyedRecordsUseAnyPartitionWhenNoneHasALeader() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> bound - 1);

        assertThat(partitioner.stintForUnkeyed("orders", 4, index -> false, NO_RACK, FITS).partition()).isEqualTo(3);
    }

    @Test
    void testANewStintTakesAPartitionLedInTheProducersRack() {
        List<Integer> bounds = new ArrayList<>();
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> {
            bounds.add(bound);
            return bound - 1;
        });

        int partition = partitioner.stintForUnkeyed("orders", 6, ALL_LED, index -> index == 1 || index == 4, FITS).partition();

        assertThat(bounds).as("drawn among the partitions led in the rack").containsExactly(2);
        assertThat(partition).isEqualTo(4);
    }

    @Test
    void testAPartitionLedInTheRackButWithoutAKnownLeaderIsNotTaken() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, bound -> bound - 1);

        assertThat(partitioner.stintForUnkeyed("orders", 4, index -> index != 3, index -> index == 3, FITS).partition())
                .as("none led in the rack: any partition with a leader").isEqualTo(2);
    }

    @Test
    void testStickyPartitionBeyondAShrunkCountIsReplaced() {
        StickyPartitioner partitioner = new StickyPartitioner(1000, draws(5, 1));
        partitioner.stintForUnkeyed("orders", 6, ALL_LED, NO_RACK, FITS);

        assertThat(partitioner.stintForUnkeyed("orders", 3, ALL_LED, NO_RACK, FITS).partition()).isEqualTo(1);
    }

    /** A random source that gives {@code values} in turn. */
    private static IntUnaryOperator draws(Integer... values) {
        List<Integer> draws = new ArrayList<>(List.of(values));
        return bound -> draws.remove(0);
    }
}
