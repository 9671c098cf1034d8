package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.metadata.EpochBackoff;

class RecordAccumulatorTest {

    private static final TopicPartition TP0 = new TopicPartition("orders", 0);
    private static final TopicPartition TP1 = new TopicPartition("orders", 1);
    private static final Header[] NO_HEADERS = new Header[0];
    private static final int BATCH_SIZE = 1024;
    private static final long LINGER_MS = 10;
    private static final long DELIVERY_TIMEOUT_MS = 120_000;
    private static final int MAX_REQUEST_SIZE = 8192;
    private static final long NO_BLOCK = 0;

    /** Each partition's leader epoch as the accumulator reads it at readiness; -1 (unknown) when absent. */
    private final Map<TopicPartition, Integer> leaderEpochs = new HashMap<>();

    private RecordAccumulator accumulator(long bufferMemory) {
        return accumulator(bufferMemory, true);
    }

    private RecordAccumulator accumulator(long bufferMemory, boolean notesPhases) {
        return new RecordAccumulator(new AccumulatorConfig(BATCH_SIZE, LINGER_MS, bufferMemory, Compression.NONE,
                DELIVERY_TIMEOUT_MS, MAX_REQUEST_SIZE), new ProducerMetrics(new Metrics()),
                partition -> leaderEpochs.getOrDefault(partition, -1), notesPhases);
    }

    private final RecordAccumulator accumulator = accumulator(64 * 1024);

    private static AppendResult append(RecordAccumulator accumulator, TopicPartition tp, int valueBytes, long nowMs)
            throws InterruptedException {
        return accumulator.append(tp, nowMs, null, new byte[valueBytes], NO_HEADERS, null, NO_BLOCK, () -> nowMs);
    }

    private AppendResult append(TopicPartition tp, int valueBytes, long nowMs) throws InterruptedException {
        return append(accumulator, tp, valueBytes, nowMs);
    }

    private ProducerBatch drainOne(RecordAccumulator accumulator, TopicPartition tp, long nowMs) {
        List<ProducerBatch> drained = accumulator.drain(List.of(tp), MAX_REQUEST_SIZE, nowMs);
        assertThat(drained).hasSize(1);
        return drained.get(0);
    }

    /** Appends and drains {@code count} batches of TP0 one after another, each marked sent once. */
    private List<ProducerBatch> sendFromTP0(int count) throws InterruptedException {
        List<ProducerBatch> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            append(TP0, 10, i);
            ProducerBatch batch = drainOne(accumulator, TP0, i);
            batch.markSent(5);
            sent.add(batch);
        }
        return sent;
    }

    @Test
    void testBatchIsReadyWhenFull() throws Exception {
        AppendResult result;
        do {
            result = append(TP0, 100, 0);
        } while (!result.batchIsFull());

        assertThat(accumulator.ready(0).readyPartitions()).containsExactly(TP0);
    }

    @Test
    void testBatchIsReadyAfterLinger() throws Exception {
        append(TP0, 10, 1_000);

        ReadyCheck early = accumulator.ready(1_000 + LINGER_MS - 1);
        ReadyCheck lingered = accumulator.ready(1_000 + LINGER_MS);

        assertThat(early.readyPartitions()).isEmpty();
        assertThat(early.nextReadyCheckDelayMs()).isEqualTo(1);
        assertThat(lingered.readyPartitions()).containsExactly(TP0);
    }

    @Test
    void testNothingQueuedMeansNoReadyCheckIsDue() {
        assertThat(accumulator.ready(0).nextReadyCheckDelayMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testRecordsShareTheLastBatchUntilItIsFull() throws Exception {
        AppendResult first = append(TP0, 10, 0);
        AppendResult second = append(TP0, 10, 0);

        assertThat(first.newBatchCreated()).isTrue();
        assertThat(second.newBatchCreated()).isFalse();
        assertThat(drainOne(accumulator, TP0, 0).recordCount()).isEqualTo(2);
    }

    @Test
    void testAppendedBytesAreWhatEachRecordAddsToItsBatchTheNewBatchsHeaderIncluded() throws Exception {
        AppendResult first = append(TP0, 10, 0);
        AppendResult second = append(TP0, 10, 0);

        assertThat(first.appendedBytes() + second.appendedBytes()).isEqualTo(drainOne(accumulator, TP0, 0).estimatedSizeBytes());
        assertThat(first.appendedBytes()).isGreaterThan(second.appendedBytes());
    }

    @Test
    void testARecordStartsANewBatchOnlyWhereNoOpenBatchHasRoomForIt() throws Exception {
        append(TP0, 100, 0);
        while (!accumulator.startsNewBatch(TP0, 0, null, new byte[100], NO_HEADERS)) {
            append(TP0, 100, 0);
        }

        assertThat(accumulator.startsNewBatch(TP1, 0, null, new byte[100], NO_HEADERS)).as("a partition with no batch").isTrue();
        assertThat(accumulator.startsNewBatch(TP0, 0, null, new byte[1], NO_HEADERS))
                .as("the last batch refused a record, so it closed for appends").isTrue();
        assertThat(append(TP0, 1, 0).newBatchCreated()).isTrue();
    }

    @Test
    void testRecordLargerThanBatchSizeGetsItsOwnBatch() throws Exception {
        append(TP0, 10, 0);

        AppendResult large = append(TP0, 3 * BATCH_SIZE, 0);

        assertThat(large.newBatchCreated()).isTrue();
        assertThat(large.batchIsFull()).isTrue();
        List<ProducerBatch> batches = new ArrayList<>();
        batches.add(drainOne(accumulator, TP0, 0));
        batches.add(drainOne(accumulator, TP0, 0));
        assertThat(batches).extracting(ProducerBatch::recordCount).containsExactly(1, 1);
        assertThat(batches.get(1).estimatedSizeBytes()).isGreaterThan(3 * BATCH_SIZE);
    }

    @Test
    void testRecordLargerThanMaxRequestSizeIsRejected() {
        assertThatThrownBy(() -> append(TP0, MAX_REQUEST_SIZE, 0))
                .isInstanceOf(RecordTooLargeException.class)
                .hasMessageContaining("max.request.size (" + MAX_REQUEST_SIZE + ")");
    }

    @Test
    @Timeout(30)
    void testAppendBlocksUntilMemoryIsFreed() throws Exception {
        RecordAccumulator full = accumulator(BATCH_SIZE);
        append(full, TP0, 10, 0);
        CompletableFuture<AppendResult> blocked = appendInBackground(full, TP1, Long.MAX_VALUE);
        awaitWaitingAppender(full);
        assertThat(blocked).isNotDone();

        drainOne(full, TP0, 0).complete(0, -1);

        assertThat(blocked.get().newBatchCreated()).isTrue();
    }

    @Test
    @Timeout(30)
    void testAllPartitionsAreReadyWhileAppendersWaitForMemory() throws Exception {
        RecordAccumulator full = accumulator(BATCH_SIZE);
        append(full, TP0, 10, 0);
        assertThat(full.ready(0).readyPartitions()).isEmpty();

        CompletableFuture<AppendResult> blocked = appendInBackground(full, TP1, Long.MAX_VALUE);

        // Returns only once the lingering batch of TP0 counts as ready; the timeout fails the test otherwise.
        awaitWaitingAppender(full);

        full.close();
        assertThatThrownBy(blocked::join).hasCauseInstanceOf(KafkaException.class);
    }

    @Test
    void testAppendFailsAfterMaxBlockWhenMemoryStaysExhausted() throws Exception {
        RecordAccumulator full = accumulator(BATCH_SIZE);
        append(full, TP0, 10, 0);

        assertThatThrownBy(() -> full.append(TP1, 0, null, new byte[10], NO_HEADERS, null, 5, () -> 0))
                .isInstanceOf(BufferExhaustedException.class)
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("max.block.ms (5 ms)")
                .hasMessageContaining("buffer.memory (" + BATCH_SIZE + " bytes)");
    }

    @Test
    void testEndedBatchGivesItsMemoryBack() throws Exception {
        RecordAccumulator full = accumulator(BATCH_SIZE);
        append(full, TP0, 10, 0);
        ProducerBatch batch = drainOne(full, TP0, 0);
        batch.fail(new TimeoutException("gone"));

        assertThat(append(full, TP1, 10, 0).newBatchCreated()).isTrue();
        assertThat(full.hasIncomplete()).isTrue();
    }

    private static CompletableFuture<AppendResult> appendInBackground(RecordAccumulator accumulator,
                                                                      TopicPartition tp, long maxBlockMs) {
        CompletableFuture<AppendResult> result = new CompletableFuture<>();
        Thread appender = new Thread(() -> {
            try {
                result.complete(accumulator.append(tp, 0, null, new byte[10], NO_HEADERS, null, maxBlockMs, () -> 0));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, "blocked-appender");
        appender.setDaemon(true);
        appender.start();
        return result;
    }

    /**
     * Spins (the test's timeout bounds it) until an appender queues for memory, which the
     * accumulator shows by making TP0's lingering batch ready at once; no sleeping.
     */
    private static void awaitWaitingAppender(RecordAccumulator accumulator) {
        while (!accumulator.ready(0).readyPartitions().contains(TP0)) {
            Thread.onSpinWait();
        }
    }

    @Test
    void testAQueuesLoadIsItsLengthAtTheLastReadyCheck() throws Exception {
        for (int batch = 0; batch < 3; batch++) {
            append(TP0, BATCH_SIZE, 0);
        }
        assertThat(accumulator.queueLoad("orders", 0)).as("before any ready check").isZero();

        accumulator.ready(0);
        drainOne(accumulator, TP0, 0);
        assertThat(accumulator.queueLoad("orders", 0)).as("at the last ready check").isEqualTo(3);

        accumulator.ready(0);
        assertThat(accumulator.queueLoad("orders", 0)).isEqualTo(2);
    }

    @Test
    void testAPartitionNoBatchWasMadeForHasNoLoad() throws Exception {
        append(TP0, 10, 0);
        accumulator.ready(0);

        assertThat(accumulator.queueLoad("orders", 1)).isEqualTo(-1);
        assertThat(accumulator.queueLoad("payments", 0)).isEqualTo(-1);
    }

    @Test
    void testARetryAtTheFrontOfAQueueLeavesItsLoadAsItWas() throws Exception {
        append(TP0, BATCH_SIZE, 0);
        append(TP0, BATCH_SIZE, 0);
        accumulator.ready(0);
        ProducerBatch refused = drainOne(accumulator, TP0, 0);
        refused.markSent(5);
        append(TP0, BATCH_SIZE, 0);

        accumulator.reenqueue(refused);
        accumulator.ready(0);

        assertThat(accumulator.queueLoad("orders", 0)).as("three queued behind a leader move, counted as before it").isEqualTo(2);
    }

    @Test
    void testRetriedBatchGoesBackAtHeadOfItsPartition() throws Exception {
        append(TP0, 10, 0);
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        append(TP0, 10, 1);
        sent.markSent(5);

        accumulator.reenqueue(sent);

        assertThat(drainOne(accumulator, TP0, 100)).isSameAs(sent);
    }

    @Test
    void testReenqueuedBatchesGoBackInSequenceOrderWhateverOrderTheyFailedIn() throws Exception {
        List<ProducerBatch> sent = sendFromTP0(3);
        for (int i = 0; i < 3; i++) {
            sent.get(i).setProducerState(9, (short) 0, i * 10, false);
        }
        append(TP0, 10, 10);

        accumulator.reenqueue(sent.get(1));
        accumulator.reenqueue(sent.get(2));
        accumulator.reenqueue(sent.get(0));

        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            order.add(drainOne(accumulator, TP0, 100).baseSequence());
        }
        assertThat(order).containsExactly(0, 10, 20, -1);
    }

    @Test
    void testReenqueuedBatchesWithoutSequencesGoBackInTheOrderTheyWereMade() throws Exception {
        List<ProducerBatch> sent = sendFromTP0(3);
        append(TP0, 10, 10);

        accumulator.reenqueue(sent.get(2));
        accumulator.reenqueue(sent.get(0));
        accumulator.reenqueue(sent.get(1));

        List<ProducerBatch> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            order.add(drainOne(accumulator, TP0, 100));
        }
        assertThat(order).containsExactlyElementsOf(sent);
        assertThat(drainOne(accumulator, TP0, 100).attempts()).isZero();
    }

    @Test
    void testSplitHalvesTakeTheBatchsPlaceAtTheHeadOfItsPartition() throws Exception {
        append(TP0, 10, 0);
        append(TP0, 10, 0);
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        sent.setProducerState(9, (short) 0, 20, false);
        sent.markSent(5);
        append(TP0, 10, 1);

        assertThat(accumulator.splitAndReenqueue(sent)).isEqualTo(2);

        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            order.add(drainOne(accumulator, TP0, 100).baseSequence());
        }
        assertThat(order).containsExactly(20, 21, -1);
    }

    @Test
    void testThePiecesOfSplitHalvesGoBackInRecordOrderWhicheverHalfIsSplitFirst() throws Exception {
        for (int i = 0; i < 4; i++) {
            append(TP0, 10, 0);
        }
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        sent.setProducerState(9, (short) 0, 20, false);
        sent.markSent(5);
        accumulator.splitAndReenqueue(sent);
        ProducerBatch front = drainOne(accumulator, TP0, 0);
        ProducerBatch back = drainOne(accumulator, TP0, 0);

        accumulator.splitAndReenqueue(back);
        accumulator.splitAndReenqueue(front);

        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            order.add(drainOne(accumulator, TP0, 100).baseSequence());
        }
        assertThat(order).containsExactly(20, 21, 22, 23);
    }

    @Test
    void testFlushBegunBeforeASplitWaitsForBothHalves() throws Exception {
        append(TP0, 10, 0);
        append(TP0, 10, 0);
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        Flush flush = accumulator.beginFlush();
        accumulator.splitAndReenqueue(sent);

        drainOne(accumulator, TP0, 0).complete(0, -1);
        assertThat(flush.isDone()).isFalse();
        drainOne(accumulator, TP0, 0).complete(1, -1);

        assertThat(flush.isDone()).isTrue();
        flush.await();
        assertThat(accumulator.hasIncomplete()).isFalse();
    }

    @Test
    void testHalvesOfABatchSplitAfterAbortAllFailWithTheRest() throws Exception {
        append(TP0, 10, 0);
        Future<RecordMetadata> record = append(TP0, 10, 0).future();
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        List<ProducerBatch> halves = sent.split();
        KafkaException cause = new KafkaException("forced close");
        accumulator.abortAll(cause);

        halves.forEach(accumulator::reenqueue);

        assertThatThrownBy(record::get).isInstanceOf(ExecutionException.class).hasCause(cause);
        assertThat(accumulator.drain(List.of(TP0), MAX_REQUEST_SIZE, 0)).isEmpty();
    }

    @Test
    void testRetriedBatchIsNotReadyUntilItsBackoffEnds() throws Exception {
        refusedAtEpoch5BackingOffUntil500();
        leaderEpochs.put(TP0, 5);

        ReadyCheck backingOff = accumulator.ready(400);

        assertThat(backingOff.readyPartitions()).isEmpty();
        assertThat(backingOff.nextReadyCheckDelayMs()).isEqualTo(100);
        assertThat(accumulator.drain(List.of(TP0), MAX_REQUEST_SIZE, 400)).isEmpty();
        assertThat(accumulator.ready(500).readyPartitions()).containsExactly(TP0);
    }

    @Test
    void testRetryIsReadyAtOnceWhenItsPartitionsLeaderEpochAdvancedSinceItWasRefused() throws Exception {
        ProducerBatch batch = refusedAtEpoch5BackingOffUntil500();

        leaderEpochs.put(TP0, 6);

        assertThat(accumulator.ready(100).readyPartitions()).containsExactly(TP0);
        assertThat(accumulator.drain(List.of(TP0), MAX_REQUEST_SIZE, 100)).containsExactly(batch);
    }

    /** A batch of TP0 sent at leader epoch 5, refused, and queued again to back off until 500 ms. */
    private ProducerBatch refusedAtEpoch5BackingOffUntil500() throws InterruptedException {
        append(TP0, 10, 0);
        ProducerBatch batch = drainOne(accumulator, TP0, 0);
        batch.markSent(5);
        batch.backOff(new EpochBackoff.State(1, 1, 5, 500, true));
        accumulator.reenqueue(batch);
        return batch;
    }

    @Test
    void testDrainTakesAtMostOneBatchPerPartition() throws Exception {
        append(TP0, 10, 0);
        append(TP0, 2 * BATCH_SIZE, 0);
        append(TP1, 10, 0);

        List<ProducerBatch> drained = accumulator.drain(List.of(TP1, TP0), MAX_REQUEST_SIZE, 0);

        assertThat(drained).extracting(ProducerBatch::topicPartition).containsExactly(TP1, TP0);
        assertThat(drained.get(1).recordCount()).isEqualTo(1);
    }

    @Test
    void testDrainLeavesBatchesThatWouldExceedTheRequestSize() throws Exception {
        append(TP0, 600, 0);
        append(TP1, 600, 0);

        List<ProducerBatch> drained = accumulator.drain(List.of(TP0, TP1), 1000, 0);

        assertThat(drained).extracting(ProducerBatch::topicPartition).containsExactly(TP0);
        assertThat(accumulator.drain(List.of(TP1), 1000, 0)).hasSize(1);
    }

    @Test
    void testAPartitionWithABatchTakenIsReadyForItsNextFullBatch() throws Exception {
        int batches = 0;
        while (batches < 3) {
            batches += append(TP0, 100, 0).newBatchCreated() ? 1 : 0;
        }
        ProducerBatch first = drainOne(accumulator, TP0, 0);

        assertThat(accumulator.ready(0).readyPartitions()).containsExactly(TP0);
        ProducerBatch second = drainOne(accumulator, TP0, 0);
        assertThat(second).isNotSameAs(first);
        assertThat(accumulator.ready(0).readyPartitions()).as("the last batch lingers").isEmpty();
    }

    @Test
    void testReadyCheckTakesOutTheBatchesPastTheirDeliveryTimeout() throws Exception {
        append(TP0, 10, 0);
        append(TP1, 10, 50);

        assertThat(accumulator.ready(DELIVERY_TIMEOUT_MS - 1).expiredBatches()).isEmpty();
        ReadyCheck check = accumulator.ready(DELIVERY_TIMEOUT_MS);

        assertThat(check.expiredBatches()).extracting(ProducerBatch::topicPartition).containsExactly(TP0);
        assertThat(check.readyPartitions()).containsExactly(TP1);
        assertThat(accumulator.drain(List.of(TP0, TP1), MAX_REQUEST_SIZE, DELIVERY_TIMEOUT_MS))
                .extracting(ProducerBatch::topicPartition).containsExactly(TP1);
    }

    @Test
    void testFlushWaitsForBatchesAppendedBeforeIt() throws Exception {
        Future<RecordMetadata> before = append(TP0, 10, 0).future();
        Flush flush = accumulator.beginFlush();
        Future<RecordMetadata> after = append(TP1, 10, 0).future();
        assertThat(flush.isDone()).isFalse();

        drainOne(accumulator, TP0, 0).complete(0, -1);

        assertThat(flush.isDone()).isTrue();
        flush.await();
        assertThat(before).isDone();
        assertThat(after).isNotDone();
    }

    @Test
    void testFlushMakesLingeringBatchesReady() throws Exception {
        append(TP0, 10, 0);

        Flush flush = accumulator.beginFlush();

        assertThat(accumulator.ready(0).readyPartitions()).containsExactly(TP0);
        drainOne(accumulator, TP0, 0).complete(0, -1);
        flush.await();
        append(TP1, 10, 0);
        assertThat(accumulator.ready(0).readyPartitions()).isEmpty();
    }

    @Test
    void testCloseMakesEveryBatchReadyAndRefusesAppends() throws Exception {
        append(TP0, 10, 0);

        accumulator.close();

        assertThat(accumulator.ready(0).readyPartitions()).containsExactly(TP0);
        assertThatThrownBy(() -> append(TP0, 10, 0)).isInstanceOf(KafkaException.class).hasMessageContaining("closed");
    }

    @Test
    void testAbortAllFailsQueuedAndInFlightBatches() throws Exception {
        Future<RecordMetadata> inFlight = append(TP0, 10, 0).future();
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        Future<RecordMetadata> queued = append(TP1, 10, 0).future();
        KafkaException cause = new KafkaException("forced close");

        accumulator.abortAll(cause);

        assertThatThrownBy(inFlight::get).isInstanceOf(ExecutionException.class).hasCause(cause);
        assertThatThrownBy(queued::get).isInstanceOf(ExecutionException.class).hasCause(cause);
        assertThat(sent.complete(0, -1)).isFalse();
        assertThat(accumulator.hasIncomplete()).isFalse();
        assertThat(accumulator.ready(0).readyPartitions()).isEmpty();
    }

    @Test
    void testAbortedBatchIsNotReenqueued() throws Exception {
        append(TP0, 10, 0);
        ProducerBatch sent = drainOne(accumulator, TP0, 0);
        accumulator.abortAll(new KafkaException("forced close"));

        accumulator.reenqueue(sent);

        assertThat(accumulator.drain(List.of(TP0), MAX_REQUEST_SIZE, 0)).isEmpty();
    }

    @Test
    void testABatchLeftBehindByADrainIsNotedQueuedAgain() throws Exception {
        append(TP0, BATCH_SIZE, 0);
        append(TP0, 10, 0);

        accumulator.markWaiting(TP0, BatchPhase.METADATA, 2);
        drainOne(accumulator, TP0, 5);
        ProducerBatch left = drainOne(accumulator, TP0, 9);
        left.timeline().ended(9);

        assertThat(left.timeline().stretches()).containsExactly(
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 2, null),
                new BatchTimeline.Stretch(BatchPhase.METADATA, -1, -1, 3, null),
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 4, null));
    }

    @Test
    void testABatchAppendedWhileItsQueueWaitsIsNotedInTheQueuesPhase() throws Exception {
        append(TP0, BATCH_SIZE, 0);
        accumulator.markWaiting(TP0, BatchPhase.METADATA, 2);
        append(TP0, 10, 4);

        accumulator.markWaiting(TP0, BatchPhase.METADATA, 6);
        drainOne(accumulator, TP0, 8);
        ProducerBatch appended = drainOne(accumulator, TP0, 9);
        appended.timeline().ended(9);

        assertThat(appended.timeline().stretches()).containsExactly(
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 2, null),
                new BatchTimeline.Stretch(BatchPhase.METADATA, -1, -1, 2, null),
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 1, null));
    }

    @Test
    void testARetryPutBackWhileItsQueueWaitsIsNotedInTheQueuesPhase() throws Exception {
        append(TP0, BATCH_SIZE, 0);
        append(TP0, 10, 0);
        ProducerBatch retried = drainOne(accumulator, TP0, 1);
        retried.markSent(5);
        retried.timeline().sent(0, 5, 1);
        accumulator.markWaiting(TP0, BatchPhase.METADATA, 2);
        retried.timeline().answered("NOT_LEADER_OR_FOLLOWER", 3);
        accumulator.reenqueue(retried);

        accumulator.markWaiting(TP0, BatchPhase.METADATA, 5);
        retried.timeline().ended(7);

        assertThat(retried.timeline().stretches()).containsExactly(
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 1, null),
                new BatchTimeline.Stretch(BatchPhase.IN_FLIGHT, 0, 5, 2, "NOT_LEADER_OR_FOLLOWER"),
                new BatchTimeline.Stretch(BatchPhase.QUEUED, -1, -1, 2, null),
                new BatchTimeline.Stretch(BatchPhase.METADATA, -1, -1, 2, null));
    }

    @Test
    void testAQueueNotedInTheSamePhaseAgainIsNotWalked() throws Exception {
        append(TP0, 10, 0);
        ProducerBatch retried = drainOne(accumulator, TP0, 1);
        retried.markSent(5);
        retried.timeline().sent(0, 5, 1);
        retried.timeline().answered("NOT_LEADER_OR_FOLLOWER", 2);
        accumulator.reenqueue(retried);
        accumulator.markWaiting(TP0, BatchPhase.QUEUED, 3);
        // Changed behind the queue's back, which no caller does: only a walk of the queue would undo it.
        retried.timeline().waiting(BatchPhase.BACKOFF, BatchTimeline.NO_NODE, 4);

        accumulator.markWaiting(TP0, BatchPhase.QUEUED, 6);
        drainOne(accumulator, TP0, 9);
        retried.timeline().ended(9);

        assertThat(retried.timeline().stretches()).endsWith(new BatchTimeline.Stretch(BatchPhase.BACKOFF, -1, -1, 5, null));
    }

    @Test
    void testBatchesKeepNoTimelineWhenPhasesAreNotNoted() throws Exception {
        RecordAccumulator quiet = accumulator(64 * 1024, false);
        append(quiet, TP0, BATCH_SIZE, 0);
        append(quiet, TP0, 10, 0);

        quiet.ready(LINGER_MS);
        ProducerBatch first = drainOne(quiet, TP0, LINGER_MS);
        quiet.markWaiting(TP0, BatchPhase.METADATA, LINGER_MS + 1);
        ProducerBatch second = drainOne(quiet, TP0, LINGER_MS + 2);

        assertThat(List.of(first, second)).allSatisfy(batch -> assertThat(batch.timeline()).isSameAs(BatchTimeline.untracked()));
    }
}
