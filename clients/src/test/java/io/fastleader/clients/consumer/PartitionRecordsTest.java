package io.fastleader.clients.consumer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.RecordDeserializationException.DeserializationExceptionOrigin;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PartitionRecordsTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);
    private static final int EPOCH = 7;
    private static final long PRODUCER = 1_000L;
    private static final long OTHER_PRODUCER = 2_000L;
    private static final Header[] NO_HEADERS = new Header[0];

    private static final RecordDecoding<String, String> STRINGS = new RecordDecoding<>(
            new StringDeserializer(), new StringDeserializer(), IsolationLevel.READ_UNCOMMITTED, true);
    private static final RecordDecoding<String, String> READ_COMMITTED = new RecordDecoding<>(
            new StringDeserializer(), new StringDeserializer(), IsolationLevel.READ_COMMITTED, true);

    @Test
    void testCountsTheRecordsTakenAndTheirSizesAsStored() {
        MemoryRecords stored = batch(0, "a", "bb", "ccc");
        List<Integer> sizes = new ArrayList<>();
        stored.records().forEach(record -> sizes.add(record.sizeInBytes()));
        PartitionRecords<String, String> records = records(0, stored);

        records.take(2);

        assertThat(records.recordsTaken()).isEqualTo(2);
        assertThat(records.bytesTaken()).isEqualTo(sizes.get(0) + sizes.get(1));
    }

    // ---- test data: batches as a broker would send them

    private static MemoryRecordsBuilder builder(Compression compression, long baseOffset, int epoch, long producerId,
                                                boolean transactional) {
        short producerEpoch = producerId == RecordBatch.NO_PRODUCER_ID ? RecordBatch.NO_PRODUCER_EPOCH : 0;
        int baseSequence = producerId == RecordBatch.NO_PRODUCER_ID ? RecordBatch.NO_SEQUENCE : 0;
        return MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE, compression,
                TimestampType.CREATE_TIME, baseOffset, RecordBatch.NO_TIMESTAMP, producerId, producerEpoch,
                baseSequence, transactional, epoch);
    }

    /** One batch of records with values {@code values}, keys "k" + offset and timestamps 10_000 + offset. */
    private static MemoryRecords batch(Compression compression, long baseOffset, int epoch, long producerId,
                                       boolean transactional, String... values) {
        MemoryRecordsBuilder builder = builder(compression, baseOffset, epoch, producerId, transactional);
        for (int i = 0; i < values.length; i++) {
            long offset = baseOffset + i;
            builder.append(10_000 + offset, bytes("k" + offset), bytes(values[i]), NO_HEADERS);
        }
        return builder.build();
    }

    private static MemoryRecords batch(long baseOffset, String... values) {
        return batch(Compression.NONE, baseOffset, EPOCH, RecordBatch.NO_PRODUCER_ID, false, values);
    }

    private static MemoryRecords batchAtEpoch(long baseOffset, int epoch, String... values) {
        return batch(Compression.NONE, baseOffset, epoch, RecordBatch.NO_PRODUCER_ID, false, values);
    }

    private static MemoryRecords transactional(long producerId, long baseOffset, String... values) {
        return batch(Compression.NONE, baseOffset, EPOCH, producerId, true, values);
    }

    private static MemoryRecords marker(ControlRecordType type, long producerId, long offset, int epoch) {
        return MemoryRecords.withEndTransactionMarker(offset, 20_000, epoch, producerId, (short) 0,
                new EndTransactionMarker(type, 0));
    }

    private static MemoryRecords marker(ControlRecordType type, long producerId, long offset) {
        return marker(type, producerId, offset, EPOCH);
    }

    /** A v2 batch whose records compaction removed, all of them: only its header, with its offsets, is left. */
    private static MemoryRecords emptiedByCompaction(long baseOffset, long lastOffset, int epoch) {
        ByteBuffer buffer = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(buffer, RecordBatch.CURRENT_MAGIC_VALUE, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, baseOffset, lastOffset, epoch,
                TimestampType.CREATE_TIME, 10_000, false, false);
        buffer.rewind();
        return MemoryRecords.readableRecords(buffer);
    }

    /** The same batch with its stored CRC flipped: the records read fine, the checksum does not match. */
    private static MemoryRecords withBadCrc(MemoryRecords records) {
        ByteBuffer copy = ByteBuffer.wrap(Utils.toArray(records.buffer()));
        copy.put(DefaultRecordBatch.CRC_OFFSET, (byte) ~copy.get(DefaultRecordBatch.CRC_OFFSET));
        return MemoryRecords.readableRecords(copy);
    }

    private static MemoryRecords concat(MemoryRecords... parts) {
        ByteBuffer all = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(MemoryRecords::sizeInBytes).sum());
        for (MemoryRecords part : parts) {
            all.put(part.buffer());
        }
        return MemoryRecords.readableRecords(all.flip());
    }

    private static FetchResponseData.PartitionData data(BaseRecords records, AbortedTransaction... aborted) {
        return new FetchResponseData.PartitionData()
                .setPartitionIndex(TP.partition())
                .setHighWatermark(100)
                .setAbortedTransactions(aborted.length == 0 ? null : List.of(aborted))
                .setRecords(records);
    }

    private static AbortedTransaction aborted(long producerId, long firstOffset) {
        return new AbortedTransaction().setProducerId(producerId).setFirstOffset(firstOffset);
    }

    private static PartitionRecords<String, String> records(long fetchOffset, MemoryRecords records) {
        return new PartitionRecords<>(TP, fetchOffset, data(records), STRINGS);
    }

    private static PartitionRecords<String, String> readCommitted(MemoryRecords records, AbortedTransaction... aborted) {
        return new PartitionRecords<>(TP, 0, data(records, aborted), READ_COMMITTED);
    }

    private static RecordDecoding<String, String> values(Deserializer<String> values) {
        return new RecordDecoding<>(new StringDeserializer(), values, IsolationLevel.READ_UNCOMMITTED, true);
    }

    /** Reads strings, but refuses the value {@code refused}. */
    private static Deserializer<String> refusing(String refused) {
        return (topic, data) -> {
            String value = new String(data, UTF_8);
            if (value.equals(refused)) {
                throw new SerializationException("refused " + value);
            }
            return value;
        };
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    private static List<Long> offsets(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::offset).toList();
    }

    private static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }

    // ---- 1. what a record carries

    @Test
    void testRecordCarriesEveryFieldOfTheFetchedRecord() {
        MemoryRecordsBuilder builder = builder(Compression.NONE, 40, EPOCH, RecordBatch.NO_PRODUCER_ID, false);
        builder.append(12_345, bytes("key"), bytes("value!"), new Header[] {new RecordHeader("h", bytes("x"))});

        ConsumerRecord<String, String> record = records(40, builder.build()).take(10).get(0);

        assertThat(record.topic()).isEqualTo("orders");
        assertThat(record.partition()).isEqualTo(3);
        assertThat(record.offset()).isEqualTo(40);
        assertThat(record.timestamp()).isEqualTo(12_345);
        assertThat(record.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(record.key()).isEqualTo("key");
        assertThat(record.value()).isEqualTo("value!");
        assertThat(record.serializedKeySize()).isEqualTo(3);
        assertThat(record.serializedValueSize()).isEqualTo(6);
        assertThat(record.headers().lastHeader("h").value()).isEqualTo(bytes("x"));
        assertThat(record.leaderEpoch()).contains(EPOCH);
    }

    @Test
    void testDeserializersSeeTheTopicAndTheHeaders() {
        Deserializer<String> tagged = new Deserializer<>() {
            @Override
            public String deserialize(String topic, byte[] data) {
                throw new AssertionError("the variant with headers is the one to call");
            }

            @Override
            public String deserialize(String topic, Headers headers, ByteBuffer data) {
                return topic + "/" + new String(headers.lastHeader("tag").value(), UTF_8) + "/" + UTF_8.decode(data);
            }
        };
        MemoryRecordsBuilder builder = builder(Compression.NONE, 0, EPOCH, RecordBatch.NO_PRODUCER_ID, false);
        builder.append(1, bytes("k"), bytes("v"), new Header[] {new RecordHeader("tag", bytes("t1"))});
        RecordDecoding<String, String> decoding =
                new RecordDecoding<>(tagged, tagged, IsolationLevel.READ_UNCOMMITTED, true);

        ConsumerRecord<String, String> record = new PartitionRecords<>(TP, 0, data(builder.build()), decoding)
                .take(1).get(0);

        assertThat(record.key()).isEqualTo("orders/t1/k");
        assertThat(record.value()).isEqualTo("orders/t1/v");
    }

    @Test
    void testNullKeyAndValueStayNullWithNullSizes() {
        MemoryRecordsBuilder builder = builder(Compression.NONE, 0, EPOCH, RecordBatch.NO_PRODUCER_ID, false);
        builder.append(1, (byte[]) null, null, NO_HEADERS);
        Deserializer<String> never = (topic, data) -> {
            throw new AssertionError("nothing to deserialize");
        };
        RecordDecoding<String, String> decoding = new RecordDecoding<>(never, never, IsolationLevel.READ_UNCOMMITTED, true);

        ConsumerRecord<String, String> record = new PartitionRecords<>(TP, 0, data(builder.build()), decoding)
                .take(1).get(0);

        assertThat(record.key()).isNull();
        assertThat(record.value()).isNull();
        assertThat(record.serializedKeySize()).isEqualTo(ConsumerRecord.NULL_SIZE);
        assertThat(record.serializedValueSize()).isEqualTo(ConsumerRecord.NULL_SIZE);
    }

    @Test
    void testLeaderEpochIsEmptyWhenTheBatchHasNone() {
        MemoryRecords data = batchAtEpoch(0, RecordBatch.NO_PARTITION_LEADER_EPOCH, "a");

        assertThat(records(0, data).take(1).get(0).leaderEpoch()).isEmpty();
    }

    @Test
    void testLogAppendTimeBatchGivesTheBrokerTimestamp() {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(256), RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE, TimestampType.LOG_APPEND_TIME, 0, 99_000);
        builder.append(1, bytes("k"), bytes("v"), NO_HEADERS);

        ConsumerRecord<String, String> record = records(0, builder.build()).take(1).get(0);

        assertThat(record.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(record.timestamp()).isEqualTo(99_000);
    }

    // ---- 2. handing out across polls

    @Test
    void testTakeHandsOutAtMostMaxAndKeepsTheRest() {
        PartitionRecords<String, String> records = records(0, concat(batch(0, "a", "b", "c"), batch(3, "d", "e")));

        assertThat(values(records.take(2))).containsExactly("a", "b");
        assertThat(records.nextOffset()).isEqualTo(2);
        assertThat(records.isDrained()).isFalse();

        assertThat(values(records.take(2))).containsExactly("c", "d");
        assertThat(records.nextOffset()).isEqualTo(4);

        assertThat(values(records.take(2))).containsExactly("e");
        assertThat(records.nextOffset()).isEqualTo(5);
        assertThat(records.isDrained()).isTrue();
        assertThat(records.take(2)).isEmpty();
    }

    @Test
    void testNextOffsetAdvancesRecordByRecord() {
        PartitionRecords<String, String> records = records(10, batch(10, "a", "b", "c"));
        List<Long> seen = new ArrayList<>();

        while (!records.isDrained()) {
            records.take(1);
            seen.add(records.nextOffset());
        }

        assertThat(seen).containsExactly(11L, 12L, 13L);
    }

    // ---- 3. fetch offset inside a batch

    @Test
    void testRecordsBelowTheFetchOffsetAreSkipped() {
        MemoryRecords compressed = batch(Compression.gzip().build(), 0, EPOCH, RecordBatch.NO_PRODUCER_ID, false,
                "a", "b", "c", "d");

        PartitionRecords<String, String> records = records(2, compressed);

        assertThat(offsets(records.take(10))).containsExactly(2L, 3L);
        assertThat(records.nextOffset()).isEqualTo(4);
    }

    // ---- 4. compression

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void testEveryCompressionTypeDecodes(CompressionType type) {
        MemoryRecords data = concat(
                batch(Compression.of(type).build(), 0, EPOCH, RecordBatch.NO_PRODUCER_ID, false, "a", "b"),
                batch(Compression.of(type).build(), 2, EPOCH, RecordBatch.NO_PRODUCER_ID, false, "c"));

        PartitionRecords<String, String> records = records(0, data);

        assertThat(values(records.take(10))).containsExactly("a", "b", "c");
        assertThat(records.nextOffset()).isEqualTo(3);
    }

    // ---- 5. batches skipped whole

    @Test
    void testControlBatchIsNeverHandedOutButNextOffsetMovesPastIt() {
        MemoryRecords data = concat(transactional(PRODUCER, 0, "a", "b"), marker(ControlRecordType.COMMIT, PRODUCER, 2));

        PartitionRecords<String, String> records = records(0, data);

        assertThat(values(records.take(10))).containsExactly("a", "b");
        assertThat(records.nextOffset()).isEqualTo(3);
        assertThat(records.isDrained()).isTrue();
    }

    @Test
    void testControlBatchAloneIsDrainedAtOncePastTheMarker() {
        PartitionRecords<String, String> records = records(5, marker(ControlRecordType.ABORT, PRODUCER, 5));

        assertThat(records.isDrained()).isTrue();
        assertThat(records.nextOffset()).isEqualTo(6);
        assertThat(records.take(10)).isEmpty();
    }

    @Test
    void testBatchEmptiedByCompactionMovesNextOffsetPastIt() {
        MemoryRecords data = concat(batch(0, "a"), emptiedByCompaction(1, 9, EPOCH));

        PartitionRecords<String, String> records = records(0, data);

        assertThat(values(records.take(10))).containsExactly("a");
        assertThat(records.nextOffset()).isEqualTo(10);
        assertThat(records.isDrained()).isTrue();
    }

    // ---- 6. isolation levels

    @Test
    void testReadCommittedDropsAnAbortedTransactionAndKeepsCommittedOnes() {
        // The producer is aborting from its aborted transaction's first offset to its ABORT marker only.
        MemoryRecords data = concat(
                transactional(PRODUCER, 0, "before"),
                marker(ControlRecordType.COMMIT, PRODUCER, 1),
                transactional(PRODUCER, 2, "aborted"),
                marker(ControlRecordType.ABORT, PRODUCER, 3),
                transactional(PRODUCER, 4, "after-1", "after-2"),
                marker(ControlRecordType.COMMIT, PRODUCER, 6));

        PartitionRecords<String, String> records = readCommitted(data, aborted(PRODUCER, 2));

        assertThat(values(records.take(10))).containsExactly("before", "after-1", "after-2");
        assertThat(records.nextOffset()).isEqualTo(7);
    }

    @Test
    void testReadCommittedDropsOnlyTheAbortingProducersRecords() {
        // Two producers' transactions interleave; the response lists aborted transactions in any order.
        MemoryRecords data = concat(
                transactional(OTHER_PRODUCER, 0, "other-aborted"),
                transactional(PRODUCER, 1, "committed"),
                transactional(OTHER_PRODUCER, 2, "other-aborted-too"),
                marker(ControlRecordType.COMMIT, PRODUCER, 3),
                marker(ControlRecordType.ABORT, OTHER_PRODUCER, 4),
                transactional(PRODUCER, 5, "aborted-later"),
                marker(ControlRecordType.ABORT, PRODUCER, 6));

        PartitionRecords<String, String> records = readCommitted(data, aborted(PRODUCER, 5), aborted(OTHER_PRODUCER, 0));

        assertThat(values(records.take(10))).containsExactly("committed");
        assertThat(records.nextOffset()).isEqualTo(7);
    }

    @Test
    void testReadUncommittedReturnsAbortedRecordsToo() {
        MemoryRecords data = concat(
                transactional(PRODUCER, 0, "aborted"),
                marker(ControlRecordType.ABORT, PRODUCER, 1),
                batch(2, "plain"));

        PartitionRecords<String, String> records = new PartitionRecords<>(TP, 0, data(data, aborted(PRODUCER, 0)), STRINGS);

        assertThat(values(records.take(10))).containsExactly("aborted", "plain");
        assertThat(records.nextOffset()).isEqualTo(3);
    }

    // ---- 7. CRC checks

    @Test
    void testCorruptBatchFailsTakeNamingPartitionAndOffset() {
        PartitionRecords<String, String> records = records(3, withBadCrc(batch(3, "a")));

        assertThat(records.isDrained()).isFalse();
        assertThatThrownBy(() -> records.take(10))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessageContaining("orders-3")
                .hasMessageContaining("offset 3")
                .hasCauseInstanceOf(CorruptRecordException.class);
    }

    @Test
    void testRecordsBeforeACorruptBatchComeFirstThenTheErrorOnEveryCall() {
        PartitionRecords<String, String> records = records(0, concat(batch(0, "a", "b"), withBadCrc(batch(2, "c"))));

        assertThat(values(records.take(10))).containsExactly("a", "b");
        assertThat(records.nextOffset()).isEqualTo(2);

        assertThatThrownBy(() -> records.take(10)).hasMessageContaining("offset 2");
        assertThatThrownBy(() -> records.take(10)).hasMessageContaining("offset 2");
        assertThat(records.nextOffset()).isEqualTo(2);
        assertThat(records.isDrained()).isFalse();
    }

    @Test
    void testCrcIsNotCheckedWhenCheckCrcsIsOff() {
        RecordDecoding<String, String> unchecked = new RecordDecoding<>(
                new StringDeserializer(), new StringDeserializer(), IsolationLevel.READ_UNCOMMITTED, false);

        PartitionRecords<String, String> records =
                new PartitionRecords<>(TP, 0, data(withBadCrc(batch(0, "a"))), unchecked);

        assertThat(values(records.take(10))).containsExactly("a");
    }

    // ---- 8. deserialization failures

    @Test
    @NeedsKafkaClientsNewerThan37
    void testDeserializationFailureCarriesTheRecord() {
        PartitionRecords<String, String> records =
                new PartitionRecords<>(TP, 0, data(batch(0, "bad")), values(refusing("bad")));

        RecordDeserializationException e = catchThrowableOfType(RecordDeserializationException.class,
                () -> records.take(10));

        assertThat(e.origin()).isEqualTo(DeserializationExceptionOrigin.VALUE);
        assertThat(e.topicPartition()).isEqualTo(TP);
        assertThat(e.offset()).isZero();
        assertThat(e.timestamp()).isEqualTo(10_000);
        assertThat(e.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(UTF_8.decode(e.keyBuffer()).toString()).isEqualTo("k0");
        assertThat(UTF_8.decode(e.valueBuffer()).toString()).isEqualTo("bad");
        assertThat(e).hasMessageContaining("orders-3").hasCauseInstanceOf(SerializationException.class);
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testKeyDeserializationFailureNamesTheKey() {
        RecordDecoding<String, String> decoding = new RecordDecoding<>(refusing("k0"), new StringDeserializer(),
                IsolationLevel.READ_UNCOMMITTED, true);
        PartitionRecords<String, String> records = new PartitionRecords<>(TP, 0, data(batch(0, "a")), decoding);

        RecordDeserializationException e = catchThrowableOfType(RecordDeserializationException.class,
                () -> records.take(10));

        assertThat(e.origin()).isEqualTo(DeserializationExceptionOrigin.KEY);
    }

    @Test
    void testRecordsBeforeAFailingRecordComeFirstThenTheErrorOnEveryCall() {
        PartitionRecords<String, String> records =
                new PartitionRecords<>(TP, 0, data(batch(0, "a", "b", "bad", "c")), values(refusing("bad")));

        assertThat(values(records.take(10))).containsExactly("a", "b");
        assertThat(records.nextOffset()).isEqualTo(2);

        for (int call = 0; call < 2; call++) {
            assertThatThrownBy(() -> records.take(10))
                    .isInstanceOfSatisfying(RecordDeserializationException.class, e -> assertThat(e.offset()).isEqualTo(2));
            assertThat(records.nextOffset()).isEqualTo(2);
            assertThat(records.isDrained()).isFalse();
        }
    }

    @Test
    void testDeserializationIsTriedAgainOnTheNextTake() {
        // A deserializer may fail for a while (a schema registry out of reach, say) and then succeed.
        boolean[] reachable = {false};
        Deserializer<String> flaky = (topic, data) -> {
            if (!reachable[0]) {
                throw new SerializationException("registry unreachable");
            }
            return new String(data, UTF_8);
        };
        PartitionRecords<String, String> records = new PartitionRecords<>(TP, 0, data(batch(0, "a")), values(flaky));
        assertThatThrownBy(() -> records.take(10)).isInstanceOf(RecordDeserializationException.class);

        reachable[0] = true;

        assertThat(values(records.take(10))).containsExactly("a");
        assertThat(records.nextOffset()).isEqualTo(1);
    }

    // ---- 9. no data

    @Test
    void testNullRecordsAreDrainedAtOnce() {
        PartitionRecords<String, String> records = new PartitionRecords<>(TP, 42, data(null), STRINGS);

        assertThat(records.isDrained()).isTrue();
        assertThat(records.nextOffset()).isEqualTo(42);
        assertThat(records.lastEpoch()).isEmpty();
        assertThat(records.take(10)).isEmpty();
    }

    @Test
    void testZeroBytesOfRecordsAreDrainedAtOnce() {
        PartitionRecords<String, String> records = records(42, MemoryRecords.EMPTY);

        assertThat(records.isDrained()).isTrue();
        assertThat(records.nextOffset()).isEqualTo(42);
        assertThat(records.take(10)).isEmpty();
    }

    // ---- 10. last epoch

    @Test
    void testLastEpochFollowsNextOffset() {
        MemoryRecords data = concat(
                batchAtEpoch(0, 3, "a", "b"),
                batchAtEpoch(2, 5, "c"),
                marker(ControlRecordType.COMMIT, PRODUCER, 3, 6));
        PartitionRecords<String, String> records = records(0, data);
        assertThat(records.lastEpoch()).isEmpty();

        records.take(2);
        // It stands on the epoch-5 batch already, but has not moved past any of it.
        assertThat(records.lastEpoch()).contains(3);

        records.take(1);
        // Past the epoch-5 record and the epoch-6 marker after it.
        assertThat(records.nextOffset()).isEqualTo(4);
        assertThat(records.lastEpoch()).contains(6);
    }

    @Test
    void testLastEpochIsEmptyAfterABatchWithoutOne() {
        MemoryRecords data = concat(batchAtEpoch(0, 3, "a"), batchAtEpoch(1, RecordBatch.NO_PARTITION_LEADER_EPOCH, "b"));
        PartitionRecords<String, String> records = records(0, data);

        records.take(1);
        assertThat(records.lastEpoch()).contains(3);

        records.take(1);
        assertThat(records.lastEpoch()).isEmpty();
    }

    @Test
    void testLastEpochStaysBeforeACorruptBatch() {
        PartitionRecords<String, String> records =
                records(0, concat(batchAtEpoch(0, 3, "a"), withBadCrc(batchAtEpoch(1, 4, "b"))));

        records.take(10);

        assertThat(records.lastEpoch()).isEqualTo(Optional.of(3));
    }
}
