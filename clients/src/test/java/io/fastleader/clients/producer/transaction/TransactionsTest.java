package io.fastleader.clients.producer.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.clients.producer.transaction.Transactions.Step;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AddOffsetsToTxnResponseData;
import io.fastleader.protocol.message.AddPartitionsToTxnRequestData;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import io.fastleader.protocol.message.EndTxnRequestData;
import io.fastleader.protocol.message.EndTxnResponseData;
import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.TxnOffsetCommitRequestData;
import io.fastleader.protocol.message.TxnOffsetCommitResponseData;
import io.fastleader.protocol.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import io.fastleader.protocol.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;

class TransactionsTest {

    private static final String TRANSACTIONAL_ID = "txn-1";
    private static final int TRANSACTION_TIMEOUT_MS = 60_000;
    private static final long RETRY_BACKOFF_MS = 100;
    private static final long PRODUCER_ID = 42;
    private static final short EPOCH = 3;
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final TopicPartition OFFSETS_TP = new TopicPartition("input", 1);
    private static final ConsumerGroupMetadata GROUP =
            new ConsumerGroupMetadata("group-a", 7, "member-1", Optional.of("instance-1"));

    private final List<String> identities = new ArrayList<>();
    private final Transactions transactions = new Transactions(TRANSACTIONAL_ID, TRANSACTION_TIMEOUT_MS, RETRY_BACKOFF_MS,
            (producerId, epoch) -> identities.add(producerId + "/" + epoch));
    private long nowMs = 1_000;

    // ---- Helpers.

    private static InitProducerIdResponseData initResponse(ErrorCode error, long producerId, short epoch) {
        return new InitProducerIdResponseData().setErrorCode(error.code()).setProducerId(producerId).setProducerEpoch(epoch);
    }

    private static AddPartitionsToTxnResponseData addPartitionsResponse(TopicPartition partition, ErrorCode error) {
        AddPartitionsToTxnTopicResult topic = new AddPartitionsToTxnTopicResult().setName(partition.topic());
        topic.resultsByPartition().add(new AddPartitionsToTxnPartitionResult()
                .setPartitionIndex(partition.partition()).setPartitionErrorCode(error.code()));
        AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
        response.resultsByTopicV3AndBelow().add(topic);
        return response;
    }

    private static TxnOffsetCommitResponseData txnOffsetCommitResponse(TopicPartition partition, ErrorCode error) {
        TxnOffsetCommitResponseTopic topic = new TxnOffsetCommitResponseTopic().setName(partition.topic());
        topic.partitions().add(new TxnOffsetCommitResponsePartition()
                .setPartitionIndex(partition.partition()).setErrorCode(error.code()));
        TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        response.topics().add(topic);
        return response;
    }

    private static EndTxnResponseData endTxnResponse(ErrorCode error) {
        return new EndTxnResponseData().setErrorCode(error.code());
    }

    private static Object body(Step step) {
        return step.request().at(step.highestVersion());
    }

    /** initTransactions to its end: the producer holds PRODUCER_ID at EPOCH, READY. */
    private void initialized() {
        TransactionCall call = transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);
        assertThat(step.api()).isEqualTo(ApiKey.INIT_PRODUCER_ID);
        transactions.answered(step, initResponse(ErrorCode.NONE, PRODUCER_ID, EPOCH), null, nowMs);
        call.await(0, "init");
        identities.clear();
    }

    /** Under transaction version {@code version}: initialized, a transaction begun. */
    private void inTransaction(int version) {
        transactions.clusterTransactionVersion((short) version);
        initialized();
        transactions.beginTransaction();
    }

    /** A transaction begun under version 1 to which TP was added. */
    private void inTransactionWithPartitionAdded() {
        inTransaction(1);
        transactions.checkSend(TP);
        Step add = transactions.nextStep(false, nowMs);
        assertThat(add.api()).isEqualTo(ApiKey.ADD_PARTITIONS_TO_TXN);
        transactions.answered(add, addPartitionsResponse(TP, ErrorCode.NONE), null, nowMs);
    }

    private static boolean isDone(TransactionCall call) {
        return call.isDone();
    }

    // ---- initTransactions.

    @Test
    void testInitTransactionsSendsInitProducerIdWithTransactionalIdAndTimeoutAndNoIdentity() {
        TransactionCall call = transactions.initTransactions();
        assertThat(transactions.state()).isEqualTo(TransactionState.INITIALIZING);

        Step step = transactions.nextStep(false, nowMs);

        assertThat(step.api()).isEqualTo(ApiKey.INIT_PRODUCER_ID);
        assertThat(step.groupId()).isNull();
        InitProducerIdRequestData request = (InitProducerIdRequestData) body(step);
        assertThat(request.transactionalId()).isEqualTo(TRANSACTIONAL_ID);
        assertThat(request.transactionTimeoutMs()).isEqualTo(TRANSACTION_TIMEOUT_MS);
        assertThat(request.producerId()).isEqualTo(-1L);
        assertThat(request.producerEpoch()).isEqualTo((short) -1);
        assertThat(isDone(call)).isFalse();
    }

    @Test
    void testInitProducerIdAnswerGivesIdentityAndCompletesCall() {
        TransactionCall call = transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(step, initResponse(ErrorCode.NONE, PRODUCER_ID, EPOCH), null, nowMs);

        assertThat(lookup).isFalse();
        assertThat(identities).containsExactly(PRODUCER_ID + "/" + EPOCH);
        assertThat(isDone(call)).isTrue();
        call.await(0, "init");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    // ---- Partitions.

    @Test
    void testPartitionIsNotSendableUntilAddPartitionsToTxnAnsweredUnderVersion1() {
        inTransaction(1);
        transactions.checkSend(TP);
        assertThat(transactions.maySend(TP)).isFalse();

        Step add = transactions.nextStep(false, nowMs);

        assertThat(add.api()).isEqualTo(ApiKey.ADD_PARTITIONS_TO_TXN);
        AddPartitionsToTxnRequestData request = (AddPartitionsToTxnRequestData) body(add);
        assertThat(request.v3AndBelowTransactionalId()).isEqualTo(TRANSACTIONAL_ID);
        assertThat(request.v3AndBelowProducerId()).isEqualTo(PRODUCER_ID);
        assertThat(request.v3AndBelowProducerEpoch()).isEqualTo(EPOCH);
        assertThat(request.v3AndBelowTopics().find(TP.topic()).partitions()).containsExactly(TP.partition());
        assertThat(transactions.maySend(TP)).isFalse();

        transactions.answered(add, addPartitionsResponse(TP, ErrorCode.NONE), null, nowMs);

        assertThat(transactions.maySend(TP)).isTrue();
        assertThat(transactions.partitionsInTransaction()).containsExactly(TP);
    }

    @Test
    void testPartitionIsSendableAtOnceWithoutAddPartitionsToTxnUnderVersion2() {
        inTransaction(2);
        transactions.checkSend(TP);

        assertThat(transactions.maySend(TP)).isTrue();
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    // ---- Versions.

    @Test
    void testCapsEndTxnAt4AndProduceAt11UnderVersion1() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();

        Step end = transactions.nextStep(false, nowMs);

        assertThat(end.api()).isEqualTo(ApiKey.END_TXN);
        assertThat(end.highestVersion()).isEqualTo((short) 4);
        assertThat(transactions.highestProduceVersion()).isEqualTo((short) 11);
        assertThat(isDone(commit)).isFalse();
    }

    @Test
    void testEndTxnAt5AndProduceUncappedUnderVersion2() {
        inTransaction(2);
        transactions.checkSend(TP);
        transactions.commitTransaction();

        Step end = transactions.nextStep(false, nowMs);

        assertThat(end.api()).isEqualTo(ApiKey.END_TXN);
        assertThat(end.highestVersion()).isEqualTo((short) 5);
        assertThat(transactions.highestProduceVersion()).isEqualTo(ApiKey.PRODUCE.highestVersion());
    }

    // ---- Commit.

    @Test
    void testHoldsEndTxnWhileBatchesIncomplete() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        assertThat(transactions.state()).isEqualTo(TransactionState.COMMITTING);

        assertThat(transactions.nextStep(true, nowMs)).isNull();

        Step end = transactions.nextStep(false, nowMs);
        assertThat(end.api()).isEqualTo(ApiKey.END_TXN);
        EndTxnRequestData request = (EndTxnRequestData) body(end);
        assertThat(request.committed()).isTrue();
        assertThat(request.transactionalId()).isEqualTo(TRANSACTIONAL_ID);
        assertThat(request.producerId()).isEqualTo(PRODUCER_ID);
        assertThat(request.producerEpoch()).isEqualTo(EPOCH);
        assertThat(isDone(commit)).isFalse();
    }

    @Test
    void testCommitCompletesOnEndTxnAnsweredNone() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        Step end = transactions.nextStep(false, nowMs);

        transactions.answered(end, endTxnResponse(ErrorCode.NONE), null, nowMs);

        commit.await(0, "commit");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
        assertThat(transactions.partitionsInTransaction()).isEmpty();
        assertThat(identities).isEmpty();
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    @Test
    void testEndTxnAnswerIdentityReachesListenerUnderVersion2() {
        inTransaction(2);
        transactions.checkSend(TP);
        TransactionCall commit = transactions.commitTransaction();
        assertThat(transactions.nextStep(true, nowMs)).isNull();
        Step end = transactions.nextStep(false, nowMs);

        transactions.answered(end, endTxnResponse(ErrorCode.NONE).setProducerId(PRODUCER_ID).setProducerEpoch((short) 4),
                null, nowMs);

        commit.await(0, "commit");
        assertThat(identities).containsExactly(PRODUCER_ID + "/4");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
    }

    @Test
    void testCommitOfTransactionWithNothingSentEndsLocally() {
        inTransaction(1);
        TransactionCall commit = transactions.commitTransaction();

        assertThat(transactions.nextStep(false, nowMs)).isNull();

        commit.await(0, "commit");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
    }

    // ---- Retries.

    @Test
    void testSkipsBackoffOnFirstRetryToNewCoordinator() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(step, initResponse(ErrorCode.NOT_COORDINATOR, -1, (short) -1), null, nowMs);

        assertThat(lookup).isTrue();
        assertThat(transactions.untilNextStepMs(nowMs)).isZero();
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testSkipsBackoffOnDisconnection() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(step, null, new DisconnectException("gone"), nowMs);

        assertThat(lookup).isTrue();
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testSkipsBackoffOnRetriableFailure() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(step, null, new TimeoutException("no answer"), nowMs);

        assertThat(lookup).isTrue();
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testBacksOffOnSecondNotCoordinatorInARow() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);
        transactions.answered(step, initResponse(ErrorCode.NOT_COORDINATOR, -1, (short) -1), null, nowMs);
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);

        boolean lookup = transactions.answered(step, initResponse(ErrorCode.NOT_COORDINATOR, -1, (short) -1), null, nowMs);

        assertThat(lookup).isTrue();
        assertThat(transactions.untilNextStepMs(nowMs)).isEqualTo(RETRY_BACKOFF_MS);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        nowMs += RETRY_BACKOFF_MS - 1;
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        nowMs += 1;
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testSkipsBackoffOnNotCoordinatorAfterAnotherError() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);
        transactions.answered(step, initResponse(ErrorCode.NOT_COORDINATOR, -1, (short) -1), null, nowMs);
        transactions.nextStep(false, nowMs);
        transactions.answered(step, initResponse(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, -1, (short) -1), null, nowMs);
        nowMs += RETRY_BACKOFF_MS;
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);

        transactions.answered(step, initResponse(ErrorCode.NOT_COORDINATOR, -1, (short) -1), null, nowMs);

        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testBacksOffOnCoordinatorLoadInProgress() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(step,
                initResponse(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, -1, (short) -1), null, nowMs);

        assertThat(lookup).isFalse();
        assertThat(transactions.untilNextStepMs(nowMs)).isEqualTo(RETRY_BACKOFF_MS);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        nowMs += RETRY_BACKOFF_MS;
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testBacksOffShortlyOnConcurrentTransactionsToFirstAddPartitions() {
        inTransaction(1);
        transactions.checkSend(TP);
        Step add = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(add, addPartitionsResponse(TP, ErrorCode.CONCURRENT_TRANSACTIONS), null, nowMs);

        assertThat(lookup).isFalse();
        assertThat(transactions.untilNextStepMs(nowMs)).isEqualTo(Transactions.CONCURRENT_TRANSACTIONS_BACKOFF_MS);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        nowMs += Transactions.CONCURRENT_TRANSACTIONS_BACKOFF_MS;
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(add);
        assertThat(transactions.maySend(TP)).isFalse();
    }

    // ---- Fencing.

    @ParameterizedTest
    @EnumSource(value = ErrorCode.class, names = {"PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH"})
    void testFencedEndTxnFailsCommitFatally(ErrorCode error) {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        Step end = transactions.nextStep(false, nowMs);

        transactions.answered(end, endTxnResponse(error), null, nowMs);

        assertThatThrownBy(() -> commit.await(0, "commit")).isInstanceOf(ProducerFencedException.class);
        assertThat(transactions.state()).isEqualTo(TransactionState.FATAL_ERROR);
        assertThat(transactions.maySend(TP)).isFalse();
        assertThatThrownBy(() -> transactions.checkSend(TP)).isInstanceOf(ProducerFencedException.class);
    }

    // ---- Abortable errors.

    @Test
    void testBatchFailureMakesTransactionAbortable() {
        inTransactionWithPartitionAdded();

        transactions.batchFailed(new TimeoutException("x"));

        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);
        assertThatThrownBy(transactions::commitTransaction)
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Cannot execute transactional method because we are in an error state");
        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);
    }

    @Test
    void testAbortAfterBatchFailureBumpsEpochBeforeCompletingUnderVersion1() {
        inTransactionWithPartitionAdded();
        transactions.batchFailed(new TimeoutException("x"));

        TransactionCall abort = transactions.abortTransaction();
        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTING);
        Step end = transactions.nextStep(false, nowMs);
        assertThat(end.api()).isEqualTo(ApiKey.END_TXN);
        assertThat(((EndTxnRequestData) body(end)).committed()).isFalse();
        transactions.answered(end, endTxnResponse(ErrorCode.NONE), null, nowMs);

        assertThat(isDone(abort)).isFalse();
        Step bump = transactions.nextStep(false, nowMs);
        assertThat(bump.api()).isEqualTo(ApiKey.INIT_PRODUCER_ID);
        InitProducerIdRequestData request = (InitProducerIdRequestData) body(bump);
        assertThat(request.producerId()).isEqualTo(PRODUCER_ID);
        assertThat(request.producerEpoch()).isEqualTo(EPOCH);
        transactions.answered(bump, initResponse(ErrorCode.NONE, PRODUCER_ID, (short) (EPOCH + 1)), null, nowMs);

        abort.await(0, "abort");
        assertThat(identities).containsExactly(PRODUCER_ID + "/" + (EPOCH + 1));
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
    }

    @Test
    void testUnsentBatchesFailWithTransactionAbortedWhileAborting() {
        inTransactionWithPartitionAdded();
        assertThat(transactions.unsentBatchesFailWith()).isNull();

        transactions.abortTransaction();

        assertThat(transactions.unsentBatchesFailWith()).isInstanceOf(TransactionAbortedException.class);
    }

    // ---- Timed-out calls.

    @Test
    void testTimedOutCallIsResumedBySameOperation() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        assertThat(transactions.nextStep(true, nowMs)).isNull();

        assertThatThrownBy(() -> commit.await(0, "Retry it."))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("EndTxn(true)");

        assertThat(transactions.commitTransaction()).isSameAs(commit);
        Step end = transactions.nextStep(false, nowMs);
        transactions.answered(end, endTxnResponse(ErrorCode.NONE), null, nowMs);
        commit.await(0, "Retry it.");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
    }

    @Test
    void testTimedOutCallRefusesOtherOperation() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        assertThatThrownBy(() -> commit.await(0, "Retry it.")).isInstanceOf(TimeoutException.class);

        assertThatThrownBy(transactions::abortTransaction)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot attempt operation `abortTransaction`")
                .hasMessageContaining("`commitTransaction` timed out and must be retried");
        assertThat(transactions.state()).isEqualTo(TransactionState.COMMITTING);
    }

    // ---- Offsets.

    @Test
    void testSendOffsetsAddsOffsetsThenCommitsToGroupCoordinatorUnderVersion1() {
        inTransaction(1);
        TransactionCall call = transactions.sendOffsets(Map.of(OFFSETS_TP, new OffsetAndMetadata(10)), GROUP);

        Step addOffsets = transactions.nextStep(false, nowMs);
        assertThat(addOffsets.api()).isEqualTo(ApiKey.ADD_OFFSETS_TO_TXN);
        assertThat(addOffsets.groupId()).isNull();
        transactions.answered(addOffsets, new AddOffsetsToTxnResponseData(), null, nowMs);
        assertThat(isDone(call)).isFalse();

        Step commit = transactions.nextStep(false, nowMs);
        assertThat(commit.api()).isEqualTo(ApiKey.TXN_OFFSET_COMMIT);
        assertThat(commit.groupId()).isEqualTo("group-a");
        TxnOffsetCommitRequestData request = (TxnOffsetCommitRequestData) body(commit);
        assertThat(request.transactionalId()).isEqualTo(TRANSACTIONAL_ID);
        assertThat(request.groupId()).isEqualTo("group-a");
        assertThat(request.memberId()).isEqualTo("member-1");
        assertThat(request.generationId()).isEqualTo(7);
        assertThat(request.groupInstanceId()).isEqualTo("instance-1");
        assertThat(request.producerId()).isEqualTo(PRODUCER_ID);
        assertThat(request.producerEpoch()).isEqualTo(EPOCH);
        assertThat(request.topics()).singleElement().satisfies(topic -> {
            assertThat(topic.name()).isEqualTo(OFFSETS_TP.topic());
            assertThat(topic.partitions()).singleElement().satisfies(partition -> {
                assertThat(partition.partitionIndex()).isEqualTo(OFFSETS_TP.partition());
                assertThat(partition.committedOffset()).isEqualTo(10L);
            });
        });
        transactions.answered(commit, txnOffsetCommitResponse(OFFSETS_TP, ErrorCode.NONE), null, nowMs);

        call.await(0, "offsets");
        assertThat(transactions.state()).isEqualTo(TransactionState.IN_TRANSACTION);
    }

    @Test
    void testUnknownMemberFromTxnOffsetCommitFailsCallWithCommitFailed() {
        inTransaction(1);
        TransactionCall call = transactions.sendOffsets(Map.of(OFFSETS_TP, new OffsetAndMetadata(10)), GROUP);
        Step addOffsets = transactions.nextStep(false, nowMs);
        transactions.answered(addOffsets, new AddOffsetsToTxnResponseData(), null, nowMs);
        Step commit = transactions.nextStep(false, nowMs);

        transactions.answered(commit, txnOffsetCommitResponse(OFFSETS_TP, ErrorCode.UNKNOWN_MEMBER_ID), null, nowMs);

        assertThatThrownBy(() -> call.await(0, "offsets")).isInstanceOf(CommitFailedException.class);
        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);
    }

    @Test
    void testSendOffsetsSendsOnlyTxnOffsetCommitUnderVersion2() {
        inTransaction(2);
        TransactionCall call = transactions.sendOffsets(Map.of(OFFSETS_TP, new OffsetAndMetadata(10)), GROUP);

        Step commit = transactions.nextStep(false, nowMs);

        assertThat(commit.api()).isEqualTo(ApiKey.TXN_OFFSET_COMMIT);
        assertThat(commit.groupId()).isEqualTo("group-a");
        assertThat(commit.highestVersion()).isEqualTo(ApiKey.TXN_OFFSET_COMMIT.highestVersion());
        transactions.answered(commit, txnOffsetCommitResponse(OFFSETS_TP, ErrorCode.NONE), null, nowMs);
        call.await(0, "offsets");
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    // ---- Transitions.

    @Test
    void testBeginTransactionTwiceIsRefused() {
        inTransaction(1);

        assertThatThrownBy(transactions::beginTransaction)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Invalid transition attempted from state IN_TRANSACTION to state IN_TRANSACTION");
    }

    // ---- More errors and transitions.

    @Test
    void testBatchFailureDuringCommitFailsCommitOnceBatchesEnd() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        assertThat(transactions.nextStep(true, nowMs)).isNull();

        transactions.batchFailed(new TimeoutException("x"));

        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);
        assertThat(transactions.nextStep(true, nowMs)).isNull();
        assertThat(isDone(commit)).isFalse();
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        assertThatThrownBy(() -> commit.await(0, "commit")).hasRootCauseInstanceOf(TimeoutException.class);
    }

    @Test
    void testAbortAfterBatchFailureDuringCommitDoesNotBumpEpochUnderVersion1() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        transactions.batchFailed(new TimeoutException("x"));
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        assertThatThrownBy(() -> commit.await(0, "commit")).isInstanceOf(KafkaException.class);

        TransactionCall abort = transactions.abortTransaction();
        Step end = transactions.nextStep(false, nowMs);
        transactions.answered(end, endTxnResponse(ErrorCode.NONE), null, nowMs);

        abort.await(0, "abort");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    @Test
    void testUnknownProducerIdToAddPartitionsBumpsEpochAfterAbortUnderVersion1() {
        inTransaction(1);
        transactions.checkSend(TP);
        Step add = transactions.nextStep(false, nowMs);
        transactions.answered(add, addPartitionsResponse(TP, ErrorCode.UNKNOWN_PRODUCER_ID), null, nowMs);
        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);

        TransactionCall abort = transactions.abortTransaction();

        // Nothing joined the transaction at the coordinator: the abort ends locally, then bumps the epoch.
        Step bump = transactions.nextStep(false, nowMs);
        assertThat(bump.api()).isEqualTo(ApiKey.INIT_PRODUCER_ID);
        assertThat(((InitProducerIdRequestData) body(bump)).producerId()).isEqualTo(PRODUCER_ID);
        assertThat(isDone(abort)).isFalse();
        transactions.answered(bump, initResponse(ErrorCode.NONE, PRODUCER_ID, (short) (EPOCH + 1)), null, nowMs);
        abort.await(0, "abort");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
    }

    @Test
    void testAbortAfterBatchFailureDoesNotBumpEpochUnderVersion2() {
        inTransaction(2);
        transactions.checkSend(TP);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        transactions.batchFailed(new TimeoutException("x"));

        TransactionCall abort = transactions.abortTransaction();
        Step end = transactions.nextStep(false, nowMs);
        assertThat(end.api()).isEqualTo(ApiKey.END_TXN);
        transactions.answered(end, endTxnResponse(ErrorCode.NONE).setProducerId(PRODUCER_ID).setProducerEpoch((short) 4),
                null, nowMs);

        abort.await(0, "abort");
        assertThat(transactions.state()).isEqualTo(TransactionState.READY);
        assertThat(identities).containsExactly(PRODUCER_ID + "/4");
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    @Test
    void testBumpsEpochAfterTransactionWhenClusterMovesToVersion2() {
        inTransactionWithPartitionAdded();
        transactions.clusterTransactionVersion((short) 2);
        TransactionCall commit = transactions.commitTransaction();
        Step end = transactions.nextStep(false, nowMs);
        assertThat(end.highestVersion()).isEqualTo((short) 4);

        transactions.answered(end, endTxnResponse(ErrorCode.NONE), null, nowMs);

        Step bump = transactions.nextStep(false, nowMs);
        assertThat(bump.api()).isEqualTo(ApiKey.INIT_PRODUCER_ID);
        assertThat(((InitProducerIdRequestData) body(bump)).producerEpoch()).isEqualTo(EPOCH);
        transactions.answered(bump, initResponse(ErrorCode.NONE, PRODUCER_ID, (short) (EPOCH + 1)), null, nowMs);
        commit.await(0, "commit");
        transactions.beginTransaction();
        assertThat(transactions.highestProduceVersion()).isEqualTo(ApiKey.PRODUCE.highestVersion());
    }

    @Test
    void testTopicAuthorizationFailureToAddPartitionsMakesTransactionAbortable() {
        inTransaction(1);
        transactions.checkSend(TP);
        Step add = transactions.nextStep(false, nowMs);

        transactions.answered(add, addPartitionsResponse(TP, ErrorCode.TOPIC_AUTHORIZATION_FAILED), null, nowMs);

        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);
        assertThat(transactions.maySend(TP)).isFalse();
        assertThat(transactions.unsentBatchesFailWith())
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> transactions.checkSend(TP))
                .isExactlyInstanceOf(KafkaException.class)
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void testFencedAddPartitionsFailsQueuedCommit() {
        inTransaction(1);
        transactions.checkSend(TP);
        Step add = transactions.nextStep(false, nowMs);
        TransactionCall commit = transactions.commitTransaction();

        transactions.answered(add, addPartitionsResponse(TP, ErrorCode.PRODUCER_FENCED), null, nowMs);

        assertThatThrownBy(() -> commit.await(0, "commit")).isInstanceOf(ProducerFencedException.class);
        assertThat(transactions.state()).isEqualTo(TransactionState.FATAL_ERROR);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
    }

    @Test
    void testTransactionAbortableToAbortIsFatal() {
        inTransactionWithPartitionAdded();
        TransactionCall abort = transactions.abortTransaction();
        Step end = transactions.nextStep(false, nowMs);

        transactions.answered(end, endTxnResponse(ErrorCode.TRANSACTION_ABORTABLE), null, nowMs);

        assertThatThrownBy(() -> abort.await(0, "abort"))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Failed to abort transaction");
        assertThat(transactions.state()).isEqualTo(TransactionState.FATAL_ERROR);
    }

    @Test
    void testTransactionAbortableToCommitIsAbortable() {
        inTransactionWithPartitionAdded();
        TransactionCall commit = transactions.commitTransaction();
        Step end = transactions.nextStep(false, nowMs);

        transactions.answered(end, endTxnResponse(ErrorCode.TRANSACTION_ABORTABLE), null, nowMs);

        assertThatThrownBy(() -> commit.await(0, "commit")).isInstanceOf(KafkaException.class);
        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTABLE_ERROR);
        transactions.abortTransaction();
        assertThat(transactions.state()).isEqualTo(TransactionState.ABORTING);
    }

    @Test
    void testNonRetriableFailureIsFatal() {
        TransactionCall init = transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        boolean lookup = transactions.answered(step, null, new IllegalArgumentException("bad"), nowMs);

        assertThat(lookup).isFalse();
        assertThatThrownBy(() -> init.await(0, "init")).isInstanceOf(IllegalArgumentException.class);
        assertThat(transactions.state()).isEqualTo(TransactionState.FATAL_ERROR);
    }

    @Test
    void testRetriableLookupFailureBacksOff() {
        transactions.initTransactions();
        Step step = transactions.nextStep(false, nowMs);

        transactions.lookupFailed(step, new CoordinatorNotAvailableException("none"), nowMs);

        assertThat(transactions.untilNextStepMs(nowMs)).isEqualTo(RETRY_BACKOFF_MS);
        assertThat(transactions.nextStep(false, nowMs)).isNull();
        nowMs += RETRY_BACKOFF_MS;
        assertThat(transactions.nextStep(false, nowMs)).isSameAs(step);
    }

    @Test
    void testTxnOffsetCommitResendsOnlyOffsetsLeftAfterNotCoordinator() {
        inTransaction(2);
        TopicPartition other = new TopicPartition("input", 2);
        LinkedHashMap<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        offsets.put(OFFSETS_TP, new OffsetAndMetadata(10));
        offsets.put(other, new OffsetAndMetadata(20));
        TransactionCall call = transactions.sendOffsets(offsets, GROUP);
        Step commit = transactions.nextStep(false, nowMs);
        TxnOffsetCommitResponseData response = txnOffsetCommitResponse(OFFSETS_TP, ErrorCode.NONE);
        response.topics().get(0).partitions().add(new TxnOffsetCommitResponsePartition()
                .setPartitionIndex(other.partition()).setErrorCode(ErrorCode.NOT_COORDINATOR.code()));

        boolean lookup = transactions.answered(commit, response, null, nowMs);

        assertThat(lookup).isTrue();
        assertThat(isDone(call)).isFalse();
        Step again = transactions.nextStep(false, nowMs);
        assertThat(again).isSameAs(commit);
        TxnOffsetCommitRequestData request = (TxnOffsetCommitRequestData) body(again);
        assertThat(request.topics()).singleElement().satisfies(topic -> assertThat(topic.partitions())
                .extracting(TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex).containsExactly(other.partition()));
        transactions.answered(again, txnOffsetCommitResponse(other, ErrorCode.NONE), null, nowMs);
        call.await(0, "offsets");
    }

    @Test
    void testCheckSendBeforeInitTransactionsIsRefused() {
        assertThatThrownBy(() -> transactions.checkSend(TP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before completing a call to initTransactions");
    }

    @Test
    void testInitTransactionsAgainAfterCompletionIsRefused() {
        initialized();

        assertThatThrownBy(transactions::initTransactions)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Invalid transition attempted from state READY to state INITIALIZING");
    }
}
