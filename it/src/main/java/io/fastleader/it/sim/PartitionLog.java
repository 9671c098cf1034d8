package io.fastleader.it.sim;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

import io.fastleader.protocol.ErrorCode;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A simulated partition's log: the record batches produced to it, kept as the bytes the producer
 * sent, with the base offset and partition leader epoch fields rewritten as a broker does on
 * append (neither is covered by the batch's CRC, so the batch stays valid). Every replica is in
 * sync, so the high watermark is always the log end offset. Idempotent producers' sequences
 * are checked as a broker checks them ({@link ProducerSequences}). The log keeps a broker's
 * leader-epoch cache too: where each leader epoch started, for OffsetForLeaderEpoch and ListOffsets.
 * Not thread-safe: {@link ClusterState} guards it.
 */
final class PartitionLog {

    /** Byte offsets of the fields of a v2 record batch (magic 2) that a broker fills in. */
    private static final int BASE_OFFSET = 0;
    private static final int BATCH_LENGTH = 8;
    private static final int PARTITION_LEADER_EPOCH = 12;
    private static final int MAGIC = 16;
    private static final int LAST_OFFSET_DELTA = 23;
    private static final int PRODUCER_ID = 43;
    private static final int PRODUCER_EPOCH = 51;
    private static final int BASE_SEQUENCE = 53;
    /** Bytes of a v2 batch header up to and including the record count. */
    private static final int BATCH_HEADER_BYTES = 61;
    /** Bytes in front of the batch length field's coverage: base offset and the length itself. */
    private static final int LOG_OVERHEAD = 12;

    /** One appended batch: its bytes (already rewritten) and the offsets it covers. */
    private record StoredBatch(long baseOffset, long lastOffset, int leaderEpoch, byte[] bytes) {
    }

    /** No epoch, or no offset, in answers about leader epochs. */
    static final int UNDEFINED_EPOCH = -1;
    static final long UNDEFINED_OFFSET = -1;

    private final List<StoredBatch> batches = new ArrayList<>();
    /** Leader epoch to the offset it started at, as a broker's leader-epoch cache holds them. */
    private final NavigableMap<Integer, Long> epochStarts = new TreeMap<>();
    private final ProducerSequences producers = new ProducerSequences();
    private long logEndOffset;

    /**
     * What an append came to: {@code error} NONE with the base offset of the first batch (for a
     * duplicate, where it was first appended), or a refusal with nothing appended.
     */
    record AppendResult(ErrorCode error, long baseOffset) {
    }

    /**
     * Appends every batch in {@code records}, assigning offsets from the log end, after checking
     * the idempotent producers' sequences of every batch (see {@link ProducerSequences}): either
     * every batch is appended or none. A request holding one batch already in the log is answered
     * with that batch's offset and appends nothing.
     *
     * @throws InvalidBatchException if the bytes are not whole magic-2 record batches; nothing is
     *                               appended then
     */
    AppendResult append(ByteBuffer records, int leaderEpoch) {
        List<byte[]> pieces = split(records);
        Map<Long, ProducerSequences.Entry> staged = new HashMap<>();
        long nextOffset = logEndOffset;
        for (byte[] bytes : pieces) {
            ByteBuffer batch = ByteBuffer.wrap(bytes);
            long producerId = batch.getLong(PRODUCER_ID);
            int lastOffsetDelta = batch.getInt(LAST_OFFSET_DELTA);
            if (producerId >= 0) {
                short epoch = batch.getShort(PRODUCER_EPOCH);
                int first = batch.getInt(BASE_SEQUENCE);
                int last = (int) ((first + (long) lastOffsetDelta) % ((long) Integer.MAX_VALUE + 1));
                ProducerSequences.Entry entry = staged.computeIfAbsent(producerId, producers::copyOf);
                ProducerSequences.Verdict verdict = entry.check(epoch, first, last);
                if (verdict.isDuplicate()) {
                    return pieces.size() == 1
                        ? new AppendResult(ErrorCode.NONE, verdict.duplicateOf().firstOffset())
                        : new AppendResult(ErrorCode.DUPLICATE_SEQUENCE_NUMBER, -1);
                }
                if (verdict.error() != ErrorCode.NONE) {
                    return new AppendResult(verdict.error(), -1);
                }
                entry.appended(epoch, new ProducerSequences.BatchRange(first, last, nextOffset));
            }
            nextOffset += lastOffsetDelta + 1;
        }
        staged.forEach(producers::commit);
        long baseOffset = logEndOffset;
        for (byte[] bytes : pieces) {
            ByteBuffer batch = ByteBuffer.wrap(bytes);
            int lastOffsetDelta = batch.getInt(LAST_OFFSET_DELTA);
            batch.putLong(BASE_OFFSET, logEndOffset);
            batch.putInt(PARTITION_LEADER_EPOCH, leaderEpoch);
            long lastOffset = logEndOffset + lastOffsetDelta;
            batches.add(new StoredBatch(logEndOffset, lastOffset, leaderEpoch, bytes));
            logEndOffset = lastOffset + 1;
        }
        return new AppendResult(ErrorCode.NONE, baseOffset);
    }

    /** Cuts {@code records} into whole batches, checking each before anything is appended. */
    private static List<byte[]> split(ByteBuffer records) {
        ByteBuffer in = records.duplicate();
        List<byte[]> pieces = new ArrayList<>();
        while (in.hasRemaining()) {
            int start = in.position();
            if (in.remaining() < BATCH_HEADER_BYTES) {
                throw new InvalidBatchException("a truncated record batch of " + in.remaining() + " bytes");
            }
            int size = LOG_OVERHEAD + in.getInt(start + BATCH_LENGTH);
            if (size < BATCH_HEADER_BYTES || size > in.remaining()) {
                throw new InvalidBatchException("a record batch claiming " + size + " bytes, " + in.remaining() + " left");
            }
            byte magic = in.get(start + MAGIC);
            if (magic != RecordBatch.MAGIC_VALUE_V2) {
                throw new InvalidBatchException("a record batch of magic " + magic + " (only 2 is simulated)");
            }
            byte[] bytes = new byte[size];
            in.get(bytes);
            pieces.add(bytes);
        }
        if (pieces.isEmpty()) {
            throw new InvalidBatchException("no record batch");
        }
        return pieces;
    }

    /**
     * A new leader's epoch starts at the log end, as a broker's new leader records it on election.
     * An epoch that started at the same offset (it got no records) is dropped, as a broker drops it.
     */
    void startLeaderEpoch(int leaderEpoch) {
        epochStarts.entrySet().removeIf(e -> e.getKey() >= leaderEpoch || e.getValue() >= logEndOffset);
        epochStarts.put(leaderEpoch, logEndOffset);
    }

    /** A leader epoch and where it ended (the start of the next one, or the log end for the latest). */
    record EpochEnd(int leaderEpoch, long endOffset) {
        static final EpochEnd UNDEFINED = new EpochEnd(UNDEFINED_EPOCH, UNDEFINED_OFFSET);
    }

    /**
     * Where {@code requestedEpoch} ended, as a broker's leader-epoch cache answers: the latest epoch
     * ends at the log end; an older one is answered with the largest epoch not above it and the
     * start of the next epoch; one below every epoch known with itself and the first epoch's start;
     * one above the latest (or -1) with {@link EpochEnd#UNDEFINED}.
     */
    EpochEnd endOf(int requestedEpoch) {
        if (requestedEpoch == UNDEFINED_EPOCH || epochStarts.isEmpty()) {
            return EpochEnd.UNDEFINED;
        }
        if (epochStarts.lastKey() == requestedEpoch) {
            return new EpochEnd(requestedEpoch, logEndOffset);
        }
        Map.Entry<Integer, Long> next = epochStarts.higherEntry(requestedEpoch);
        if (next == null) {
            return EpochEnd.UNDEFINED;
        }
        Integer floor = epochStarts.floorKey(requestedEpoch);
        return new EpochEnd(floor == null ? requestedEpoch : floor, next.getValue());
    }

    /** The epoch the log starts with (offset 0 is the log start: nothing is deleted). */
    int firstLeaderEpoch() {
        return epochStarts.isEmpty() ? UNDEFINED_EPOCH : epochStarts.firstKey();
    }

    /**
     * The stored batches from the one holding {@code fetchOffset}, whole, as long as their bytes
     * stay within {@code maxBytes}; the first of them even beyond it when {@code firstBatchAnyway}
     * (KIP-74: a reader never stalls behind a batch larger than its limits).
     *
     * @return the batches' bytes, empty when there is none to give (the fetch offset is the log end)
     */
    ByteBuffer read(long fetchOffset, int maxBytes, boolean firstBatchAnyway) {
        int from = batchHolding(fetchOffset);
        int to = from;
        long size = 0;
        while (to < batches.size() && size + batches.get(to).bytes().length <= Math.max(maxBytes, 0)) {
            size += batches.get(to++).bytes().length;
        }
        if (to == from && firstBatchAnyway && from < batches.size()) {
            size = batches.get(to++).bytes().length;
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        for (int i = from; i < to; i++) {
            out.put(batches.get(i).bytes());
        }
        return out.flip();
    }

    /** Index of the first batch whose last offset is at or above {@code offset}; the batch count when none is. */
    private int batchHolding(long offset) {
        int low = 0;
        int high = batches.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (batches.get(mid).lastOffset() < offset) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** A record found by timestamp: its timestamp, offset and the leader epoch of its batch. */
    record TimestampedOffset(long timestamp, long offset, int leaderEpoch) {
    }

    /** The first record, in offset order, whose timestamp is at or after {@code timestamp}, as a broker searches. */
    Optional<TimestampedOffset> firstAtOrAfter(long timestamp) {
        for (StoredBatch stored : batches) {
            RecordBatch batch = batch(stored);
            if (batch.maxTimestamp() >= timestamp) {
                for (Record record : batch) {
                    if (record.timestamp() >= timestamp) {
                        return Optional.of(new TimestampedOffset(record.timestamp(), record.offset(), stored.leaderEpoch()));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The record with the largest timestamp, the first in offset order among equals, as a broker
     * finds it: through the batches' max timestamps, then the first record of that batch bearing it.
     */
    Optional<TimestampedOffset> maxTimestamp() {
        long max = RecordBatch.NO_TIMESTAMP;
        for (StoredBatch stored : batches) {
            max = Math.max(max, batch(stored).maxTimestamp());
        }
        return max == RecordBatch.NO_TIMESTAMP ? Optional.empty() : firstAtOrAfter(max);
    }

    private static RecordBatch batch(StoredBatch stored) {
        return MemoryRecords.readableRecords(ByteBuffer.wrap(stored.bytes())).batches().iterator().next();
    }

    /** The offset the next record will get. */
    long logEndOffset() {
        return logEndOffset;
    }

    /** Every replica is in sync in the simulation, so everything appended is committed. */
    long highWatermark() {
        return logEndOffset;
    }

    /** Number of batches appended. */
    int batchCount() {
        return batches.size();
    }

    /** Every record in the log, in offset order, decoded from the stored batches. */
    List<LoggedRecord> records() {
        List<LoggedRecord> out = new ArrayList<>();
        for (StoredBatch stored : batches) {
            MemoryRecords memory = MemoryRecords.readableRecords(ByteBuffer.wrap(stored.bytes()));
            for (RecordBatch batch : memory.batches()) {
                for (Record record : batch) {
                    out.add(new LoggedRecord(record.offset(), batch.partitionLeaderEpoch(),
                        bytes(record.hasKey() ? record.key() : null), bytes(record.hasValue() ? record.value() : null)));
                }
            }
        }
        return out;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Bytes in a Produce request that are not whole magic-2 record batches. */
    static final class InvalidBatchException extends RuntimeException {
        InvalidBatchException(String message) {
            super(message);
        }
    }
}
