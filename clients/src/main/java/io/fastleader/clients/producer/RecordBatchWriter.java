package io.fastleader.clients.producer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * Writes one record batch of the v2 format (base offset 0, create time) into a heap buffer, as
 * kafka-clients' {@code MemoryRecordsBuilder} does for the producer, with the same room check, size
 * estimate and bytes.
 *
 * <p>It does less work per record. The builder writes each record field by field through a
 * {@code DataOutputStream} over a stream that checks for room at every byte, and works the
 * record's size out twice (once for the room check, once to write it). Here the size is worked out
 * once and the record is written with array stores in place, or, with compression, encoded whole
 * and handed to the codec's stream in one write.
 *
 * <p>The batch starts at index 0 of the buffer. The first record is always taken, as a batch must
 * hold one, and the buffer grows if it does not fit; later ones only while the estimate stays
 * within the batch's write limit ({@link #tryAppend}), and within the memory it holds: a batch
 * made with less memory than its write limit ({@code buffer.memory.allocation.strategy=incremental})
 * asks for more when a record would pass it, and is given it by {@link #grow}. Not thread-safe:
 * its batch serialises appends and hands it to the sender's thread once closed for appends.
 */
final class RecordBatchWriter {

    private static final int HEADER_BYTES = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
    /** kafka-clients' margin on the uncompressed size when it estimates a compressed batch's. */
    private static final float COMPRESSION_ESTIMATE_FACTOR = 1.05f;
    private static final int NULL_LENGTH = -1;
    private static final byte[][] NO_HEADER_KEYS = new byte[0][];
    /** {@link #tryAppend}: the record was written. */
    static final int APPENDED = 0;
    /** {@link #tryAppend}: the batch has no room for the record, and takes no more. */
    static final int NO_ROOM = -1;

    private final Compression compression;
    private final boolean compressed;
    /** Where the batch counts as full: {@code batch.size}, or the first record's size when larger. */
    private final int writeLimit;
    /** The bytes the batch's memory holds: its estimate stays within them, until {@link #grow} gives it more. */
    private int memoryLimit;
    /** Grows only for a first record larger than the buffer, or a batch written back from a split. */
    private ByteBuffer buffer;
    /** Uncompressed: where the next record goes. Compressed: the records' end, once closed for appends. */
    private int end = HEADER_BYTES;
    /** Compressed only: the codec's stream into {@link #compressedOut}, null once closed for appends. */
    private OutputStream codecStream;
    private ByteBufferOutputStream compressedOut;
    /** Compressed only: a record is encoded here, then written to the codec in one call. */
    private byte[] scratch;
    private boolean closedForAppends;
    private MemoryRecords built;

    private int recordCount;
    private int uncompressedRecordBytes;
    private int largestRecordEstimate;
    private long baseTimestamp = RecordBatch.NO_TIMESTAMP;
    private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private float compressionRatio = 1;

    private long producerId = RecordBatch.NO_PRODUCER_ID;
    private short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
    private int baseSequence = RecordBatch.NO_SEQUENCE;
    private boolean transactional;

    /** A writer whose batch holds its buffer's capacity of memory, and counts as full there. */
    RecordBatchWriter(ByteBuffer buffer, Compression compression) {
        this(buffer, compression, buffer.capacity());
    }

    /**
     * @param buffer     a heap buffer, cleared: the batch is written from its index 0, and holds as many
     *                   bytes of memory as its capacity
     * @param writeLimit where the batch counts as full: the buffer's capacity, or more for a batch
     *                   that grows its memory as records come
     */
    RecordBatchWriter(ByteBuffer buffer, Compression compression, int writeLimit) {
        if (!buffer.hasArray() || buffer.position() != 0) {
            throw new IllegalArgumentException("A record batch is written into a heap buffer from its start");
        }
        if (writeLimit < buffer.capacity()) {
            throw new IllegalArgumentException("A batch's write limit (" + writeLimit + ") is below its buffer's capacity ("
                    + buffer.capacity() + ")");
        }
        this.buffer = buffer;
        this.compression = compression;
        this.compressed = compression.type() != CompressionType.NONE;
        this.writeLimit = writeLimit;
        this.memoryLimit = buffer.capacity();
        if (compressed) {
            buffer.position(HEADER_BYTES);
            compressedOut = new ByteBufferOutputStream(buffer);
            codecStream = compression.wrapForOutput(compressedOut, RecordBatch.CURRENT_MAGIC_VALUE);
        }
    }

    /**
     * Whether the record would be taken by {@link #tryAppend} now: the batch is open for appends,
     * and it is empty or the record keeps its estimated size within the buffer's capacity.
     */
    boolean hasRoomFor(long timestampMs, byte[] key, byte[] value, Header[] headers) {
        if (isFull()) {
            return false;
        }
        if (recordCount == 0) {
            return true;
        }
        byte[][] headerKeys = headerKeys(headers);
        return fits(recordBytes(bodyBytes(timestampMs, fieldBytes(key, value, headers, headerKeys))));
    }

    /**
     * Appends the record if {@link #hasRoomFor} would say so and the batch's memory holds it,
     * working its size out once.
     *
     * @return {@link #APPENDED}; {@link #NO_ROOM}, writing nothing, when it does not fit; or, writing
     *         nothing, how many bytes of memory the batch lacks for it (see {@link #grow})
     */
    int tryAppend(long timestampMs, byte[] key, byte[] value, Header[] headers) {
        if (isFull()) {
            return NO_ROOM;
        }
        byte[][] headerKeys = headerKeys(headers);
        int fieldBytes = fieldBytes(key, value, headers, headerKeys);
        int bodyBytes = bodyBytes(timestampMs, fieldBytes);
        if (recordCount > 0) {
            int bytesAfter = estimatedBytesWritten() + recordBytes(bodyBytes);
            if (bytesAfter > writeLimit) {
                return NO_ROOM;
            }
            if (bytesAfter > memoryLimit) {
                return bytesAfter - memoryLimit;
            }
        }
        write(timestampMs, key, value, headers, headerKeys, fieldBytes, bodyBytes);
        return APPENDED;
    }

    /**
     * Adds {@code bytes} of memory to the batch, up to its write limit: its buffer grows to hold
     * them, so that later records are written without another copy until they pass it.
     */
    void grow(int bytes) {
        if (bytes <= 0 || memoryLimit + bytes > writeLimit) {
            throw new IllegalArgumentException("A batch of " + memoryLimit + " bytes of memory cannot grow by " + bytes
                    + " past its write limit of " + writeLimit);
        }
        memoryLimit += bytes;
        if (compressed) {
            compressedOut.ensureRemaining(memoryLimit - compressedOut.position());
        } else {
            ensureCapacity(memoryLimit);
        }
    }

    /** The memory the batch holds: the capacity it was made with, and what {@link #grow} added. */
    int memoryLimit() {
        return memoryLimit;
    }

    /** Where the batch counts as full. */
    int writeLimit() {
        return writeLimit;
    }

    /** Appends the record whatever the estimate says, the buffer growing as needed: for a batch written back from a split. */
    void append(long timestampMs, byte[] key, byte[] value, Header[] headers) {
        if (closedForAppends) {
            throw new IllegalStateException("The batch is closed for appends");
        }
        byte[][] headerKeys = headerKeys(headers);
        int fieldBytes = fieldBytes(key, value, headers, headerKeys);
        write(timestampMs, key, value, headers, headerKeys, fieldBytes, bodyBytes(timestampMs, fieldBytes));
    }

    private void write(long timestampMs, byte[] key, byte[] value, Header[] headers, byte[][] headerKeys,
                       int fieldBytes, int bodyBytes) {
        if (timestampMs < 0 && timestampMs != RecordBatch.NO_TIMESTAMP) {
            throw new IllegalArgumentException("Invalid negative timestamp " + timestampMs);
        }
        if (recordCount == 0) {
            baseTimestamp = timestampMs;
        }
        int recordBytes = recordBytes(bodyBytes);
        long timestampDelta = timestampMs - baseTimestamp;
        if (compressed) {
            if (scratch == null || scratch.length < recordBytes) {
                scratch = new byte[recordBytes];
            }
            writeRecord(scratch, 0, bodyBytes, timestampDelta, recordCount, key, value, headers, headerKeys);
            try {
                codecStream.write(scratch, 0, recordBytes);
            } catch (IOException e) {
                throw new KafkaException("Could not compress a record into its batch", e);
            }
        } else {
            ensureCapacity(end + recordBytes);
            end = writeRecord(buffer.array(), buffer.arrayOffset() + end, bodyBytes, timestampDelta, recordCount, key,
                    value, headers, headerKeys) - buffer.arrayOffset();
        }
        recordCount++;
        uncompressedRecordBytes += recordBytes;
        maxTimestamp = Math.max(maxTimestamp, timestampMs);
        largestRecordEstimate = Math.max(largestRecordEstimate, HEADER_BYTES + DefaultRecord.MAX_RECORD_OVERHEAD + fieldBytes);
    }

    private void ensureCapacity(int bytes) {
        if (bytes > buffer.capacity()) {
            ByteBuffer larger = ByteBuffer.allocate(bytes);
            System.arraycopy(buffer.array(), buffer.arrayOffset(), larger.array(), 0, end);
            buffer = larger;
        }
    }

    private boolean fits(int recordBytes) {
        return writeLimit >= estimatedBytesWritten() + recordBytes;
    }

    private int estimatedBytesWritten() {
        return compressed ? HEADER_BYTES + (int) (uncompressedRecordBytes * COMPRESSION_ESTIMATE_FACTOR)
                : HEADER_BYTES + uncompressedRecordBytes;
    }

    /** The bytes of a record's body (after its length) for the record appended next. */
    private int bodyBytes(long timestampMs, int fieldBytes) {
        long timestampDelta = recordCount == 0 ? 0 : timestampMs - baseTimestamp;
        return 1 + ByteUtils.sizeOfVarint(recordCount) + ByteUtils.sizeOfVarlong(timestampDelta) + fieldBytes;
    }

    private static int recordBytes(int bodyBytes) {
        return ByteUtils.sizeOfVarint(bodyBytes) + bodyBytes;
    }

    /** The bytes of a record's key, value and headers, each with its length. */
    private static int fieldBytes(byte[] key, byte[] value, Header[] headers, byte[][] headerKeys) {
        int bytes = lengthAndBytes(key) + lengthAndBytes(value) + ByteUtils.sizeOfVarint(headers.length);
        for (int index = 0; index < headers.length; index++) {
            bytes += lengthAndBytes(headerKeys[index]) + lengthAndBytes(headers[index].value());
        }
        return bytes;
    }

    private static int lengthAndBytes(byte[] bytes) {
        return bytes == null ? ByteUtils.sizeOfVarint(NULL_LENGTH) : ByteUtils.sizeOfVarint(bytes.length) + bytes.length;
    }

    /** The UTF-8 bytes of each header's key, encoded once for both the size and the write. */
    private static byte[][] headerKeys(Header[] headers) {
        if (headers == null) {
            throw new IllegalArgumentException("Headers cannot be null");
        }
        if (headers.length == 0) {
            return NO_HEADER_KEYS;
        }
        byte[][] keys = new byte[headers.length][];
        for (int index = 0; index < headers.length; index++) {
            String key = headers[index].key();
            if (key == null) {
                throw new IllegalArgumentException("Invalid null header key found in headers");
            }
            keys[index] = key.getBytes(StandardCharsets.UTF_8);
        }
        return keys;
    }

    /** Writes a record at {@code at}; returns where it ends. */
    private static int writeRecord(byte[] to, int at, int bodyBytes, long timestampDelta, int offsetDelta, byte[] key,
                                   byte[] value, Header[] headers, byte[][] headerKeys) {
        int position = writeVarint(to, at, bodyBytes);
        to[position++] = 0; // attributes: none are defined for a record
        position = writeVarlong(to, position, timestampDelta);
        position = writeVarint(to, position, offsetDelta);
        position = writeLengthAndBytes(to, position, key);
        position = writeLengthAndBytes(to, position, value);
        position = writeVarint(to, position, headers.length);
        for (int index = 0; index < headers.length; index++) {
            position = writeLengthAndBytes(to, position, headerKeys[index]);
            position = writeLengthAndBytes(to, position, headers[index].value());
        }
        return position;
    }

    private static int writeLengthAndBytes(byte[] to, int at, byte[] bytes) {
        if (bytes == null) {
            return writeVarint(to, at, NULL_LENGTH);
        }
        int position = writeVarint(to, at, bytes.length);
        System.arraycopy(bytes, 0, to, position, bytes.length);
        return position + bytes.length;
    }

    /** A zig-zag varint, as the record format writes signed ints. */
    private static int writeVarint(byte[] to, int at, int value) {
        int bits = (value << 1) ^ (value >> 31);
        int position = at;
        while ((bits & ~0x7F) != 0) {
            to[position++] = (byte) ((bits & 0x7F) | 0x80);
            bits >>>= 7;
        }
        to[position++] = (byte) bits;
        return position;
    }

    private static int writeVarlong(byte[] to, int at, long value) {
        long bits = (value << 1) ^ (value >> 63);
        int position = at;
        while ((bits & ~0x7FL) != 0) {
            to[position++] = (byte) ((bits & 0x7F) | 0x80);
            bits >>>= 7;
        }
        to[position++] = (byte) bits;
        return position;
    }

    /** Takes no more records, and lets the codec's buffers go: a batch that left its queue, or refused a record. */
    void closeForAppends() {
        if (closedForAppends) {
            return;
        }
        closedForAppends = true;
        scratch = null;
        if (compressed) {
            try {
                codecStream.close();
            } catch (IOException e) {
                throw new KafkaException("Could not finish compressing a batch", e);
            }
            codecStream = null;
            buffer = compressedOut.buffer();
            end = compressedOut.position();
            compressedOut = null;
        }
    }

    /**
     * Sets the idempotent producer's identity, the first record's sequence number and the
     * transactional flag. Allowed after {@link #build}: the next build writes the header again.
     */
    void setProducerState(long producerId, short producerEpoch, int baseSequence, boolean transactional) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        this.transactional = transactional;
        this.built = null;
    }

    /** Closes the batch for appends and returns its bytes, header and CRC written; the same bytes until the producer state changes. */
    MemoryRecords build() {
        if (built != null) {
            return built;
        }
        closeForAppends();
        if (recordCount == 0) {
            built = MemoryRecords.EMPTY;
            return built;
        }
        writeHeader();
        compressionRatio = (float) (end - HEADER_BYTES) / uncompressedRecordBytes;
        ByteBuffer records = buffer.duplicate();
        records.position(0).limit(end);
        built = MemoryRecords.readableRecords(records.slice());
        return built;
    }

    private void writeHeader() {
        // kafka-clients' own header writer, at the batch's start: it writes from a buffer's position.
        DefaultRecordBatch.writeHeader(buffer.duplicate().position(0), 0L, recordCount - 1, end, RecordBatch.MAGIC_VALUE_V2,
                compression.type(), TimestampType.CREATE_TIME, baseTimestamp, maxTimestamp, producerId, producerEpoch,
                baseSequence, transactional, false, false, RecordBatch.NO_PARTITION_LEADER_EPOCH, recordCount);
    }

    /** Whether it takes no more records: closed for appends, or its estimate reached its write limit. */
    boolean isFull() {
        return closedForAppends || (recordCount > 0 && writeLimit <= estimatedBytesWritten());
    }

    int recordCount() {
        return recordCount;
    }

    /** Its size: exact once built, else estimated as kafka-clients estimates it (exact without compression). */
    int estimatedSizeBytes() {
        return built != null ? built.sizeInBytes() : estimatedBytesWritten();
    }

    /** Its records' compressed size over their uncompressed size: 1 until built. */
    float compressionRatio() {
        return compressionRatio;
    }

    /** The largest of its records' size estimates as kafka-clients' {@code AbstractRecords.estimateSizeInBytesUpperBound} gives them. */
    int largestRecordEstimate() {
        return largestRecordEstimate;
    }

    long producerId() {
        return producerId;
    }

    short producerEpoch() {
        return producerEpoch;
    }

    int baseSequence() {
        return baseSequence;
    }

    boolean isTransactional() {
        return transactional;
    }
}
