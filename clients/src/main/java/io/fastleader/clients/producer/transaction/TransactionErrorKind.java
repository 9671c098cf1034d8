package io.fastleader.clients.producer.transaction;

import io.fastleader.protocol.ErrorCode;

/**
 * What the producer does with an error a transaction coordinator (or, for TxnOffsetCommit, a group
 * coordinator) answered, as {@code KafkaProducer} 4.3 classifies it. Every error code of every
 * transactional RPC is classified here, once, and nowhere else.
 */
enum TransactionErrorKind {
    /** The request did what it asked. */
    NONE,
    /**
     * The coordinator is elsewhere or gone (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a lost
     * connection): find it again and resend at once. The lookup is the only wait; a backoff here
     * would only delay the answer the lookup brings.
     */
    COORDINATOR_MOVED,
    /** A transient refusal (a coordinator still loading, a timeout): resend after {@code retry.backoff.ms}. */
    RETRY,
    /**
     * CONCURRENT_TRANSACTIONS to AddPartitionsToTxn: the coordinator is still completing the
     * previous transaction, which takes a few milliseconds; resent after a short backoff while the
     * transaction has no partition yet, as {@code KafkaProducer} does, else as {@link #RETRY}.
     */
    CONCURRENT,
    /** Another producer with the same {@code transactional.id} took over: fatal, as ProducerFencedException. */
    FENCED,
    /** The transaction cannot go on, but the application may abort it and begin another. */
    ABORTABLE,
    /**
     * The coordinator lost this producer's id (UNKNOWN_PRODUCER_ID): abortable, and the producer
     * bumps its epoch after the abort so the next transaction starts with fresh sequences.
     */
    ABORTABLE_WITH_BUMP,
    /** Nothing more can be done: the producer must be closed. */
    FATAL;

    /** The kind of an InitProducerId error. Authorization fails only the call, as {@code KafkaProducer}'s does. */
    static TransactionErrorKind ofInitProducerId(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case TRANSACTIONAL_ID_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED, TRANSACTION_ABORTABLE -> ABORTABLE;
            default -> common(error);
        };
    }

    /** The kind of one partition's AddPartitionsToTxn error. */
    static TransactionErrorKind ofAddPartitions(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case CONCURRENT_TRANSACTIONS -> CONCURRENT;
            case TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> FATAL;
            case UNKNOWN_PRODUCER_ID -> ABORTABLE_WITH_BUMP;
            case INVALID_PRODUCER_EPOCH, PRODUCER_FENCED, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR -> common(error);
            // TOPIC_AUTHORIZATION_FAILED, OPERATION_NOT_ATTEMPTED (another partition failed) and anything
            // unexpected fail the transaction, not the producer.
            default -> error.isRetriable() ? RETRY : ABORTABLE;
        };
    }

    /** The kind of an AddOffsetsToTxn error. */
    static TransactionErrorKind ofAddOffsets(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> FATAL;
            case UNKNOWN_PRODUCER_ID -> ABORTABLE_WITH_BUMP;
            case GROUP_AUTHORIZATION_FAILED, TRANSACTION_ABORTABLE -> ABORTABLE;
            default -> common(error);
        };
    }

    /**
     * The kind of one partition's TxnOffsetCommit error, answered by the group's coordinator. A
     * consumer whose group metadata the coordinator no longer accepts (a zombie of an older
     * generation) fails the transaction, not the producer.
     */
    static TransactionErrorKind ofTxnOffsetCommit(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case REQUEST_TIMED_OUT -> COORDINATOR_MOVED;
            case GROUP_AUTHORIZATION_FAILED, FENCED_INSTANCE_ID, TRANSACTION_ABORTABLE, UNKNOWN_MEMBER_ID,
                 ILLEGAL_GENERATION -> ABORTABLE;
            case TRANSACTIONAL_ID_AUTHORIZATION_FAILED, UNSUPPORTED_FOR_MESSAGE_FORMAT -> FATAL;
            default -> common(error);
        };
    }

    /**
     * The kind of an EndTxn error. An abort refused as TRANSACTION_ABORTABLE is fatal: aborting it
     * again would answer the same.
     */
    static TransactionErrorKind ofEndTxn(ErrorCode error, boolean commit) {
        return switch (error) {
            case NONE -> NONE;
            case TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> FATAL;
            case UNKNOWN_PRODUCER_ID -> ABORTABLE_WITH_BUMP;
            case TRANSACTION_ABORTABLE -> commit ? ABORTABLE : FATAL;
            default -> common(error);
        };
    }

    /** What every transactional RPC does alike. */
    private static TransactionErrorKind common(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> COORDINATOR_MOVED;
            // An older coordinator answers INVALID_PRODUCER_EPOCH where a newer one says PRODUCER_FENCED.
            case INVALID_PRODUCER_EPOCH, PRODUCER_FENCED -> FENCED;
            default -> error.isRetriable() ? RETRY : FATAL;
        };
    }
}
