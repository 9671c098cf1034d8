package io.fastleader.clients.producer;

import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;

import io.fastleader.clients.producer.ProducerMetrics.TransactionalCall;
import io.fastleader.clients.producer.transaction.TransactionCall;
import io.fastleader.clients.producer.transaction.Transactions;

/**
 * The application's side of the transactional methods: checked as {@code KafkaProducer} checks
 * them, handed to the sender's thread (which owns {@link Transactions}), waited for at most
 * {@code max.block.ms} with {@code KafkaProducer}'s timeout messages, and timed in its
 * {@code txn-*-time-ns-total} metrics.
 */
final class TransactionalCalls {

    private static final String INIT_TIMEOUT = "InitTransactions timed out - did not complete coordinator discovery or "
            + "receive the InitProducerId response within max.block.ms.";
    private static final String SEND_OFFSETS_TIMEOUT = "SendOffsetsToTransaction timed out - did not reach the coordinator or "
            + "receive the TxnOffsetCommit/AddOffsetsToTxn response within max.block.ms";
    private static final String COMMIT_TIMEOUT = "CommitTransaction timed out - did not complete EndTxn with the transaction "
            + "coordinator within max.block.ms";
    private static final String ABORT_TIMEOUT = "AbortTransaction timed out - did not complete EndTxn(abort) with the "
            + "transaction coordinator within max.block.ms";

    private final Sender sender;
    /** Null without {@code transactional.id}. */
    private final Transactions transactions;
    /**
     * Whether {@code KafkaProducer} would hold a transaction manager: with {@code transactional.id},
     * or for idempotence alone. Its refusals depend on it (see {@link #requireTransactionManager}).
     */
    private final boolean hasTransactionManager;
    private final long maxBlockMs;
    private final ProducerMetrics metrics;
    private final Supplier<Boolean> closed;

    TransactionalCalls(Sender sender, boolean idempotent, long maxBlockMs, ProducerMetrics metrics, Supplier<Boolean> closed) {
        this.sender = sender;
        this.transactions = sender.transactions();
        this.hasTransactionManager = transactions != null || idempotent;
        this.maxBlockMs = maxBlockMs;
        this.metrics = metrics;
        this.closed = closed;
    }

    void initTransactions() {
        awaited(TransactionalCall.INIT, () -> transactions.initTransactions(), INIT_TIMEOUT);
    }

    void beginTransaction() {
        timed(TransactionalCall.BEGIN, () -> sender.call(() -> {
            transactions.beginTransaction();
            return null;
        }));
    }

    void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
        if (group == null) {
            throw new IllegalArgumentException("Consumer group metadata could not be null");
        }
        if (group.generationId() > 0 && group.memberId().isEmpty()) {
            throw new IllegalArgumentException("Passed in group metadata " + group + " has generationId > 0 but the member.id is unknown");
        }
        // KafkaProducer lets an idempotent producer without transactional.id send no offsets.
        requireTransactionManager();
        if (!offsets.isEmpty()) {
            awaited(TransactionalCall.SEND_OFFSETS, () -> transactions.sendOffsets(offsets, group), SEND_OFFSETS_TIMEOUT);
        }
    }

    void commitTransaction() {
        awaited(TransactionalCall.COMMIT, () -> transactions.commitTransaction(), COMMIT_TIMEOUT);
    }

    void abortTransaction() {
        awaited(TransactionalCall.ABORT, () -> transactions.abortTransaction(), ABORT_TIMEOUT);
    }

    /**
     * Starts (or resumes) the call on the sender's thread and waits for its end. Lambdas, not
     * method references: a reference to a method of null {@code transactions} would throw before
     * the refusal a producer without {@code transactional.id} owes.
     */
    private void awaited(TransactionalCall timer, Supplier<TransactionCall> call, String timeoutReason) {
        timed(timer, () -> sender.call(call).await(maxBlockMs, timeoutReason));
    }

    /** Runs {@code call}, counting its time if it returns normally. */
    private void timed(TransactionalCall timer, Runnable call) {
        requireTransactional();
        long startNanos = System.nanoTime();
        call.run();
        metrics.transactionalCallTook(timer, System.nanoTime() - startNanos);
    }

    /**
     * {@code KafkaProducer}'s refusals, in its order: without a transaction manager (neither
     * {@code transactional.id} nor idempotence), after close, and with a manager that is only
     * there for idempotence.
     */
    private void requireTransactional() {
        requireTransactionManager();
        if (transactions == null) {
            throw new IllegalStateException("Transactional method invoked on a non-transactional producer.");
        }
    }

    private void requireTransactionManager() {
        if (!hasTransactionManager) {
            throw new IllegalStateException("Cannot use transactional methods without enabling transactions by setting the "
                    + ProducerConfig.TRANSACTIONAL_ID_CONFIG + " configuration property");
        }
        if (closed.get()) {
            throw new IllegalStateException(FastLeaderProducer.CLOSED);
        }
    }
}
