package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code buffer.memory.allocation.strategy=incremental}: a batch takes {@code buffer.memory} as
 * records need it rather than a whole {@code batch.size} as it is made, and writes the same
 * batches as one that took it all.
 */
class IncrementalBufferAllocationTest {

    private static final int BATCH_SIZE = 256 * 1024;
    private static final int BUFFER_MEMORY = 1024 * 1024;
    private static final int VALUE_BYTES = 1000;
    private static final Header[] NO_HEADERS = new Header[0];
    private static final long NO_BLOCK = 0;

    private final Metrics metrics = new Metrics();

    /** An accumulator whose memory {@link #availableBytes} reads. */
    private RecordAccumulator accumulator(BufferAllocation allocation, int bufferMemory, Compression compression) {
        return accumulator(allocation, bufferMemory, compression, metrics);
    }

    private static RecordAccumulator accumulator(BufferAllocation allocation, int bufferMemory, Compression compression,
                                                 Metrics metrics) {
        return new RecordAccumulator(new AccumulatorConfig(BATCH_SIZE, 10, bufferMemory, compression, 120_000, 8 * BATCH_SIZE,
                allocation), new ProducerMetrics(metrics), partition -> -1, false);
    }

    private static TopicPartition partition(int index) {
        return new TopicPartition("orders", index);
    }

    private static byte[] value(int index) {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) index);
        return value;
    }

    private static AppendResult append(RecordAccumulator accumulator, TopicPartition partition, int index, long maxBlockMs)
            throws InterruptedException {
        return accumulator.append(partition, index, null, value(index), NO_HEADERS, null, maxBlockMs, () -> 0);
    }

    private double availableBytes() {
        return (double) metrics.metric(metrics.metricName("buffer-available-bytes", ProducerMetrics.KAFKA_GROUP)).metricValue();
    }

    /** Appends to partition 0 until a record starts a second batch; returns how many the first took. */
    private static int fillFirstBatch(RecordAccumulator accumulator) throws InterruptedException {
        append(accumulator, partition(0), 0, NO_BLOCK);
        int records = 1;
        while (!append(accumulator, partition(0), records, NO_BLOCK).newBatchCreated()) {
            records++;
        }
        return records;
    }

    private static ProducerBatch drain(RecordAccumulator accumulator, TopicPartition partition) {
        List<ProducerBatch> drained = accumulator.drain(List.of(partition), 8 * BATCH_SIZE, 0);
        assertThat(drained).hasSize(1);
        return drained.get(0);
    }

    @Test
    void testAFullBatchReservesAWholeBatchSizeForEachPartitionWritten() throws Exception {
        RecordAccumulator full = accumulator(BufferAllocation.FULL, BUFFER_MEMORY, Compression.NONE);
        for (int index = 0; index < BUFFER_MEMORY / BATCH_SIZE; index++) {
            append(full, partition(index), index, NO_BLOCK);
        }

        assertThatThrownBy(() -> append(full, partition(4), 4, NO_BLOCK)).isInstanceOf(BufferExhaustedException.class);
    }

    @Test
    void testAnIncrementalBatchTakesAFirstPieceOfMemoryAsItIsMade() throws Exception {
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, BUFFER_MEMORY, Compression.NONE);
        int partitions = BUFFER_MEMORY / BufferAllocation.FIRST_PIECE_BYTES;
        for (int index = 0; index < partitions; index++) {
            assertThat(append(incremental, partition(index), index, NO_BLOCK).newBatchCreated()).isTrue();
        }

        assertThat(availableBytes()).isZero();
        assertThatThrownBy(() -> append(incremental, partition(partitions), 0, NO_BLOCK)).isInstanceOf(BufferExhaustedException.class);
    }

    @Test
    void testAnIncrementalBatchTakesAsManyRecordsAsAFullOneAndWritesThemWhole() throws Exception {
        RecordAccumulator full = accumulator(BufferAllocation.FULL, BUFFER_MEMORY, Compression.NONE, new Metrics());
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, BUFFER_MEMORY, Compression.NONE);

        int records = fillFirstBatch(incremental);

        assertThat(records).isEqualTo(fillFirstBatch(full));
        ProducerBatch grown = drain(incremental, partition(0));
        assertThat(values(grown)).isEqualTo(values(drain(full, partition(0)))).isEqualTo(expectedValues(records));
        grown.records().batches().forEach(RecordBatch::ensureValid);
        assertThat(grown.reservedBytes()).isBetween(grown.records().sizeInBytes(), BATCH_SIZE);
    }

    @Test
    void testACompressedIncrementalBatchGrowsAndWritesItsRecordsWhole() throws Exception {
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, BUFFER_MEMORY, Compression.lz4().build());

        int records = fillFirstBatch(incremental);

        ProducerBatch grown = drain(incremental, partition(0));
        assertThat(values(grown)).containsExactlyElementsOf(expectedValues(records));
        grown.records().batches().forEach(RecordBatch::ensureValid);
        assertThat(grown.reservedBytes()).isGreaterThan(BufferAllocation.FIRST_PIECE_BYTES).isLessThanOrEqualTo(BATCH_SIZE);
    }

    @Test
    void testAGrowingBatchHoldsAtMostTwiceWhatItHasWritten() throws Exception {
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, BUFFER_MEMORY, Compression.NONE);
        for (int index = 0; index < 100; index++) {
            append(incremental, partition(0), index, NO_BLOCK);
        }

        ProducerBatch batch = drain(incremental, partition(0));

        assertThat(batch.reservedBytes()).isLessThanOrEqualTo(2 * batch.records().sizeInBytes());
        assertThat(availableBytes()).isEqualTo(BUFFER_MEMORY - batch.reservedBytes());
    }

    @Test
    void testAGrownBatchGivesAllItsMemoryBackWhenItEnds() throws Exception {
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, BUFFER_MEMORY, Compression.NONE);
        fillFirstBatch(incremental);
        ProducerBatch grown = drain(incremental, partition(0));
        double availableBefore = availableBytes();

        grown.complete(0, -1);

        assertThat(grown.reservedBytes()).isGreaterThan(BufferAllocation.FIRST_PIECE_BYTES);
        assertThat(availableBytes()).isEqualTo(availableBefore + grown.reservedBytes());
    }

    @Test
    void testABatchThatCannotGrowWithinMaxBlockRefusesTheRecordAndKeepsTheOnesItHas() throws Exception {
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, 2 * BufferAllocation.FIRST_PIECE_BYTES,
                Compression.NONE);
        append(incremental, partition(1), 0, NO_BLOCK);

        int appended = appendUntilRefused(incremental, 5);

        assertThat(appended).isPositive();
        ProducerBatch batch = drain(incremental, partition(0));
        assertThat(batch.recordCount()).isEqualTo(appended);
        assertThat(batch.reservedBytes()).isEqualTo(BufferAllocation.FIRST_PIECE_BYTES);
    }

    @Test
    @Timeout(30)
    void testABatchWaitingToGrowGrowsOnceAnotherBatchGivesItsMemoryBack() throws Exception {
        RecordAccumulator incremental = accumulator(BufferAllocation.INCREMENTAL, 2 * BufferAllocation.FIRST_PIECE_BYTES,
                Compression.NONE);
        append(incremental, partition(1), 0, NO_BLOCK);
        int appended = appendUntilRefused(incremental, NO_BLOCK);
        CompletableFuture<AppendResult> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return append(incremental, partition(0), appended, Long.MAX_VALUE);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // An appender waiting for memory makes every partition ready at once; the test's timeout bounds the spin.
        while (!incremental.ready(0).readyPartitions().contains(partition(1))) {
            Thread.onSpinWait();
        }

        drain(incremental, partition(1)).complete(0, -1);

        assertThat(waiting.get().newBatchCreated()).isFalse();
        ProducerBatch grown = drain(incremental, partition(0));
        assertThat(grown.recordCount()).isEqualTo(appended + 1);
        assertThat(grown.reservedBytes()).isEqualTo(2 * BufferAllocation.FIRST_PIECE_BYTES);
    }

    /** Appends to partition 0, each append waiting up to {@code maxBlockMs} for memory, until one is refused; returns how many were taken. */
    private static int appendUntilRefused(RecordAccumulator accumulator, long maxBlockMs) throws InterruptedException {
        int appended = 0;
        try {
            while (true) {
                append(accumulator, partition(0), appended, maxBlockMs);
                appended++;
            }
        } catch (BufferExhaustedException refused) {
            assertThat(refused).hasMessageContaining("max.block.ms (" + maxBlockMs + " ms)");
            return appended;
        }
    }

    /** Each record's value as {@link #describe} writes it. */
    private static List<String> values(ProducerBatch batch) {
        List<String> values = new ArrayList<>();
        for (Record record : batch.records().records()) {
            values.add(describe(Utils.toArray(record.value())));
        }
        return values;
    }

    /** The values of records 0 to {@code records} - 1, as {@link #describe} writes them. */
    private static List<String> expectedValues(int records) {
        List<String> values = new ArrayList<>();
        for (int index = 0; index < records; index++) {
            values.add(describe(value(index)));
        }
        return values;
    }

    /** A value written briefly: its length and, if every byte is the same, that byte; else its hash. */
    private static String describe(byte[] value) {
        for (byte b : value) {
            if (b != value[0]) {
                return value.length + " bytes, hash " + Arrays.hashCode(value);
            }
        }
        return value.length + " bytes of " + (value.length == 0 ? "nothing" : value[0]);
    }
}
