package io.fastleader.clients.producer;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings the {@link RecordAccumulator} needs, named after the producer configs they come from.
 *
 * @param batchSize         {@code batch.size}: bytes a partition's batch may grow to before it is sent
 *                          (0 sends every record on its own)
 * @param lingerMs          {@code linger.ms}: how long a batch that is not full waits for more records
 * @param bufferMemory      {@code buffer.memory}: bytes all unsent and in-flight batches may hold together
 * @param compression       {@code compression.type} with its level ({@code compression.gzip.level}, ...)
 * @param deliveryTimeoutMs {@code delivery.timeout.ms}: from a batch's creation to its failure if still undelivered
 * @param maxRequestSize    {@code max.request.size}: the largest record, and so the largest batch, accepted
 * @param bufferAllocation  {@code buffer.memory.allocation.strategy}: whether a batch takes all its memory as it is made
 */
public record AccumulatorConfig(int batchSize, long lingerMs, long bufferMemory, Compression compression,
                                long deliveryTimeoutMs, int maxRequestSize, BufferAllocation bufferAllocation) {

    /** With {@link BufferAllocation#FULL}, every release's default. */
    public AccumulatorConfig(int batchSize, long lingerMs, long bufferMemory, Compression compression, long deliveryTimeoutMs,
                             int maxRequestSize) {
        this(batchSize, lingerMs, bufferMemory, compression, deliveryTimeoutMs, maxRequestSize, BufferAllocation.FULL);
    }

    /** Kafka's defaults: 16 KiB batches, 5 ms linger, 32 MiB of buffer, no compression, 2 min delivery, 1 MiB requests. */
    public static AccumulatorConfig defaults() {
        return new AccumulatorConfig(16_384, 5, 32L * 1024 * 1024, Compression.NONE, 120_000, 1_048_576);
    }

    /** @throws ConfigException naming the key, the value and what is allowed, for a negative size or time */
    public AccumulatorConfig {
        requireNotNegative("batch.size", batchSize);
        requireNotNegative("linger.ms", lingerMs);
        requireNotNegative("buffer.memory", bufferMemory);
        requireNotNegative("delivery.timeout.ms", deliveryTimeoutMs);
        requireNotNegative("max.request.size", maxRequestSize);
        if (compression == null) {
            throw new ConfigException("compression.type", null, "must be one of none, gzip, snappy, lz4, zstd");
        }
        if (bufferAllocation == null) {
            throw new ConfigException("buffer.memory.allocation.strategy", null, "must be one of full, incremental");
        }
    }

    private static void requireNotNegative(String key, long value) {
        if (value < 0) {
            throw new ConfigException(key, value, "must be at least 0");
        }
    }
}
