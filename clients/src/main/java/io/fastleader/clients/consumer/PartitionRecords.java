package io.fastleader.clients.consumer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import io.fastleader.protocol.message.FetchResponseData;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * One partition's records from one Fetch response, handed out as {@link ConsumerRecord}s over one
 * or more polls.
 *
 * <p>A small state machine: it walks the batches, skipping those no application sees (control
 * batches, aborted transactions under {@code read_committed}, batches compaction emptied), then
 * the records of each batch, skipping those below the fetch offset. It always stands on the next
 * record to hand out, so {@link #nextOffset()} has already moved past anything skipped. Two
 * faults stop it: undecodable data (a CRC mismatch, say), which every later {@link #take} raises
 * again, and a key or value its deserializer refuses, which {@link #take} tries again each call.
 * Either way {@link #nextOffset()} stays at the faulty data, so it is never skipped silently;
 * the consumer moves on by seeking, which replaces this object.
 *
 * <p>Not thread-safe: one consumer thread owns it.
 */
final class PartitionRecords<K, V> {

    private final TopicPartition partition;
    private final RecordDecoding<K, V> decoding;
    private final AbortedTransactions aborted;
    private final Iterator<? extends RecordBatch> batches;

    // The batch batchRecords walks; null between batches.
    private RecordBatch batch;
    private Iterator<Record> batchRecords = Collections.emptyIterator();
    // The next record to hand out; null when drained or failed.
    private Record next;
    private KafkaException failure;
    private long nextOffset;
    private long bytesTaken;
    private int recordsTaken;
    private int lastEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;

    /**
     * Reads up to the first record to hand out (decompressing its batch); a fault found on the way
     * comes from the first {@link #take}.
     *
     * @param fetchOffset where the fetch asked to start; records below it are not handed out
     * @param data        the partition's part of the Fetch response, read without error
     */
    PartitionRecords(TopicPartition partition, long fetchOffset, FetchResponseData.PartitionData data,
                     RecordDecoding<K, V> decoding) {
        this.partition = partition;
        this.decoding = decoding;
        this.aborted = decoding.isolation() == IsolationLevel.READ_COMMITTED
                ? new AbortedTransactions(data.abortedTransactions())
                : AbortedTransactions.none();
        this.batches = batches(partition, data.records());
        this.nextOffset = fetchOffset;
        advance();
    }

    private static Iterator<? extends RecordBatch> batches(TopicPartition partition, BaseRecords records) {
        if (records == null) {
            return Collections.emptyIterator();
        }
        if (!(records instanceof Records readable)) {
            throw new IllegalArgumentException("Fetched data of " + partition + " is not readable: "
                    + records.getClass().getName());
        }
        return readable.batches().iterator();
    }

    /**
     * Up to {@code maxRecords} records, in offset order; empty once drained.
     *
     * @throws RecordDeserializationException when the first record of this call fails to deserialize;
     *                                        a failure after it ends the call early instead, and
     *                                        comes from the next one
     * @throws KafkaException                 when the next batch cannot be read (a CRC mismatch, say)
     *                                        and nothing is left before it; on every call from then on
     */
    List<ConsumerRecord<K, V>> take(int maxRecords) {
        if (failure != null) {
            throw failure;
        }
        List<ConsumerRecord<K, V>> taken = new ArrayList<>();
        while (next != null && taken.size() < maxRecords) {
            try {
                taken.add(decode(next));
                bytesTaken += next.sizeInBytes();
                recordsTaken++;
            } catch (RecordDeserializationException e) {
                // As KafkaConsumer does: what this call decoded first reaches the application first.
                if (taken.isEmpty()) {
                    throw e;
                }
                return taken;
            }
            moveTo(next.offset() + 1, batch);
            advance();
        }
        return taken;
    }

    TopicPartition partition() {
        return partition;
    }

    /**
     * The offset the partition's next fetch starts at: after the last record handed out, or after
     * batches skipped whole.
     */
    long nextOffset() {
        return nextOffset;
    }

    /**
     * The partition leader epoch of the batch that {@link #nextOffset()} moved past last, if the
     * batch had one (magic v2); empty before it moved. The consumer's position keeps it as its
     * offset epoch and sends it as {@code LastFetchedEpoch}.
     */
    Optional<Integer> lastEpoch() {
        return epoch(lastEpoch);
    }

    /** The bytes of the records handed out so far, as stored in their batches. */
    long bytesTaken() {
        return bytesTaken;
    }

    /** How many records were handed out so far. */
    int recordsTaken() {
        return recordsTaken;
    }

    /** Whether nothing is left to hand out: no record and no error. */
    boolean isDrained() {
        return next == null && failure == null;
    }

    /** Moves {@link #next} to the next record to hand out, or leaves it null when there is none or on a fault. */
    private void advance() {
        next = null;
        try {
            while (next == null) {
                if (batchRecords.hasNext()) {
                    Record record = batchRecords.next();
                    // The broker sends whole batches: a compressed one may start before the fetch offset.
                    if (record.offset() >= nextOffset) {
                        next = record;
                    }
                } else if (batch != null) {
                    // A v2 batch keeps its last offset when compaction removes its last records (or all
                    // of them): moving past it keeps the next fetch from asking for the same batch again.
                    moveTo(batch.nextOffset(), batch);
                    batch = null;
                } else if (batches.hasNext()) {
                    open(batches.next());
                } else {
                    return;
                }
            }
        } catch (RuntimeException e) {
            // Bytes from the network can fail in more ways than the record classes wrap in KafkaException.
            long offset = batch == null ? nextOffset : batch.baseOffset();
            failure = new KafkaException("Cannot read the record batch of " + partition + " at offset " + offset
                    + " (" + e.getMessage() + "); seek past it to continue consuming", e);
        }
    }

    private void open(RecordBatch candidate) {
        batch = candidate;
        if (decoding.checkCrcs()) {
            // For v0/v1 data the batch is a wrapper record whose CRC covers the compressed inner records.
            candidate.ensureValid();
        }
        // The abort tracking must see every batch, control batches too, so it is asked first.
        boolean hidden = aborted.covers(candidate) || candidate.isControlBatch();
        // iterator() decompresses the whole batch and releases the stream: nothing to close if the consumer drops us.
        batchRecords = hidden ? Collections.emptyIterator() : candidate.iterator();
    }

    private void moveTo(long offset, RecordBatch from) {
        if (offset > nextOffset) {
            nextOffset = offset;
            lastEpoch = from.partitionLeaderEpoch();
        }
    }

    private ConsumerRecord<K, V> decode(Record record) {
        String topic = partition.topic();
        TimestampType timestampType = batch.timestampType();
        Headers headers = new RecordHeaders(record.headers());
        K key;
        V value;
        try {
            key = record.hasKey() ? decoding.keys().deserialize(topic, headers, record.key()) : null;
        } catch (RuntimeException e) {
            throw deserializationFailure(DeserializationErrors.Origin.KEY, record, timestampType, headers, e);
        }
        try {
            value = record.hasValue() ? decoding.values().deserialize(topic, headers, record.value()) : null;
        } catch (RuntimeException e) {
            throw deserializationFailure(DeserializationErrors.Origin.VALUE, record, timestampType, headers, e);
        }
        return new ConsumerRecord<>(topic, partition.partition(), record.offset(), record.timestamp(), timestampType,
                record.keySize(), record.valueSize(), key, value, headers, epoch(batch.partitionLeaderEpoch()));
    }

    private RecordDeserializationException deserializationFailure(DeserializationErrors.Origin origin, Record record,
                                                                  TimestampType timestampType, Headers headers,
                                                                  RuntimeException cause) {
        // record.key() and value() are fresh views, whatever the deserializer did to the buffers it got.
        ByteBuffer key = record.key();
        ByteBuffer value = record.value();
        return DeserializationErrors.ON_CLASSPATH.error(origin, partition, record.offset(), record.timestamp(),
                timestampType, key, value, headers, "Error deserializing the " + origin.name() + " of the record of "
                        + partition + " at offset " + record.offset()
                        + "; seek past it to continue consuming", cause);
    }

    private static Optional<Integer> epoch(int partitionLeaderEpoch) {
        return partitionLeaderEpoch == RecordBatch.NO_PARTITION_LEADER_EPOCH
                ? Optional.empty() : Optional.of(partitionLeaderEpoch);
    }
}
