package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.network.ConnectionListener;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData.LeaderIdAndEpoch;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData;

/**
 * The {@link Sender} against scripted brokers, on a clock the test moves: with the clock standing
 * still a retry can only go if its backoff was skipped, so the KIP-951 paths are seen without timing.
 */
@Timeout(60)
class SenderTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final long PRODUCER_ID = 1000;
    private static final long LINGER_MS = 10_000;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final List<Sent> produced = new CopyOnWriteArrayList<>();
    private final List<InitProducerIdRequestData> inits = new CopyOnWriteArrayList<>();
    /** The slow-batch log's lines, at the threshold a test sets ({@code fastleader.slow.batch.log.ms}). */
    private final List<String> slowBatchLines = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstProduce = new CountDownLatch(1);
    /** Produce answers the test gives by hand ({@link #startAnsweringLater}), by request index. */
    private final List<CompletableFuture<ApiMessage>> heldAnswers = new CopyOnWriteArrayList<>();
    private final AtomicInteger answersGiven = new AtomicInteger();
    private final AtomicLong retryReadinessChecks = new AtomicLong();
    /** For each Produce request as it reached the broker: how many held answers the test had given then. */
    private final List<Integer> answersGivenOnArrival = new CopyOnWriteArrayList<>();
    /** For each InitProducerId as the client started writing it: how many held answers the test had given then. */
    private final List<Integer> answersGivenWhenInitWritten = new CopyOnWriteArrayList<>();
    private final AtomicInteger metadataRequests = new AtomicInteger();
    /** How long, on the test's clock, the client takes to open a connection to node 1. */
    private volatile long connectToNode1Ms;
    private volatile int leader = 0;
    private volatile int leaderEpoch = 5;
    private volatile boolean refreshPassesTime;
    private final Metrics metrics = new Metrics();
    private ScriptedBrokers brokers;
    private ConnectionPool pool;
    private ClusterMetadata metadata;
    private RecordAccumulator accumulator;
    private Sender sender;

    /** One Produce request as a broker received it. */
    private record Sent(int node, long producerId, short producerEpoch, int baseSequence, int records) {
    }

    /** The answer to the n-th Produce request (0-based). */
    @FunctionalInterface
    private interface ProduceScript {
        ProduceResponseData answer(int node, int index) throws Exception;
    }

    @AfterEach
    void stop() throws Exception {
        if (sender != null) {
            accumulator.abortAll(new IllegalStateException("test over"));
            sender.forceClose();
            sender.whenEnded().get(10, TimeUnit.SECONDS);
            metadata.close();
            pool.close();
        }
        if (brokers != null) {
            brokers.close();
        }
        metrics.close();
    }

    @Test
    void testAnAcceptedHintSendsTheRetryToTheNewLeaderWithoutBackoff() throws Exception {
        start(Map.of(), (node, index) -> index == 0 ? hinted(1, 6) : written(42));

        RecordMetadata written = append().get(10, TimeUnit.SECONDS);

        assertThat(written.offset()).isEqualTo(42);
        assertThat(produced).containsExactly(new Sent(0, PRODUCER_ID, (short) 0, 0, 1), new Sent(1, PRODUCER_ID, (short) 0, 0, 1));
        assertThat(count(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isEqualTo(1);
        assertThat(count(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total")).isEqualTo(1);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-retry-total")).isEqualTo(1);
    }

    @Test
    void testALingerTimerGoesOnceItsBatchLeftBeforeItsLinger() throws Exception {
        start(Map.of(ProducerConfig.LINGER_MS_CONFIG, 60_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000),
                (node, index) -> written(7));
        Future<RecordMetadata> lingering = append();
        awaitSenderIdleWith(sender::hasTimedPass, "a pass timed for the batch's linger");

        Flush flush = accumulator.beginFlush();
        sender.wakeup();
        flush.await();

        assertThat(lingering.get(10, TimeUnit.SECONDS).offset()).isEqualTo(7);
        awaitSenderIdleWith(() -> true, "nothing left to do");
        assertThat(sender.hasTimedPass()).as("a pass timed for a batch that has gone").isFalse();
    }

    @Test
    void testAnEpochAdvanceLearnedFromMetadataEndsTheBackoff() throws Exception {
        start(Map.of(), (node, index) -> {
            if (index == 0) {
                // The refresh this refusal asks for will find the new leader.
                leader = 1;
                leaderEpoch = 6;
                return refused(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            }
            return written(7);
        });

        assertThat(append().get(10, TimeUnit.SECONDS).offset()).isEqualTo(7);

        assertThat(produced).extracting(Sent::node).containsExactly(0, 1);
        assertThat(count(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isZero();
        assertThat(count(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total")).isEqualTo(1);
    }

    @Test
    void testWithHintsDisabledTheRetryWaitsOutItsBackoff() throws Exception {
        start(Map.of(FastLeaderConfigs.LEADER_HINTS_ENABLED, false), (node, index) -> {
            if (index == 0) {
                leader = 1;
                leaderEpoch = 6;
                return hinted(1, 6);
            }
            return written(9);
        });
        Future<RecordMetadata> future = append();
        firstProduce.await(10, TimeUnit.SECONDS);
        awaitLeaderEpoch(6);

        clock.addAndGet(10_000);
        sender.wakeup();

        assertThat(future.get(10, TimeUnit.SECONDS).offset()).isEqualTo(9);
        assertThat(produced).extracting(Sent::node).containsExactly(0, 1);
        assertThat(count(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isZero();
        assertThat(count(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total")).isZero();
    }

    @Test
    void testWithAcksZeroABatchEndsOnceWrittenWithoutAnOffsetAndGoesOnce() throws Exception {
        start(Map.of(ProducerConfig.ACKS_CONFIG, "0"), (node, index) -> null);

        RecordMetadata written = append().get(10, TimeUnit.SECONDS);

        assertThat(written.hasOffset()).isFalse();
        assertThat(written.offset()).isEqualTo(-1);
        assertThat(written.partition()).isZero();
        assertThat(written.timestamp()).as("the record's own: no LogAppendTime comes back").isZero();
        awaitProduceRequests(1);
        awaitSenderIdleWith(() -> true, "nothing left to send");
        assertThat(produced).containsExactly(
                new Sent(0, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, 1));
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-send-total")).isEqualTo(1);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-retry-total")).isZero();
    }

    @Test
    void testWithAcksZeroAConnectionTheLeaderClosesRefreshesTheTopicAndLaterBatchesGoToTheNewLeader() throws Exception {
        start(Map.of(ProducerConfig.ACKS_CONFIG, "0"), (node, index) -> {
            if (node == 0) {
                // Node 0 is no longer the leader: a broker refuses an acks=0 request by closing the connection.
                leader = 1;
                leaderEpoch = 6;
                throw new IOException("not the leader");
            }
            return null;
        });

        // Written, so done: the client cannot know the broker refused it.
        assertThat(append().get(10, TimeUnit.SECONDS).hasOffset()).isFalse();
        awaitLeaderEpoch(6);
        assertThat(append().get(10, TimeUnit.SECONDS).hasOffset()).isFalse();

        awaitProduceRequests(2);
        assertThat(produced).extracting(Sent::node).containsExactly(0, 1);
        assertThat(refreshes("leader-error")).isEqualTo(1);
    }

    @Test
    void testWithAcksZeroABrokerThatClosedTheConnectionIsSentNothingUntilMetadataAnswers() throws Exception {
        CompletableFuture<ApiMessage> refreshed = new CompletableFuture<>();
        start(Map.of(ProducerConfig.ACKS_CONFIG, "0"), ScriptedBrokers.answeringLater(2, (node, api, request) -> {
            if (api == ApiKey.METADATA) {
                metadataRequests.incrementAndGet();
                // The refresh the close asks for is answered when the test says.
                return produced.isEmpty() ? CompletableFuture.completedFuture(brokers.metadataAnswer(TOPIC, TOPIC_ID, 0, 5))
                        : refreshed;
            }
            record(node, (ProduceRequestData) request);
            if (node == 0) {
                throw new IOException("not the leader");
            }
            return null;
        }));
        append().get(10, TimeUnit.SECONDS);
        spinUntil(() -> metadataRequests.get() == 2, "the refresh the close asks for");

        Future<RecordMetadata> held = append();
        awaitSenderIdleWith(() -> true, "the second batch held");
        assertThat(produced).as("nothing more to the broker that closed the connection").hasSize(1);
        refreshed.complete(brokers.metadataAnswer(TOPIC, TOPIC_ID, 1, 6));

        assertThat(held.get(10, TimeUnit.SECONDS).hasOffset()).isFalse();
        // Written is done for the client: the broker may read it a moment later.
        awaitProduceRequests(2);
        assertThat(produced).extracting(Sent::node).containsExactly(0, 1);
    }

    @Test
    void testALostSequenceBumpsTheEpochAndResequencesInOrder() throws Exception {
        startAnsweringLater();
        Future<RecordMetadata> first = sendEach(1).get(0);
        Future<RecordMetadata> second = append();
        awaitSenderIdleWith(() -> produced.size() == 1, "the second batch queued behind the first");

        // The first batch is at the sequence the broker should expect: it lost the producer's state.
        giveAnswer(0, refused(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
        awaitProduceRequests(2);
        giveAnswer(1, written(101));
        awaitProduceRequests(3);
        giveAnswer(2, written(102));

        assertThat(offsets(List.of(first, second))).containsExactly(101L, 102L);
        assertThat(produced).containsExactly(new Sent(0, PRODUCER_ID, (short) 0, 0, 1), new Sent(0, PRODUCER_ID, (short) 1, 0, 1),
                new Sent(0, PRODUCER_ID, (short) 1, 1, 1));
        assertThat(inits).hasSize(2);
        assertThat(inits.get(1).producerId()).isEqualTo(PRODUCER_ID);
        assertThat(inits.get(1).producerEpoch()).isZero();
    }

    @Test
    void testABatchRefusedAsTooLargeIsSplitAndEachRecordAcknowledgedOnceInOrder() throws Exception {
        List<String> callbacks = new CopyOnWriteArrayList<>();
        List<Future<RecordMetadata>> futures = sendFourRecordsInOneBatch(refusedOnceThenWrittenAtSequence(), callbacks);

        awaitEveryBatchEnded();

        List<Long> offsets = new ArrayList<>();
        for (Future<RecordMetadata> future : futures) {
            offsets.add(future.get().offset());
        }
        assertThat(offsets).containsExactly(100L, 101L, 102L, 103L);
        assertThat(callbacks).containsExactly("r0@100", "r1@101", "r2@102", "r3@103");
        assertThat(produced).extracting(Sent::records).containsExactly(4, 2, 2);
        assertThat(accumulator.hasIncomplete()).isFalse();
    }

    @Test
    void testTheHalvesOfASplitBatchKeepItsSequenceNumbers() throws Exception {
        sendFourRecordsInOneBatch(refusedOnceThenWrittenAtSequence(), new ArrayList<>());

        awaitEveryBatchEnded();

        assertThat(produced).containsExactly(new Sent(0, PRODUCER_ID, (short) 0, 0, 4),
                new Sent(0, PRODUCER_ID, (short) 0, 0, 2), new Sent(0, PRODUCER_ID, (short) 0, 2, 2));
        assertThat(inits).hasSize(1);
    }

    @Test
    void testASplitCountsItsResentRecordsAsSentAgainAndAsRetriesAndTheBatchAsSplit() throws Exception {
        sendFourRecordsInOneBatch(refusedOnceThenWrittenAtSequence(), new ArrayList<>());

        awaitEveryBatchEnded();

        // As in KafkaProducer, record-send counts every record of every Produce request.
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-send-total")).isEqualTo(8);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-retry-total")).isEqualTo(4);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "batch-split-total")).isEqualTo(1);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-error-total")).isZero();
    }

    @Test
    void testAHalfStillTooLargeIsSplitAgain() throws Exception {
        List<String> callbacks = new CopyOnWriteArrayList<>();
        sendFourRecordsInOneBatch((node, index) -> produced.get(index).records() > 1 ? refused(ErrorCode.MESSAGE_TOO_LARGE)
                : writtenAtSequence(index), callbacks);

        awaitEveryBatchEnded();

        assertThat(callbacks).containsExactly("r0@100", "r1@101", "r2@102", "r3@103");
        // The halves may be in flight together, so how their requests interleave is open; each record
        // still goes once more on its own, in sequence order.
        assertThat(produced).extracting(Sent::records).containsExactlyInAnyOrder(4, 2, 2, 1, 1, 1, 1);
        assertThat(produced).filteredOn(sent -> sent.records() == 1).extracting(Sent::baseSequence).containsExactly(0, 1, 2, 3);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "batch-split-total")).isEqualTo(3);
        assertThat(accumulator.hasIncomplete()).isFalse();
    }

    @Test
    void testASingleRecordTooLargeFailsAndItsPartitionCarriesOn() throws Exception {
        start(Map.of(), (node, index) -> index == 0 ? refused(ErrorCode.MESSAGE_TOO_LARGE) : written(7));

        assertThatThrownBy(() -> append().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RecordTooLargeException.class).hasMessageContaining("max.message.bytes");
        assertThat(append().get(10, TimeUnit.SECONDS).offset()).isEqualTo(7);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "record-error-total")).isEqualTo(1);
        assertThat(count(ProducerMetrics.KAFKA_GROUP, "batch-split-total")).isZero();
    }

    @Test
    void testABatchInFlightFailsAtTheDeliveryTimeout() throws Exception {
        start(Map.of(), (node, index) -> null);
        Future<RecordMetadata> future = append();
        firstProduce.await(10, TimeUnit.SECONDS);

        clock.addAndGet(30_000);
        sender.wakeup();

        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(TimeoutException.class).hasMessageContaining("delivery.timeout.ms");
    }

    @Test
    void testABrokenConnectionRetriesTheRequestsBatchesAfterBackoff() throws Exception {
        refreshPassesTime = true;
        start(Map.of(), (node, index) -> {
            if (index == 0) {
                throw new IOException("the broker drops the connection");
            }
            return written(5);
        });

        assertThat(append().get(10, TimeUnit.SECONDS).offset()).isEqualTo(5);
        assertThat(produced).containsExactly(new Sent(0, PRODUCER_ID, (short) 0, 0, 1), new Sent(0, PRODUCER_ID, (short) 0, 0, 1));
        assertThat(count(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total")).isZero();
    }

    @Test
    void testAPartitionsFirstBatchGoesAloneUntilTheBrokerWroteOne() throws Exception {
        startAnsweringLater();
        Future<RecordMetadata> first = sendEach(1).get(0);
        Future<RecordMetadata> second = append();

        awaitSenderIdleWith(() -> produced.size() == 1, "the second batch held back");
        giveAnswer(0, written(5));
        awaitProduceRequests(2);
        giveAnswer(1, written(6));

        assertThat(offsets(List.of(first, second))).containsExactly(5L, 6L);
        assertThat(answersGivenOnArrival).containsExactly(0, 1);
    }

    @Test
    void testAPartitionPipelinesItsBatchesUpToTheInFlightLimit() throws Exception {
        startAnsweringLater();
        writeFirstRecord();
        List<Future<RecordMetadata>> futures = sendEach(5);
        futures.add(append());

        awaitSenderIdleWith(() -> produced.size() == 6, "the sixth batch queued");
        giveAnswer(1, written(100));
        awaitProduceRequests(7);
        for (int i = 2; i < 7; i++) {
            giveAnswer(i, written(99 + i));
        }

        assertThat(offsets(futures)).containsExactly(100L, 101L, 102L, 103L, 104L, 105L);
        assertThat(answersGivenOnArrival).as("five in flight, the sixth after the first answer")
                .containsExactly(0, 1, 1, 1, 1, 1, 2);
        assertThat(produced).extracting(Sent::baseSequence).containsExactly(0, 1, 2, 3, 4, 5, 6);
    }

    @Test
    void testBatchesRefusedByAMovedLeaderGoToTheNewOneInOrderPipelinedOnceAllAreBack() throws Exception {
        startAnsweringLater();
        writeFirstRecord();
        List<Future<RecordMetadata>> futures = sendEach(3);
        leader = 1;
        leaderEpoch = 6;

        long checks = retryReadinessChecks.get();
        giveAnswer(1, hinted(1, 6));
        awaitRetryCheckedSince(checks, "the first batch waits in its queue while the others are in flight to the old leader");
        giveAnswer(2, hinted(1, 6));
        giveAnswer(3, hinted(1, 6));
        awaitProduceRequests(7);
        for (int i = 4; i < 7; i++) {
            giveAnswer(i, written(100 + i - 4));
        }

        assertThat(offsets(futures)).containsExactly(100L, 101L, 102L);
        assertThat(produced).extracting(Sent::node).containsExactly(0, 0, 0, 0, 1, 1, 1);
        assertThat(produced).extracting(Sent::baseSequence).containsExactly(0, 1, 2, 3, 1, 2, 3);
        assertThat(answersGivenOnArrival).as("all three resent together, after the old leader's last answer")
                .containsExactly(0, 1, 1, 1, 4, 4, 4);
        // The clock stood still: no retry waited for a backoff.
        assertThat(count(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total")).isEqualTo(3);
        assertThat(inits).hasSize(1);
    }

    @Test
    void testABatchRefusedOutOfOrderBehindARefusedBatchIsResentAfterItWithoutAnEpochBump() throws Exception {
        startAnsweringLater();
        writeFirstRecord();
        List<Future<RecordMetadata>> futures = sendEach(2);

        long checks = retryReadinessChecks.get();
        giveAnswer(1, refused(ErrorCode.NOT_ENOUGH_REPLICAS));
        awaitRetryCheckedSince(checks, "the first batch queued again");
        checks = retryReadinessChecks.get();
        giveAnswer(2, refused(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
        awaitRetryCheckedSince(checks, "the second batch queued again behind it");
        clock.addAndGet(10_000);
        sender.wakeup();
        awaitProduceRequests(5);
        giveAnswer(3, written(7));
        giveAnswer(4, written(8));

        assertThat(offsets(futures)).containsExactly(7L, 8L);
        assertThat(produced).extracting(Sent::baseSequence).containsExactly(0, 1, 2, 1, 2);
        assertThat(produced).extracting(Sent::producerEpoch).containsOnly((short) 0);
        assertThat(inits).hasSize(1);
    }

    @Test
    void testABatchRefusedOutOfOrderBehindBatchesAlreadyWrittenIsResentOnceUnderANewEpoch() throws Exception {
        startAnsweringLater();
        writeFirstRecord();
        List<Future<RecordMetadata>> futures = sendEach(2);

        // A broker wrote the third batch although it refused the second: the second's sequence is spent.
        long checks = retryReadinessChecks.get();
        giveAnswer(1, refused(ErrorCode.NOT_ENOUGH_REPLICAS));
        awaitRetryCheckedSince(checks, "the second batch queued again");
        giveAnswer(2, written(8));
        spinUntil(() -> futures.get(1).isDone(), "the third batch written");
        clock.addAndGet(10_000);
        sender.wakeup();
        awaitProduceRequests(4);
        giveAnswer(3, refused(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
        awaitProduceRequests(5);
        giveAnswer(4, written(9));

        assertThat(offsets(futures)).containsExactly(9L, 8L);
        assertThat(produced).extracting(Sent::baseSequence).containsExactly(0, 1, 2, 1, 0);
        assertThat(produced).extracting(Sent::producerEpoch).containsExactly((short) 0, (short) 0, (short) 0, (short) 0, (short) 1);
        assertThat(inits).hasSize(2);
    }

    @Test
    void testAnEpochBumpWaitsUntilNoBatchIsInFlight() throws Exception {
        startAnsweringLater();
        writeFirstRecord();
        List<Future<RecordMetadata>> futures = sendEach(2);

        long checks = retryReadinessChecks.get();
        giveAnswer(1, refused(ErrorCode.INVALID_PRODUCER_EPOCH));
        awaitRetryCheckedSince(checks, "the fenced batch queued again");
        giveAnswer(2, refused(ErrorCode.INVALID_PRODUCER_EPOCH));
        awaitProduceRequests(4);
        giveAnswer(3, written(7));
        awaitProduceRequests(5);
        giveAnswer(4, written(8));

        assertThat(offsets(futures)).containsExactly(7L, 8L);
        assertThat(answersGivenWhenInitWritten).as("the bump went out after the second batch's answer").containsExactly(0, 3);
        assertThat(produced).extracting(Sent::producerEpoch).containsExactly((short) 0, (short) 0, (short) 0, (short) 1, (short) 1);
        assertThat(produced).extracting(Sent::baseSequence).containsExactly(0, 1, 2, 0, 1);
    }

    @Test
    void testASlowBatchRefusedWithAHintShowsBothAttemptsAndNoBackoff() throws Exception {
        startAnsweringLater(Map.of(ProducerSettings.SLOW_BATCH_LOG_MS, 0));
        openConnection(0);
        openConnection(1);
        Future<RecordMetadata> future = sendEach(1).get(0);

        clock.addAndGet(12);
        giveAnswer(0, hinted(1, 6));
        awaitSenderIdleWith(() -> produced.size() == 2, "the batch resent to the new leader");
        clock.addAndGet(9);
        giveAnswer(1, written(42));
        future.get(10, TimeUnit.SECONDS);
        awaitSlowBatchLines(1);

        assertThat(slowBatchLines).containsExactly("Slow batch orders-0 (1 records) took 21 ms: in-flight node 0 epoch 5 12 ms "
                + "NOT_LEADER_OR_FOLLOWER, in-flight node 1 epoch 6 9 ms NONE");
        SlowBatchLines.assertPhasesAddUpToTheTotal(slowBatchLines.get(0));
    }

    @Test
    void testASlowBatchRetriedWithoutAHintShowsItsBackoffThenItsWaitForALeader() throws Exception {
        startAnsweringLater(Map.of(ProducerSettings.SLOW_BATCH_LOG_MS, 0));
        openConnection(0);
        openConnection(1);
        Future<RecordMetadata> future = sendEach(1).get(0);
        // The refresh the refusal asks for finds no leader, at the same epoch: the backoff is not skipped.
        leader = -1;

        clock.addAndGet(12);
        long checks = retryReadinessChecks.get();
        giveAnswer(0, refused(ErrorCode.NOT_LEADER_OR_FOLLOWER));
        awaitSenderIdleWith(() -> !metadata.cache().leadership(PARTITION).hasLeader() && retryReadinessChecks.get() > checks,
                "the batch backing off, its partition without a leader");
        int refreshes = metadataRequests.get();
        clock.addAndGet(100);
        sender.wakeup();
        spinUntil(() -> metadataRequests.get() > refreshes, "a refresh asked for by the batch with no leader to go to");
        clock.addAndGet(280);
        leaderEpoch = 6;
        leader = 1;
        awaitSenderIdleWith(() -> produced.size() == 2, "the batch sent to the leader a refresh named");
        clock.addAndGet(9);
        giveAnswer(1, written(42));
        future.get(10, TimeUnit.SECONDS);
        awaitSlowBatchLines(1);

        assertThat(slowBatchLines).containsExactly("Slow batch orders-0 (1 records) took 401 ms: in-flight node 0 epoch 5 12 ms "
                + "NOT_LEADER_OR_FOLLOWER, backoff 100 ms, metadata 280 ms, in-flight node 1 epoch 6 9 ms NONE");
        SlowBatchLines.assertPhasesAddUpToTheTotal(slowBatchLines.get(0));
    }

    @Test
    void testASlowBatchWhoseNewLeadersConnectionIsNotReadyShowsConnecting() throws Exception {
        connectToNode1Ms = 40;
        startAnsweringLater(Map.of(ProducerSettings.SLOW_BATCH_LOG_MS, 0));
        openConnection(0);
        Future<RecordMetadata> future = sendEach(1).get(0);

        clock.addAndGet(12);
        giveAnswer(0, hinted(1, 6));
        awaitProduceRequests(2);
        // The clock stays where the connect left it: the sender hears the connection is ready at a moment the test cannot see.
        giveAnswer(1, written(42));
        future.get(10, TimeUnit.SECONDS);
        awaitSlowBatchLines(1);

        assertThat(slowBatchLines).containsExactly("Slow batch orders-0 (1 records) took 52 ms: in-flight node 0 epoch 5 12 ms "
                + "NOT_LEADER_OR_FOLLOWER, connecting node 1 40 ms, in-flight node 1 epoch 6 0 ms NONE");
        SlowBatchLines.assertPhasesAddUpToTheTotal(slowBatchLines.get(0));
    }

    @Test
    void testASlowBatchHeldWhileLaterBatchesAreInFlightToTheOldLeaderShowsBehindInFlight() throws Exception {
        startAnsweringLater(Map.of(ProducerSettings.SLOW_BATCH_LOG_MS, 0));
        openConnection(0);
        openConnection(1);
        writeFirstRecord();
        List<Future<RecordMetadata>> futures = sendEach(2);

        clock.addAndGet(5);
        long checks = retryReadinessChecks.get();
        giveAnswer(1, hinted(1, 6));
        awaitRetryCheckedSince(checks, "the refused batch held");
        clock.addAndGet(3);
        giveAnswer(2, hinted(1, 6));
        awaitSenderIdleWith(() -> produced.size() == 5, "both batches resent to the new leader");
        clock.addAndGet(9);
        giveAnswer(3, written(100));
        giveAnswer(4, written(101));
        offsets(futures);
        awaitSlowBatchLines(3);

        assertThat(slowBatchLines).hasSize(3).element(1).isEqualTo("Slow batch orders-0 (1 records) took 17 ms: in-flight node 0 "
                + "epoch 5 5 ms NOT_LEADER_OR_FOLLOWER, behind-in-flight 3 ms, in-flight node 1 epoch 6 9 ms NONE");
        assertThat(slowBatchLines.get(2)).isEqualTo("Slow batch orders-0 (1 records) took 17 ms: in-flight node 0 epoch 5 8 ms "
                + "NOT_LEADER_OR_FOLLOWER, in-flight node 1 epoch 6 9 ms NONE");
        slowBatchLines.forEach(SlowBatchLines::assertPhasesAddUpToTheTotal);
    }

    @Test
    void testNoBatchIsLoggedAsSlowByDefault() throws Exception {
        // Slow by any threshold, yet under delivery.timeout.ms: a longer jump could expire the batch in
        // flight before its answer is handled, and it would fail instead of being written.
        start(Map.of(), (node, index) -> {
            clock.addAndGet(20_000);
            return written(1);
        });

        append().get(10, TimeUnit.SECONDS);
        // The batch ended on the sender's thread, which logs it, if at all, before it waits again.
        awaitSenderIdleWith(() -> true, "the written batch's end handled");

        assertThat(slowBatchLines).isEmpty();
    }

    /**
     * Appends r0 .. r3, which linger in one batch, then sends it to a broker answering by {@code produce};
     * each callback adds "value@offset" to {@code callbacks}.
     */
    private List<Future<RecordMetadata>> sendFourRecordsInOneBatch(ProduceScript produce, List<String> callbacks)
            throws Exception {
        // Batches wait for linger.ms on the test's clock, so the records appended one by one share one.
        start(Map.of(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000), produce);
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String value = "r" + i;
            futures.add(accumulator.append(PARTITION, 0L, null, value.getBytes(), new Header[0],
                    (metadata, error) -> callbacks.add(value + "@" + metadata.offset()), 1_000, clock::get).future());
        }
        clock.addAndGet(LINGER_MS);
        sender.wakeup();
        return futures;
    }

    /** The first Produce request is refused as too large; every later one is written at {@link #writtenAtSequence}. */
    private ProduceScript refusedOnceThenWrittenAtSequence() {
        return (node, index) -> index == 0 ? refused(ErrorCode.MESSAGE_TOO_LARGE) : writtenAtSequence(index);
    }

    /** The n-th request's batch written at offset 100 + its first sequence number, as if no other producer wrote. */
    private ProduceResponseData writtenAtSequence(int index) {
        return written(100 + produced.get(index).baseSequence());
    }

    /** Waits, as {@code flush()} does, until every batch has ended and its callbacks have run. */
    private void awaitEveryBatchEnded() throws InterruptedException {
        accumulator.beginFlush().await();
    }

    private void start(Map<String, Object> overrides, ProduceScript produce) throws Exception {
        start(overrides, new ScriptedBrokers(2, (node, api, request) -> answer(node, api, request, produce)));
    }

    private void startAnsweringLater() throws Exception {
        startAnsweringLater(Map.of());
    }

    /**
     * Starts a sender whose brokers hold every Produce answer until the test gives it ({@link #giveAnswer}),
     * with a batch per record ({@code batch.size} 1) and Kafka's 5 requests in flight per connection.
     */
    private void startAnsweringLater(Map<String, Object> overrides) throws Exception {
        Map<String, Object> configs = new HashMap<>(overrides);
        configs.put(ProducerConfig.BATCH_SIZE_CONFIG, 1);
        start(configs, ScriptedBrokers.answeringLater(2, (node, api, request) -> {
            if (api != ApiKey.PRODUCE) {
                return CompletableFuture.completedFuture(answer(node, api, request, null));
            }
            CompletableFuture<ApiMessage> held = new CompletableFuture<>();
            heldAnswers.add(held);
            answersGivenOnArrival.add(answersGiven.get());
            record(node, (ProduceRequestData) request);
            return held;
        }));
    }

    /** Sends one record and has the broker write it, so that the broker holds the producer's state for the partition. */
    private void writeFirstRecord() throws Exception {
        Future<RecordMetadata> first = sendEach(1).get(0);
        giveAnswer(produced.size() - 1, written(0));
        first.get(10, TimeUnit.SECONDS);
    }

    private void giveAnswer(int request, ProduceResponseData answer) {
        answersGiven.incrementAndGet();
        heldAnswers.get(request).complete(answer);
    }

    private void start(Map<String, Object> overrides, ScriptedBrokers scripted) throws Exception {
        brokers = scripted;
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        configs.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        configs.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        configs.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        configs.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        configs.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        configs.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        configs.putAll(overrides);
        ProducerSettings settings = ProducerSettings.parse(configs, null, null);
        pool = new ConnectionPool(settings.connectionConfig("sender-test"), settings.poolConfig(), node -> new ConnectionListener() {
            @Override
            public void connected() {
                if (node == 1) {
                    clock.addAndGet(connectToNode1Ms);
                }
            }

            @Override
            public void sent(ApiKey api, int bytes) {
                if (api == ApiKey.INIT_PRODUCER_ID) {
                    answersGivenWhenInitWritten.add(answersGiven.get());
                }
            }
        });
        metadata = new ClusterMetadata(settings.metadataConfig(), pool, settings.bootstrapServers(), metrics);
        metadata.awaitTopics(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
        ProducerMetrics producerMetrics = new ProducerMetrics(metrics);
        accumulator = new RecordAccumulator(new AccumulatorConfig(settings.batchSize(), settings.lingerMs(),
                settings.bufferMemory(), settings.compression(), settings.deliveryTimeoutMs(), settings.maxRequestSize()),
                producerMetrics, partition -> {
                    // Asked only of a queue whose first batch is a retry: the sight of a refused batch back in its queue.
                    retryReadinessChecks.incrementAndGet();
                    return metadata.cache().leaderEpoch(partition);
                }, settings.slowBatchLogMs() != SlowBatchLog.OFF);
        EpochBackoff policy = new EpochBackoff(new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), 0.2),
                () -> 0.5, settings.leaderHintsEnabled());
        sender = new Sender(accumulator, metadata, pool, settings, policy, producerMetrics,
                new SlowBatchLog(settings.slowBatchLogMs(), slowBatchLines::add), clock::get);
        sender.start();
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request, ProduceScript produce) throws Exception {
        switch (api) {
            case METADATA:
                metadataRequests.incrementAndGet();
                if (refreshPassesTime && !produced.isEmpty()) {
                    // The refresh a failure asks for comes after the failed batch was put back to back off.
                    clock.addAndGet(10_000);
                }
                return brokers.metadataAnswer(TOPIC, TOPIC_ID, leader, leaderEpoch);
            case INIT_PRODUCER_ID:
                inits.add((InitProducerIdRequestData) request);
                if (inits.size() > 1) {
                    // A bump follows a refused batch, which is backing off: let its backoff pass.
                    clock.addAndGet(10_000);
                }
                return new InitProducerIdResponseData().setProducerId(PRODUCER_ID).setProducerEpoch((short) (inits.size() - 1));
            case PRODUCE:
                int index = produced.size();
                record(node, (ProduceRequestData) request);
                return produce.answer(node, index);
            default:
                throw new IllegalArgumentException("unexpected " + api);
        }
    }

    private void record(int node, ProduceRequestData request) {
        RecordBatch batch = ((MemoryRecords) request.topicData().find(TOPIC).partitionData().get(0).records())
                .batches().iterator().next();
        produced.add(new Sent(node, batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.countOrNull()));
        firstProduce.countDown();
    }

    /** Appends one record at a time, each once the one before is at the brokers: a batch, and a request, each. */
    private List<Future<RecordMetadata>> sendEach(int records) throws InterruptedException {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            int sent = produced.size();
            futures.add(append());
            awaitProduceRequests(sent + 1);
        }
        return futures;
    }

    private static List<Long> offsets(List<Future<RecordMetadata>> futures) throws Exception {
        List<Long> offsets = new ArrayList<>();
        for (Future<RecordMetadata> future : futures) {
            offsets.add(future.get(10, TimeUnit.SECONDS).offset());
        }
        return offsets;
    }

    /**
     * Opens the client's connection to {@code node} ahead of the test, as prewarming would, so that
     * no batch waits for it: a batch that does is in flight from when the sender hears the
     * connection is ready, a moment the test cannot see.
     */
    private void openConnection(int node) throws Exception {
        pool.connect(node).get(10, TimeUnit.SECONDS);
        spinUntil(() -> pool.isReady(node), "the connection to node " + node + " ready");
    }

    /** The sender logs a batch once its callbacks ran, so after its future completed. */
    private void awaitSlowBatchLines(int count) {
        spinUntil(() -> slowBatchLines.size() >= count, count + " slow-batch lines");
    }

    private void awaitProduceRequests(int count) {
        spinUntil(() -> produced.size() >= count, count + " Produce requests at the brokers");
    }

    /**
     * Waits until the sender waits for work, everything it could do done, with {@code condition}
     * true. A sender that acted on it (sent a batch the condition says is queued) never gets there.
     */
    /** Waits for an idle sender that has checked the readiness of a queued retry since {@code checks} such checks. */
    private void awaitRetryCheckedSince(long checks, String what) {
        awaitSenderIdleWith(() -> retryReadinessChecks.get() > checks, what);
    }

    private void awaitSenderIdleWith(BooleanSupplier condition, String what) {
        spinUntil(() -> sender.isIdle() && condition.getAsBoolean(), "an idle sender with " + what);
    }

    /** Spins until {@code condition} holds; fails naming {@code what} if it does not within 10 s. */
    private static void spinUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("still waiting for %s", what).isNegative();
            Thread.onSpinWait();
        }
    }

    private Future<RecordMetadata> append() throws InterruptedException {
        Future<RecordMetadata> future = accumulator.append(PARTITION, 0L, null, "value".getBytes(), new Header[0], null, 1_000,
                clock::get).future();
        sender.wakeup();
        return future;
    }

    private void awaitLeaderEpoch(int epoch) throws Exception {
        CountDownLatch advanced = new CountDownLatch(1);
        metadata.cache().addListener((partition, previous, current) -> {
            if (current.leaderEpoch() >= epoch) {
                advanced.countDown();
            }
        }, Runnable::run);
        if (metadata.cache().leadership(PARTITION).leaderEpoch() < epoch) {
            assertThat(advanced.await(10, TimeUnit.SECONDS)).as("epoch %d learned from Metadata", epoch).isTrue();
        }
    }

    /** Metadata requests sent for {@code cause}, as the metric's tag names it. */
    private double refreshes(String cause) {
        return (double) metrics.metric(metrics.metricName("metadata-refreshes-total", MetadataMetrics.GROUP,
                Map.of("cause", cause))).metricValue();
    }

    private double count(String group, String name) {
        return (double) metrics.metric(metrics.metricName(name, group)).metricValue();
    }

    private static ProduceResponseData written(long baseOffset) {
        return response(new PartitionProduceResponse().setIndex(0).setBaseOffset(baseOffset));
    }

    private static ProduceResponseData refused(ErrorCode error) {
        return response(new PartitionProduceResponse().setIndex(0).setErrorCode(error.code()).setBaseOffset(-1));
    }

    private static ProduceResponseData hinted(int newLeader, int newEpoch) {
        return response(new PartitionProduceResponse().setIndex(0).setErrorCode(ErrorCode.NOT_LEADER_OR_FOLLOWER.code())
                .setBaseOffset(-1).setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(newLeader).setLeaderEpoch(newEpoch)));
    }

    private static ProduceResponseData response(PartitionProduceResponse partition) {
        ProduceResponseData response = new ProduceResponseData();
        TopicProduceResponse topic = new TopicProduceResponse().setName(TOPIC);
        topic.partitionResponses().add(partition);
        response.responses().add(topic);
        return response;
    }
}
