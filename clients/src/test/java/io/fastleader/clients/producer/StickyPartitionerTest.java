package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
        StickyPartitioner partitioner = new StickyPartitioner(1000, lastBelow(bounds));

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
        StickyPartitioner partitioner = new StickyPartitioner(1000, lastBelow(bounds));

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

    @Test
    void testAnAdaptiveDrawWeighsEachPartitionByTheLongestQueuePlusOneLessItsOwn() {
        int[] lengths = {5, 0, 3, 0, 1};
        AtomicInteger next = new AtomicInteger();
        // Every value of the draw once, in turn: each partition comes up as often as its weight.
        StickyPartitioner partitioner = new StickyPartitioner(1, bound -> next.getAndIncrement() % bound, loads(lengths, index -> true));
        int[] drawn = new int[lengths.length];

        for (int draw = 0; draw < 2 * 21; draw++) {
            drawn[newStint(partitioner, lengths.length, ALL_LED, NO_RACK)]++;
        }

        assertThat(drawn).containsExactly(2, 12, 6, 12, 10);
    }

    @Test
    void testTheDrawIsUniformUntilEveryPartitionHasHadABatch() {
        List<Integer> bounds = new ArrayList<>();
        StickyPartitioner partitioner = new StickyPartitioner(1, lastBelow(bounds), loads(new int[] {4, 0, -1}, index -> true));

        assertThat(newStint(partitioner, 3, ALL_LED, NO_RACK)).isEqualTo(2);
        assertThat(bounds).as("one draw among the three partitions, unweighted").containsExactly(3);
    }

    @Test
    void testAPartitionWhoseLeaderIsUnavailableIsNotDrawn() {
        List<Integer> drawn = new ArrayList<>();
        StickyPartitioner partitioner = new StickyPartitioner(1, bound -> 0, loads(new int[] {0, 0, 0}, index -> index != 0));

        for (int draw = 0; draw < 3; draw++) {
            drawn.add(newStint(partitioner, 3, ALL_LED, NO_RACK));
        }

        assertThat(drawn).containsOnly(1);
    }

    @Test
    void testWithEveryLeaderUnavailableTheDrawIsAmongThePartitionsWithALeader() {
        StickyPartitioner partitioner = new StickyPartitioner(1, bound -> bound - 1, loads(new int[] {0, 0, 0}, index -> false));

        assertThat(newStint(partitioner, 3, index -> index != 2, NO_RACK)).isEqualTo(1);
    }

    @Test
    void testAnAdaptiveDrawPrefersThePartitionsLedInTheRack() {
        List<Integer> bounds = new ArrayList<>();
        StickyPartitioner partitioner = new StickyPartitioner(1, lastBelow(bounds), loads(new int[] {0, 2, 0, 1}, index -> true));

        assertThat(newStint(partitioner, 4, ALL_LED, index -> index == 1 || index == 3)).isEqualTo(3);
        assertThat(bounds).as("weights 2 and 1: the longest of the rack's queues plus one, less each").containsExactly(3);
    }

    /** The partition of a new stint of topic "orders", the last one having ended. */
    private static int newStint(StickyPartitioner partitioner, int partitions, IntPredicate hasLeader, IntPredicate inRack) {
        StickyPartitioner.Stint stint = partitioner.stintForUnkeyed("orders", partitions, hasLeader, inRack, STARTS_A_BATCH);
        partitioner.appended("orders", stint, 1, true);
        return stint.partition();
    }

    /** Queue lengths by partition (-1: no queue yet) and whose leaders are available. */
    private static StickyPartitioner.PartitionLoads loads(int[] lengths, IntPredicate available) {
        return new StickyPartitioner.PartitionLoads() {
            @Override
            public int queueLength(String topic, int partition) {
                return lengths[partition];
            }

            @Override
            public boolean leaderAvailable(String topic, int partition) {
                return available.test(partition);
            }
        };
    }

    /** A random source that notes each bound it is asked to draw below, and draws the highest value below it. */
    private static IntUnaryOperator lastBelow(List<Integer> bounds) {
        return bound -> {
            bounds.add(bound);
            return bound - 1;
        };
    }

    /** A random source that gives {@code values} in turn. */
    private static IntUnaryOperator draws(Integer... values) {
        List<Integer> draws = new ArrayList<>(List.of(values));
        return bound -> draws.remove(0);
    }
}
