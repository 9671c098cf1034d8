package io.fastleader.benchmarks.producer;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.producer.ProducerBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a producer does with a record between the partitioner and the network, for a whole batch:
 * fastleader's {@link ProducerBatch} (records written by its own writer) next to kafka-clients
 * 4.3.1's {@code ProducerBatch} (records written by {@code MemoryRecordsBuilder}). Each op fills a
 * new {@code batch.size} (16 KiB) batch with unkeyed records until one no longer fits, then closes
 * it into its request bytes. Both take the same records per batch: the room check is the same.
 * Values are random bytes, taken in turn from 1,024, as the steady benchmark sends them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Threads(1)
public class BatchAppendBenchmark {

    private static final int BATCH_BYTES = 16_384;
    private static final int VALUES = 1_024;
    private static final TopicPartition PARTITION = new TopicPartition("steady", 0);
    private static final Header[] NO_HEADERS = new Header[0];

    @Param({"100", "1024"})
    public int recordBytes;

    @Param({"none", "lz4"})
    public String codec;

    private Compression compression;
    private byte[][] values;
    private int next;

    @Setup
    public void setUp() {
        compression = Compression.of(CompressionType.forName(codec)).build();
        Random random = new Random(42);
        values = new byte[VALUES][recordBytes];
        for (byte[] value : values) {
            random.nextBytes(value);
        }
    }

    @Benchmark
    public MemoryRecords fastleader() {
        ProducerBatch batch = new ProducerBatch(PARTITION, compression, BATCH_BYTES, 0L);
        long timestamp = System.currentTimeMillis();
        while (batch.tryAppend(timestamp, null, nextValue(), NO_HEADERS, null) != null) {
            timestamp++;
        }
        return batch.records();
    }

    @Benchmark
    public MemoryRecords kafkaClients() {
        org.apache.kafka.clients.producer.internals.ProducerBatch batch = new org.apache.kafka.clients.producer.internals.ProducerBatch(
                PARTITION, MemoryRecords.builder(ByteBuffer.allocate(BATCH_BYTES), compression, TimestampType.CREATE_TIME, 0L), 0L);
        long timestamp = System.currentTimeMillis();
        while (batch.tryAppend(timestamp, null, nextValue(), NO_HEADERS, null, timestamp) != null) {
            timestamp++;
        }
        batch.close();
        return batch.records();
    }

    private byte[] nextValue() {
        next = (next + 1) % VALUES;
        return values[next];
    }
}
