package io.fastleader.clients.producer.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.protocol.ErrorCode;

class TransactionErrorKindTest {

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource({
        "InitProducerId, NONE, NONE",
        "InitProducerId, NOT_COORDINATOR, COORDINATOR_MOVED",
        "InitProducerId, COORDINATOR_NOT_AVAILABLE, COORDINATOR_MOVED",
        "InitProducerId, COORDINATOR_LOAD_IN_PROGRESS, RETRY",
        "InitProducerId, PRODUCER_FENCED, FENCED",
        "InitProducerId, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, ABORTABLE",
        "AddPartitions, NOT_COORDINATOR, COORDINATOR_MOVED",
        "AddPartitions, CONCURRENT_TRANSACTIONS, CONCURRENT",
        "AddPartitions, PRODUCER_FENCED, FENCED",
        "AddPartitions, INVALID_PRODUCER_EPOCH, FENCED",
        "AddPartitions, UNKNOWN_PRODUCER_ID, ABORTABLE_WITH_BUMP",
        "AddPartitions, TOPIC_AUTHORIZATION_FAILED, ABORTABLE",
        "AddPartitions, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, FATAL",
        "AddOffsets, NOT_COORDINATOR, COORDINATOR_MOVED",
        "AddOffsets, PRODUCER_FENCED, FENCED",
        "AddOffsets, GROUP_AUTHORIZATION_FAILED, ABORTABLE",
        "AddOffsets, UNKNOWN_PRODUCER_ID, ABORTABLE_WITH_BUMP",
        "TxnOffsetCommit, NOT_COORDINATOR, COORDINATOR_MOVED",
        "TxnOffsetCommit, UNKNOWN_MEMBER_ID, ABORTABLE",
        "TxnOffsetCommit, ILLEGAL_GENERATION, ABORTABLE",
        "TxnOffsetCommit, PRODUCER_FENCED, FENCED",
        "TxnOffsetCommit, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, FATAL",
        "EndTxnCommit, NOT_COORDINATOR, COORDINATOR_MOVED",
        "EndTxnCommit, CONCURRENT_TRANSACTIONS, RETRY",
        "EndTxnCommit, PRODUCER_FENCED, FENCED",
        "EndTxnCommit, INVALID_PRODUCER_EPOCH, FENCED",
        "EndTxnCommit, TRANSACTION_ABORTABLE, ABORTABLE",
        "EndTxnCommit, UNKNOWN_PRODUCER_ID, ABORTABLE_WITH_BUMP",
        "EndTxnCommit, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, FATAL",
        "EndTxnAbort, NOT_COORDINATOR, COORDINATOR_MOVED",
        "EndTxnAbort, CONCURRENT_TRANSACTIONS, RETRY",
        "EndTxnAbort, TRANSACTION_ABORTABLE, FATAL",
        "EndTxnAbort, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, FATAL",
    })
    void testClassifiesEachErrorPerRpc(String rpc, ErrorCode error, TransactionErrorKind kind) {
        TransactionErrorKind classified = switch (rpc) {
            case "InitProducerId" -> TransactionErrorKind.ofInitProducerId(error);
            case "AddPartitions" -> TransactionErrorKind.ofAddPartitions(error);
            case "AddOffsets" -> TransactionErrorKind.ofAddOffsets(error);
            case "TxnOffsetCommit" -> TransactionErrorKind.ofTxnOffsetCommit(error);
            case "EndTxnCommit" -> TransactionErrorKind.ofEndTxn(error, true);
            case "EndTxnAbort" -> TransactionErrorKind.ofEndTxn(error, false);
            default -> throw new IllegalArgumentException(rpc);
        };
        assertThat(classified).isEqualTo(kind);
    }
}
