package io.fastleader.clients.producer.transaction;

/**
 * Where a transactional producer is, with the moves {@code KafkaProducer} allows between these
 * states. A call that would make any other move fails with {@link IllegalStateException}.
 */
public enum TransactionState {
    /** No producer id yet: {@code initTransactions} has not completed. */
    UNINITIALIZED,
    /** InitProducerId is under way: the first one, or an epoch bump after a transaction. */
    INITIALIZING,
    /** Holds a producer id; no transaction is open. */
    READY,
    /** {@code beginTransaction} was called; sends and offsets join the transaction. */
    IN_TRANSACTION,
    /** {@code commitTransaction} was called: the batches are drained, then EndTxn(commit). */
    COMMITTING,
    /** {@code abortTransaction} was called: unsent batches fail, then EndTxn(abort). */
    ABORTING,
    /** Something in the transaction failed; the application may abort it and go on. */
    ABORTABLE_ERROR,
    /** The producer can do nothing more (fenced, unauthorized, ...): it must be closed. */
    FATAL_ERROR;

    /** Whether a producer in this state may move to {@code target}. */
    boolean mayMoveTo(TransactionState target) {
        return switch (target) {
            case UNINITIALIZED -> this == READY || this == ABORTABLE_ERROR;
            case INITIALIZING -> this == UNINITIALIZED || this == COMMITTING || this == ABORTING;
            case READY -> this == INITIALIZING || this == COMMITTING || this == ABORTING;
            case IN_TRANSACTION -> this == READY;
            case COMMITTING -> this == IN_TRANSACTION;
            case ABORTING -> this == IN_TRANSACTION || this == ABORTABLE_ERROR;
            case ABORTABLE_ERROR -> this == IN_TRANSACTION || this == COMMITTING || this == ABORTABLE_ERROR
                    || this == INITIALIZING;
            case FATAL_ERROR -> true;
        };
    }

    /** Whether a transaction is open: begun and not yet ended by a commit, an abort or a fatal error. */
    boolean isOngoing() {
        return this == IN_TRANSACTION || this == COMMITTING || this == ABORTING || this == ABORTABLE_ERROR;
    }

    /** Whether the producer is in an error state. */
    boolean isError() {
        return this == ABORTABLE_ERROR || this == FATAL_ERROR;
    }
}
