package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The writer against kafka-clients' {@code MemoryRecordsBuilder}, which it stands in for on the producer's path. */
class RecordBatchWriterTest {

    private static final long NOW_MS = 1_765_000_000_000L;

    @Property(tries = 300)
    void testWritesTheBytesMemoryRecordsBuilderWrites(@ForAll("records") List<TestRecord> records,
                                                       @ForAll @IntRange(min = 64, max = 20_000) int capacity) {
        assertSameBatches(records, capacity, Compression.NONE);
    }

    @Property(tries = 60)
    void testWritesTheBytesMemoryRecordsBuilderWritesWithEveryCodec(@ForAll("records") List<TestRecord> records,
                                                                    @ForAll("codecs") CompressionType codec) {
        assertSameBatches(records, 16_384, Compression.of(codec).build());
    }

    @Property(tries = 200)
    void testTakesARecordExactlyWhenMemoryRecordsBuilderHasRoomForIt(@ForAll("records") List<TestRecord> records,
                                                                      @ForAll @IntRange(min = 64, max = 4_000) int capacity,
                                                                      @ForAll("codecs") CompressionType codec) {
        Compression compression = Compression.of(codec).build();
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(capacity), compression);
        MemoryRecordsBuilder builder = builder(capacity, compression);
        for (TestRecord record : records) {
            boolean builderHasRoom = builder.hasRoomFor(record.timestampMs, record.key, record.value, record.headers);
            assertThat(writer.hasRoomFor(record.timestampMs, record.key, record.value, record.headers)).isEqualTo(builderHasRoom);
            assertThat(writer.tryAppend(record.timestampMs, record.key, record.value, record.headers) == RecordBatchWriter.APPENDED)
                    .isEqualTo(builderHasRoom);
            if (builderHasRoom) {
                builder.append(record.timestampMs, record.key, record.value, record.headers);
            }
            assertThat(writer.isFull()).isEqualTo(builder.isFull());
            assertThat(writer.estimatedSizeBytes()).isEqualTo(builder.estimatedSizeInBytes());
            assertThat(writer.recordCount()).isEqualTo(builder.numRecords());
        }
    }

    @Property(tries = 200)
    void testEstimatesItsLargestRecordAsKafkaClientsDoes(@ForAll("records") List<TestRecord> records) {
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(1 << 20), Compression.NONE);
        int largest = 0;
        for (TestRecord record : records) {
            writer.append(record.timestampMs, record.key, record.value, record.headers);
            largest = Math.max(largest, AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE,
                    CompressionType.NONE, record.key, record.value, record.headers));
        }
        assertThat(writer.largestRecordEstimate()).isEqualTo(largest);
    }

    @Test
    void testTakesAFirstRecordLargerThanItsBufferByGrowingIt() {
        byte[] value = new byte[1_000];
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(100), Compression.NONE);

        assertThat(writer.tryAppend(NOW_MS, null, value, new Header[0])).isEqualTo(RecordBatchWriter.APPENDED);

        assertThat(writer.isFull()).isTrue();
        Record record = writer.build().records().iterator().next();
        assertThat(record.valueSize()).isEqualTo(value.length);
    }

    @Test
    void testWritesTheHeaderAgainWhenTheProducerStateChangesAfterABuild() {
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(1_024), Compression.NONE);
        writer.tryAppend(NOW_MS, null, "v".getBytes(StandardCharsets.UTF_8), new Header[0]);
        writer.setProducerState(7L, (short) 1, 10, false);
        writer.build();

        writer.setProducerState(7L, (short) 2, 0, true);
        MutableRecordBatch batch = writer.build().batches().iterator().next();

        assertThat(batch.producerEpoch()).isEqualTo((short) 2);
        assertThat(batch.baseSequence()).isZero();
        assertThat(batch.isTransactional()).isTrue();
        batch.ensureValid();
    }

    @Test
    void testTakesNoRecordOnceClosedForAppends() {
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(1_024), Compression.lz4().build());
        writer.tryAppend(NOW_MS, null, new byte[10], new Header[0]);

        writer.closeForAppends();

        assertThat(writer.isFull()).isTrue();
        assertThat(writer.tryAppend(NOW_MS, null, new byte[10], new Header[0])).isEqualTo(RecordBatchWriter.NO_ROOM);
        assertThatThrownBy(() -> writer.append(NOW_MS, null, new byte[10], new Header[0]))
                .isInstanceOf(IllegalStateException.class);
        assertThat(writer.build().records()).hasSize(1);
    }

    @Test
    void testRefusesANullHeaderKeyAsKafkaClientsDoes() {
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(1_024), Compression.NONE);
        Header nullKey = new Header() {
            @Override
            public String key() {
                return null;
            }

            @Override
            public byte[] value() {
                return null;
            }
        };

        assertThatThrownBy(() -> writer.tryAppend(NOW_MS, null, null, new Header[] {nullKey}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid null header key found in headers");
        assertThat(writer.recordCount()).isZero();
    }

    /** Appends as a producer does (while there is room), then compares the two batches byte for byte. */
    private static void assertSameBatches(List<TestRecord> records, int capacity, Compression compression) {
        RecordBatchWriter writer = new RecordBatchWriter(ByteBuffer.allocate(capacity), compression);
        MemoryRecordsBuilder builder = builder(capacity, compression);
        for (TestRecord record : records) {
            if (writer.tryAppend(record.timestampMs, record.key, record.value, record.headers) != RecordBatchWriter.APPENDED) {
                break;
            }
            builder.append(record.timestampMs, record.key, record.value, record.headers);
        }
        writer.setProducerState(42L, (short) 3, 1_000, false);
        builder.setProducerState(42L, (short) 3, 1_000, false);

        MemoryRecords written = writer.build();
        MemoryRecords expected = builder.build();

        assertThat(written.buffer()).isEqualTo(expected.buffer());
        assertThat((double) writer.compressionRatio()).isEqualTo(builder.compressionRatio());
        assertThat(writer.estimatedSizeBytes()).isEqualTo(builder.estimatedSizeInBytes());
        written.batches().forEach(MutableRecordBatch::ensureValid);
    }

    private static MemoryRecordsBuilder builder(int capacity, Compression compression) {
        return MemoryRecords.builder(ByteBuffer.allocate(capacity), compression, TimestampType.CREATE_TIME, 0L);
    }

    @Provide
    Arbitrary<CompressionType> codecs() {
        return Arbitraries.of(CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4,
                CompressionType.ZSTD);
    }

    @Provide
    Arbitrary<List<TestRecord>> records() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(300).injectNull(0.2);
        Arbitrary<Header> header = Combinators.combine(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20).injectNull(0.3))
                .as(RecordHeader::new);
        // Timestamps either side of the first record's, so deltas are negative as well as positive and span varint sizes.
        Arbitrary<Long> timestamp = Arbitraries.longs().between(-5_000_000L, 5_000_000L).map(offset -> NOW_MS + offset);
        Arbitrary<TestRecord> record = Combinators.combine(timestamp, bytes, bytes, header.array(Header[].class).ofMaxSize(3))
                .as(TestRecord::new);
        return record.list().ofMinSize(1).ofMaxSize(200).map(ArrayList::new);
    }

    private record TestRecord(long timestampMs, byte[] key, byte[] value, Header[] headers) {
    }
}
