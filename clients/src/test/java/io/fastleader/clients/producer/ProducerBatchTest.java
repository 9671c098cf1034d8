package io.fastleader.clients.producer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.EpochBackoff;

class ProducerBatchTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);
    private static final Header[] NO_HEADERS = new Header[0];

    private static ProducerBatch batch(int capacityBytes) {
        return new ProducerBatch(TP, Compression.NONE, capacityBytes, 1_000);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void testCallbacksRunOnceInSendOrder() throws Exception {
        ProducerBatch batch = batch(1024);
        List<String> calls = new ArrayList<>();
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int index = i;
            futures.add(batch.tryAppend(1_000 + i, null, bytes("v" + i), NO_HEADERS,
                    (metadata, error) -> calls.add(index + "@" + metadata.offset())));
        }

        assertThat(batch.complete(100, -1)).isTrue();
        assertThat(batch.complete(200, -1)).isFalse();
        assertThat(batch.fail(new NotEnoughReplicasException("late"))).isFalse();

        assertThat(calls).containsExactly("0@100", "1@101", "2@102");
        assertThat(futures.get(2).get().offset()).isEqualTo(102);
        assertThat(futures.get(2).get().timestamp()).isEqualTo(1_002);
    }

    @Test
    void testABatchThatRefusedARecordTakesNoSmallerOneAfterIt() {
        ProducerBatch batch = new ProducerBatch(TP, Compression.lz4().build(), 1024, 1_000);
        batch.tryAppend(1, null, bytes("first"), NO_HEADERS, null);

        Future<RecordMetadata> tooLarge = batch.tryAppend(2, null, new byte[4096], NO_HEADERS, null);
        Future<RecordMetadata> small = batch.tryAppend(3, null, bytes("small"), NO_HEADERS, null);

        assertThat(tooLarge).isNull();
        assertThat(small).as("appended after the batch refused a record, so its compressor stayed open").isNull();
        assertThat(batch.isFull()).isTrue();
        assertThat(batch.recordCount()).isEqualTo(1);
    }

    @Test
    void testThrowingCallbackDoesNotStopTheOthers() {
        ProducerBatch batch = batch(1024);
        List<Integer> calls = new ArrayList<>();
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, (metadata, error) -> {
            throw new IllegalStateException("application bug");
        });
        batch.tryAppend(2, null, bytes("b"), NO_HEADERS, (metadata, error) -> calls.add(2));

        batch.complete(0, -1);

        assertThat(calls).containsExactly(2);
        assertThat(batch.isDone()).isTrue();
    }

    @Test
    void testFailedBatchFailsEveryFutureAndCallback() {
        ProducerBatch batch = batch(1024);
        List<Exception> errors = new ArrayList<>();
        List<RecordMetadata> metadata = new ArrayList<>();
        Future<RecordMetadata> first = batch.tryAppend(1, null, bytes("a"), NO_HEADERS, (m, e) -> {
            metadata.add(m);
            errors.add(e);
        });
        NotEnoughReplicasException cause = new NotEnoughReplicasException("isr shrank");

        batch.fail(cause);

        assertThat(errors).containsExactly(cause);
        assertThat(metadata.get(0).partition()).isEqualTo(3);
        assertThat(metadata.get(0).hasOffset()).isFalse();
        assertThatThrownBy(first::get).isInstanceOf(ExecutionException.class).hasCause(cause);
    }

    @Test
    void testLogAppendTimeReplacesTheRecordTimestamp() throws Exception {
        ProducerBatch batch = batch(1024);
        Future<RecordMetadata> future = batch.tryAppend(1_000, null, bytes("a"), NO_HEADERS, null);

        batch.complete(5, 9_999);

        assertThat(future.get().timestamp()).isEqualTo(9_999);
    }

    @Test
    void testTryAppendReturnsNullWhenFull() {
        ProducerBatch batch = batch(200);
        int appended = 0;
        while (batch.tryAppend(1, null, new byte[40], NO_HEADERS, null) != null) {
            appended++;
        }

        assertThat(appended).isGreaterThan(1);
        assertThat(batch.recordCount()).isEqualTo(appended);
        assertThat(batch.estimatedSizeBytes()).isLessThanOrEqualTo(200);
    }

    @Test
    void testFirstRecordFitsEvenWhenLargerThanTheBatch() {
        ProducerBatch batch = batch(64);

        assertThat(batch.tryAppend(1, null, new byte[500], NO_HEADERS, null)).isNotNull();
        assertThat(batch.isFull()).isTrue();
        assertThat(batch.tryAppend(1, null, new byte[1], NO_HEADERS, null)).isNull();
    }

    @Test
    void testClosedForAppendsAcceptsNoRecord() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);

        batch.closeForAppends();

        assertThat(batch.tryAppend(2, null, bytes("b"), NO_HEADERS, null)).isNull();
    }

    @Test
    void testEveryCompressionTypeRoundTrips() {
        List<Compression> compressions = List.of(Compression.NONE, Compression.gzip().build(),
                Compression.gzip().level(9).build(), Compression.snappy().build(), Compression.lz4().build(),
                Compression.lz4().level(17).build(), Compression.zstd().build(), Compression.zstd().level(-5).build());
        for (Compression compression : compressions) {
            ProducerBatch batch = new ProducerBatch(TP, compression, 4096, 0);
            for (int i = 0; i < 3; i++) {
                Header[] headers = {new RecordHeader("h" + i, bytes("hv" + i))};
                batch.tryAppend(100 + i, i == 1 ? null : bytes("k" + i), bytes("value-" + i), headers, null);
            }

            MemoryRecords records = batch.records();

            List<String> decoded = new ArrayList<>();
            for (MutableRecordBatch wire : records.batches()) {
                assertThat(wire.compressionType()).as("%s", compression).isEqualTo(compression.type());
                for (Record record : wire) {
                    decoded.add(record.timestamp() + "|" + text(record.key()) + "|" + text(record.value()) + "|"
                            + record.headers()[0].key() + "=" + new String(record.headers()[0].value(), UTF_8));
                }
            }
            assertThat(decoded).as("%s", compression).containsExactly(
                    "100|k0|value-0|h0=hv0", "101|null|value-1|h1=hv1", "102|k2|value-2|h2=hv2");
        }
    }

    private static String text(ByteBuffer buffer) {
        return buffer == null ? "null" : new String(Utils.toArray(buffer), UTF_8);
    }

    @Test
    void testProducerStateIsWrittenIntoTheBatchHeader() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);
        batch.tryAppend(2, null, bytes("b"), NO_HEADERS, null);

        batch.setProducerState(77, (short) 3, 40, false);

        MutableRecordBatch wire = batch.records().batches().iterator().next();
        assertThat(wire.producerId()).isEqualTo(77);
        assertThat(wire.producerEpoch()).isEqualTo((short) 3);
        assertThat(wire.baseSequence()).isEqualTo(40);
        assertThat(wire.lastSequence()).isEqualTo(41);
    }

    @Test
    void testRecordsAreRewrittenWhenTheProducerEpochIsBumped() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);
        batch.setProducerState(77, (short) 3, 40, false);
        batch.records();

        batch.setProducerState(77, (short) 4, 0, false);

        MutableRecordBatch wire = batch.records().batches().iterator().next();
        assertThat(wire.producerEpoch()).isEqualTo((short) 4);
        assertThat(wire.baseSequence()).isEqualTo(0);
        wire.ensureValid();
    }

    @Test
    void testRetryResendsTheSameBytes() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);
        batch.setProducerState(77, (short) 3, 40, false);
        MemoryRecords first = batch.records();
        batch.markSent(5);

        batch.markSent(6);

        assertThat(batch.records().buffer()).isEqualTo(first.buffer());
        assertThat(batch.attempts()).isEqualTo(2);
        assertThat(batch.lastSentLeaderEpoch()).isEqualTo(6);
    }

    @Test
    void testARetriedBatchMayGoWhenItsBackoffEndsOrItsPartitionsEpochAdvances() {
        ProducerBatch batch = batch(1024);
        batch.markSent(5);

        batch.backOff(new EpochBackoff.State(1, 1, 5, 1_500, true));

        assertThat(batch.mayGo(5, 1_499)).isFalse();
        assertThat(batch.mayGo(5, 1_500)).isTrue();
        assertThat(batch.mayGo(6, 1_499)).isTrue();
    }

    @Test
    void testSplitHalvesTheRecordBytesKeepingOrderAndSequences() {
        ProducerBatch batch = batch(4096);
        for (String value : List.of("a".repeat(300), "b", "c", "d".repeat(100), "e")) {
            batch.tryAppend(1, null, bytes(value), NO_HEADERS, null);
        }
        batch.setProducerState(77, (short) 3, 40, false);

        List<ProducerBatch> halves = batch.split();

        assertThat(halves).extracting(ProducerBatch::recordCount).containsExactly(1, 4);
        assertThat(halves).extracting(ProducerBatch::baseSequence).containsExactly(40, 41);
        assertThat(halves).extracting(ProducerBatch::producerEpoch).containsExactly((short) 3, (short) 3);
        assertThat(halves).extracting(ProducerBatch::createdMs).containsExactly(1_000L, 1_000L);
        assertThat(halves).allMatch(ProducerBatch::recordsSentBefore).allMatch(ProducerBatch::isFull);
        List<String> values = new ArrayList<>();
        halves.forEach(half -> half.records().records().forEach(record -> values.add(text(record.value()).substring(0, 1))));
        assertThat(values).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void testEveryPieceOfASplitNumbersItsRecordsFromZeroAsABrokerRequires() {
        ProducerBatch batch = batch(8192);
        for (int i = 0; i < 8; i++) {
            batch.tryAppend(1_000 + i, null, bytes("value-" + i), NO_HEADERS, null);
        }
        List<ProducerBatch> halves = batch.split();
        List<ProducerBatch> pieces = new ArrayList<>(halves.get(0).split());
        pieces.addAll(halves.get(1).split());

        List<Long> timestamps = new ArrayList<>();
        for (ProducerBatch piece : pieces) {
            MutableRecordBatch written = piece.records().batches().iterator().next();
            // A broker refuses a batch whose offset range is not exactly its record count.
            assertThat(written.baseOffset()).isZero();
            assertThat(written.lastOffset() + 1).isEqualTo(piece.recordCount());
            assertThat(written.countOrNull()).isEqualTo(piece.recordCount());
            List<Long> offsets = new ArrayList<>();
            written.forEach(record -> {
                offsets.add(record.offset());
                timestamps.add(record.timestamp());
            });
            assertThat(offsets).isEqualTo(LongStream.range(0, piece.recordCount()).boxed().toList());
        }
        assertThat(timestamps).isEqualTo(LongStream.range(1_000, 1_008).boxed().toList());
    }

    @Test
    void testSplitRecordsEndWithTheirHalvesAndTheBatchAfterBoth() throws Exception {
        List<ProducerBatch> ended = new ArrayList<>();
        ProducerBatch batch = new ProducerBatch(TP, Compression.NONE, ByteBuffer.allocate(1024), 1024, 1_000, true, ended::add);
        List<String> calls = new ArrayList<>();
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int index = i;
            futures.add(batch.tryAppend(1, null, bytes("v" + i), NO_HEADERS,
                    (metadata, error) -> calls.add(index + "@" + metadata.offset())));
        }
        List<ProducerBatch> halves = batch.split();

        halves.get(1).complete(202, -1);
        halves.get(0).complete(200, -1);

        assertThat(calls).containsExactly("2@202", "3@203", "0@200", "1@201");
        assertThat(futures.get(3).get().offset()).isEqualTo(203);
        assertThat(futures.get(0).get().offset()).isEqualTo(200);
        assertThat(ended).containsExactly(halves.get(1), halves.get(0), batch);
        assertThat(batch.isDone()).isTrue();
        assertThat(batch.fail(new NotEnoughReplicasException("late"))).isFalse();
    }

    @Test
    void testAFutureWaitingOnASplitBatchFollowsItsRecord() throws Exception {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);
        Future<RecordMetadata> second = batch.tryAppend(1, null, bytes("b"), NO_HEADERS, null);
        CompletableFuture<RecordMetadata> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return second.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        List<ProducerBatch> halves = batch.split();
        assertThat(second).isNotDone();
        halves.get(1).complete(500, -1);

        assertThat(waiter.get(10, TimeUnit.SECONDS).offset()).isEqualTo(500);
        assertThat(second).isDone();
    }

    @Test
    void testTheHalvesOfASplitBatchCarryOnItsTimeline() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);
        batch.tryAppend(2, null, bytes("b"), NO_HEADERS, null);
        batch.timeline().sent(1, 5, 1_000);
        batch.timeline().answered("MESSAGE_TOO_LARGE", 1_008);

        List<ProducerBatch> halves = batch.split();
        halves.forEach(half -> half.timeline().ended(1_010));

        assertThat(halves).allSatisfy(half -> assertThat(half.timeline().stretches()).containsExactly(
                new BatchTimeline.Stretch(BatchPhase.IN_FLIGHT, 1, 5, 8, "MESSAGE_TOO_LARGE"),
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 2, null)));
    }

    @Test
    void testABatchThatEndedMeanwhileIsNotSplit() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);
        batch.tryAppend(2, null, bytes("b"), NO_HEADERS, null);
        batch.fail(new NotEnoughReplicasException("expired"));

        assertThat(batch.split()).isEmpty();
    }

    @Test
    void testASingleRecordCannotBeSplit() {
        ProducerBatch batch = batch(1024);
        batch.tryAppend(1, null, bytes("a"), NO_HEADERS, null);

        assertThatThrownBy(batch::split).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testReachesDeliveryTimeoutCountedFromCreation() {
        ProducerBatch batch = batch(1024);

        assertThat(batch.hasReachedDeliveryTimeout(120_000, 120_999)).isFalse();
        assertThat(batch.hasReachedDeliveryTimeout(120_000, 121_000)).isTrue();
    }
}
