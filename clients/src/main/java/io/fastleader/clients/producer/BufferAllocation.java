package io.fastleader.clients.producer;

import java.util.Locale;

/** {@code buffer.memory.allocation.strategy} (kafka-clients 4.4): how a batch takes its bytes of {@code buffer.memory}. */
public enum BufferAllocation {
    /**
     * A whole {@code batch.size} as the batch is made, whatever it comes to hold: the default, and
     * what every release before 4.4 does. Memory in use scales with the partitions being written.
     */
    FULL,
    /**
     * A first piece of {@link #FIRST_PIECE_BYTES} as the batch is made, and more as records need it,
     * up to {@code batch.size}: memory in use scales with the bytes buffered, so a large
     * {@code batch.size} does not reserve itself for every partition written to.
     */
    INCREMENTAL;

    /** What an {@link #INCREMENTAL} batch starts with: kafka-clients 4.4's chunk. */
    public static final int FIRST_PIECE_BYTES = 16_384;

    /**
     * The memory a new batch takes: all of its {@code writeLimit}, or under {@link #INCREMENTAL} a
     * first piece, or its first record's {@code recordBytes} when more.
     */
    int newBatchBytes(int writeLimit, int recordBytes) {
        return this == INCREMENTAL ? Math.min(writeLimit, Math.max(recordBytes, FIRST_PIECE_BYTES)) : writeLimit;
    }

    /** The size of the buffers kept for the next batches once given back: what a new batch of {@code batch.size} takes. */
    int keptBufferBytes(int batchSize) {
        return this == INCREMENTAL ? Math.min(batchSize, FIRST_PIECE_BYTES) : batchSize;
    }

    /** The value of {@code buffer.memory.allocation.strategy} as kafka-clients' definition has validated it (either case). */
    static BufferAllocation of(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
