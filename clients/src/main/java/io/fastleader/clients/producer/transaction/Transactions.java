package io.fastleader.clients.producer.transaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.VersionedRequest;
import io.fastleader.clients.producer.transaction.TransactionRequests.Identity;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AddOffsetsToTxnResponseData;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData;
import io.fastleader.protocol.message.EndTxnResponseData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.TxnOffsetCommitResponseData;

/**
 * The transactional side of one producer: its state ({@link TransactionState}), the partitions and
 * offsets of the transaction open now, and the queue of requests to its coordinators, sent one at
 * a time. A pure state machine driven by the clock it is given: the sender asks it for the next
 * request ({@link #nextStep}), sends it (through {@link CoordinatorLink}) and hands it the answer
 * ({@link #answered}); it never does I/O itself.
 *
 * <p>Both transaction protocols, as the cluster's finalized {@code transaction.version} says, chosen
 * when a transaction begins and kept to its end:
 * <ul>
 *   <li>version 1: AddPartitionsToTxn before a partition's first batch goes out (its batches wait,
 *       {@link #maySend}), AddOffsetsToTxn before TxnOffsetCommit, Produce at most v11;</li>
 *   <li>version 2 (KIP-890): Produce v12 adds partitions and TxnOffsetCommit v5 adds offsets
 *       implicitly, and every EndTxn answers with the epoch (or producer id) the next transaction uses.</li>
 * </ul>
 *
 * <p>Threads: the sender's thread owns it. The application's calls reach it through the sender
 * ({@link io.fastleader.clients.producer.Sender#call}), except {@link #checkSend}, which the sending
 * thread calls: it reads the state (volatile) and hands the partition over through a queue.
 */
public final class Transactions {

    private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

    /** Produce v12 adds the partition to the transaction implicitly (KIP-890): under transaction version 1 it must not. */
    public static final short LAST_PRODUCE_VERSION_OF_V1 = 11;
    /** EndTxn v5 bumps the epoch at every transaction's end: transaction version 2 only. */
    private static final short LAST_END_TXN_VERSION_OF_V1 = 4;
    /** TxnOffsetCommit v5 adds the offsets to the transaction implicitly: transaction version 2 only. */
    private static final short LAST_TXN_OFFSET_COMMIT_VERSION_OF_V1 = 4;
    /** The backoff after CONCURRENT_TRANSACTIONS while the previous transaction is still being completed, {@code KafkaProducer}'s. */
    static final long CONCURRENT_TRANSACTIONS_BACKOFF_MS = 20;

    /** Told of every producer id and epoch the coordinator hands out; the batches sent from then on carry it. */
    @FunctionalInterface
    public interface IdentityListener {
        /** The producer now holds {@code producerId} at {@code epoch}; every partition's sequence starts again at 0. */
        void identity(long producerId, short epoch);
    }

    /** One request to a coordinator, queued until its turn; resent as it is after a retriable failure. */
    public final class Step {
        private final StepKind kind;
        private final TransactionCall call;
        private boolean epochBump;
        private boolean commit;
        private Set<TopicPartition> partitions = Set.of();
        private ConsumerGroupMetadata group;
        private Map<TopicPartition, OffsetAndMetadata> offsets = Map.of();
        private final long order = ++steps;
        private long notBeforeMs = Long.MIN_VALUE;
        /** Times in a row the coordinator was found gone: only the first resend goes at once. */
        private int movedInARow;

        private Step(StepKind kind, TransactionCall call) {
            this.kind = kind;
            this.call = call;
        }

        /** The RPC. */
        public ApiKey api() {
            return kind.api;
        }

        /** The group whose coordinator takes it (TxnOffsetCommit), or null: the transaction coordinator does. */
        public String groupId() {
            return kind == StepKind.TXN_OFFSET_COMMIT ? group.groupId() : null;
        }

        /** The highest version it may go at: some change meaning with the transaction protocol. */
        public short highestVersion() {
            boolean capped = !version2 && (kind == StepKind.END_TXN || kind == StepKind.TXN_OFFSET_COMMIT);
            if (!capped) {
                return kind.api.highestVersion();
            }
            return kind == StepKind.END_TXN ? LAST_END_TXN_VERSION_OF_V1 : LAST_TXN_OFFSET_COMMIT_VERSION_OF_V1;
        }

        /** The request, built under the identity held when it goes out (a bump may have changed it since it was queued). */
        public VersionedRequest request() {
            Identity identity = new Identity(producerId, epoch);
            ApiMessage body = switch (kind) {
                case INIT_PRODUCER_ID -> TransactionRequests.initProducerId(transactionalId, transactionTimeoutMs,
                        epochBump ? identity : Identity.NONE);
                case ADD_PARTITIONS -> TransactionRequests.addPartitions(transactionalId, identity, partitions);
                case ADD_OFFSETS -> TransactionRequests.addOffsets(transactionalId, identity, group.groupId());
                case TXN_OFFSET_COMMIT -> TransactionRequests.txnOffsetCommit(transactionalId, identity, group, offsets);
                case END_TXN -> TransactionRequests.endTxn(transactionalId, identity, commit);
            };
            return version -> body;
        }

        @Override
        public String toString() {
            return kind + (kind == StepKind.END_TXN ? "(" + (commit ? "commit" : "abort") + ")" : "");
        }
    }

    /** The kinds of request, in the order the queue sends them when several wait (Kafka's priorities). */
    private enum StepKind {
        INIT_PRODUCER_ID(ApiKey.INIT_PRODUCER_ID),
        ADD_PARTITIONS(ApiKey.ADD_PARTITIONS_TO_TXN),
        ADD_OFFSETS(ApiKey.ADD_OFFSETS_TO_TXN),
        TXN_OFFSET_COMMIT(ApiKey.TXN_OFFSET_COMMIT),
        END_TXN(ApiKey.END_TXN);

        private final ApiKey api;

        StepKind(ApiKey api) {
            this.api = api;
        }
    }

    private final String transactionalId;
    private final int transactionTimeoutMs;
    private final long retryBackoffMs;
    private final IdentityListener identityListener;

    // Read by the application's threads; written by the sender's.
    private volatile TransactionState state = TransactionState.UNINITIALIZED;
    private volatile RuntimeException lastError;
    private volatile long producerId = -1;
    private volatile short epoch = -1;
    private volatile TransactionCall pendingCall;
    /** Partitions the application sent to, handed to the sender's thread. */
    private final Queue<TopicPartition> sentTo = new ConcurrentLinkedQueue<>();

    // The sender's thread only.
    private short clusterTransactionVersion;
    private boolean version2;
    private final Set<TopicPartition> inTransaction = new HashSet<>();
    private final Set<TopicPartition> toAdd = new LinkedHashSet<>();
    private final Set<TopicPartition> adding = new HashSet<>();
    private boolean started;
    private boolean bumpAfterTransaction;
    private long steps;
    private final PriorityQueue<Step> queue = new PriorityQueue<>(
            Comparator.<Step, StepKind>comparing(step -> step.kind).thenComparingLong(step -> step.order));
    private Step inFlight;

    private Step initProducerId(TransactionCall call, boolean epochBump) {
        Step step = new Step(StepKind.INIT_PRODUCER_ID, call);
        step.epochBump = epochBump;
        return step;
    }

    private Step addPartitions(Set<TopicPartition> partitions) {
        Step step = new Step(StepKind.ADD_PARTITIONS, null);
        step.partitions = partitions;
        return step;
    }

    /** AddOffsetsToTxn (transaction version 1) or TxnOffsetCommit: the consumer's offsets, for {@code call}. */
    private Step offsets(StepKind kind, TransactionCall call, ConsumerGroupMetadata group,
                         Map<TopicPartition, OffsetAndMetadata> offsets) {
        Step step = new Step(kind, call);
        step.group = group;
        step.offsets = offsets;
        return step;
    }

    private Step endTxn(TransactionCall call, boolean commit) {
        Step step = new Step(StepKind.END_TXN, call);
        step.commit = commit;
        return step;
    }

    /**
     * @param transactionTimeoutMs {@code transaction.timeout.ms}
     * @param retryBackoffMs       {@code retry.backoff.ms}: the wait before a request refused for a transient reason goes again
     */
    public Transactions(String transactionalId, int transactionTimeoutMs, long retryBackoffMs, IdentityListener identityListener) {
        this.transactionalId = transactionalId;
        this.transactionTimeoutMs = transactionTimeoutMs;
        this.retryBackoffMs = retryBackoffMs;
        this.identityListener = identityListener;
    }

    public String transactionalId() {
        return transactionalId;
    }

    // ---- The application's calls, run on the sender's thread.

    /**
     * {@code initTransactions}: gets the producer id and epoch from the transaction coordinator, which
     * also ends whatever transaction an earlier producer with this id left open (abort, or the
     * commit it had begun) and fences that producer.
     *
     * @throws IllegalStateException when called again after it completed, or while another call timed out
     */
    public TransactionCall initTransactions() {
        return startOrResume("initTransactions", TransactionState.INITIALIZING, () -> {
            moveTo(TransactionState.INITIALIZING, null);
            LOG.info("[TransactionalId {}] Invoking InitProducerId for the first time in order to acquire a producer ID",
                    transactionalId);
            TransactionCall call = new TransactionCall("initTransactions", "InitProducerId", TransactionState.INITIALIZING);
            queue.add(initProducerId(call, false));
            return call;
        });
    }

    /**
     * {@code beginTransaction}: local only; the coordinator learns of the transaction with its first
     * partition or offsets.
     *
     * @throws IllegalStateException unless the producer is ready (initialized, no transaction open)
     * @throws KafkaException        in an error state, as {@link #failIfInError}
     */
    public void beginTransaction() {
        requireNoCallPending("beginTransaction");
        failIfInError();
        moveTo(TransactionState.IN_TRANSACTION, null);
        version2 = clusterTransactionVersion >= 2;
    }

    /**
     * {@code sendOffsetsToTransaction}: the consumer's offsets commit with the transaction, at the
     * group's coordinator, which checks {@code group}'s generation and member id.
     *
     * @throws IllegalStateException unless a transaction is open
     */
    public TransactionCall sendOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
        requireNoCallPending("sendOffsetsToTransaction");
        failIfInError();
        if (state != TransactionState.IN_TRANSACTION) {
            throw new IllegalStateException("Cannot send offsets if a transaction is not in progress (currentState= "
                    + state + ")");
        }
        Map<TopicPartition, OffsetAndMetadata> pending = new LinkedHashMap<>(offsets);
        TransactionCall call;
        if (version2) {
            call = new TransactionCall("sendOffsetsToTransaction", "TxnOffsetCommitHandler", TransactionState.IN_TRANSACTION);
            started = true;
            queue.add(offsets(StepKind.TXN_OFFSET_COMMIT, call, group, pending));
        } else {
            call = new TransactionCall("sendOffsetsToTransaction", "AddOffsetsToTxn", TransactionState.IN_TRANSACTION);
            queue.add(offsets(StepKind.ADD_OFFSETS, call, group, pending));
        }
        return call;
    }

    /**
     * {@code commitTransaction}: once every batch of the transaction has ended, EndTxn(commit). A
     * batch that failed makes the transaction abortable, and the commit fails with its error.
     *
     * @throws KafkaException in an error state: the application must abort (or, if fatal, close)
     */
    public TransactionCall commitTransaction() {
        return startOrResume("commitTransaction", TransactionState.COMMITTING, () -> {
            failIfInError();
            moveTo(TransactionState.COMMITTING, null);
            return endTransaction(true);
        });
    }

    /**
     * {@code abortTransaction}: batches not yet sent fail with {@link TransactionAbortedException},
     * those in flight are waited for, then EndTxn(abort). Allowed after an abortable error.
     *
     * @throws KafkaException in the fatal error state
     */
    public TransactionCall abortTransaction() {
        return startOrResume("abortTransaction", TransactionState.ABORTING, () -> {
            if (state != TransactionState.ABORTABLE_ERROR) {
                failIfInError();
            }
            moveTo(TransactionState.ABORTING, null);
            toAdd.clear();
            return endTransaction(false);
        });
    }

    /** Whether the open transaction is being committed or aborted: its batches no longer linger. */
    public boolean isCompleting() {
        return state == TransactionState.COMMITTING || state == TransactionState.ABORTING;
    }

    /** Whether a transaction is open and not yet being ended: a producer closing with one open aborts it. */
    public boolean needsAbortOnClose() {
        return state == TransactionState.IN_TRANSACTION || state == TransactionState.ABORTABLE_ERROR;
    }

    /** Whether a transaction is still open (being ended included) or a request to a coordinator waits. */
    public boolean hasWork() {
        return state.isOngoing() && state != TransactionState.ABORTABLE_ERROR || inFlight != null || !queue.isEmpty();
    }

    private TransactionCall endTransaction(boolean commit) {
        String awaited = "EndTxn(" + commit + ")";
        TransactionCall call = new TransactionCall(commit ? "commitTransaction" : "abortTransaction", awaited,
                commit ? TransactionState.COMMITTING : TransactionState.ABORTING);
        queue.add(endTxn(call, commit));
        return call;
    }

    // ---- The sending thread's check.

    /**
     * Checks that a record may be sent now, on the application's thread, and hands its partition to
     * the sender, which adds it to the transaction (version 1) before its first batch goes.
     *
     * @throws KafkaException        in an error state ({@link ProducerFencedException} once fenced)
     * @throws IllegalStateException before {@code initTransactions}, or outside a transaction
     */
    public void checkSend(TopicPartition partition) {
        failIfInError();
        requireNoCallPending("send");
        if (producerId < 0) {
            throw new IllegalStateException("Cannot add partition " + partition
                    + " to transaction before completing a call to initTransactions");
        }
        if (state != TransactionState.IN_TRANSACTION) {
            throw new IllegalStateException("Cannot add partition " + partition + " to transaction while in state  " + state);
        }
        sentTo.add(partition);
    }

    // ---- The sender's side.

    /**
     * Takes in what the cluster finalized as {@code transaction.version}, from the ApiVersions of a
     * coordinator's connection. A transaction keeps the version it began with.
     */
    public void clusterTransactionVersion(short level) {
        clusterTransactionVersion = level;
    }

    /** Under transaction version 1: the most a Produce request may be sent at, since v12 would add partitions implicitly. */
    public short highestProduceVersion() {
        return version2 ? ApiKey.PRODUCE.highestVersion() : LAST_PRODUCE_VERSION_OF_V1;
    }

    /** Whether a batch of the partition may go out now: under version 1, not before the coordinator added the partition. */
    public boolean maySend(TopicPartition partition) {
        return state != TransactionState.FATAL_ERROR && (version2 || inTransaction.contains(partition));
    }

    /**
     * What the batches not yet sent fail with now: {@link TransactionAbortedException} while
     * aborting, the error in an error state; null otherwise. Batches already sent finish as they
     * will, so the broker's state and the producer's sequences agree.
     */
    public RuntimeException unsentBatchesFailWith() {
        return switch (state) {
            case ABORTING -> new TransactionAbortedException();
            case ABORTABLE_ERROR, FATAL_ERROR -> lastError;
            default -> null;
        };
    }

    /**
     * The next request to send, or null while one is in flight, none waits, the first in line
     * backs off, or it is an EndTxn and a batch of the transaction has not ended yet.
     */
    public Step nextStep(boolean batchesIncomplete, long nowMs) {
        takeSentPartitions();
        if (inFlight != null) {
            return null;
        }
        if (!toAdd.isEmpty() && state.isOngoing()) {
            adding.addAll(toAdd);
            queue.add(addPartitions(new LinkedHashSet<>(toAdd)));
            toAdd.clear();
        }
        while (!queue.isEmpty()) {
            Step next = queue.peek();
            if (nowMs < next.notBeforeMs || next.kind == StepKind.END_TXN && batchesIncomplete) {
                return null;
            }
            queue.poll();
            if (state.isError()) {
                // Whatever waited is moot: the transaction (or the producer) is done for.
                failCall(next, lastError);
                continue;
            }
            if (next.kind == StepKind.END_TXN && !started) {
                // The coordinator never heard of this transaction: there is nothing to end.
                LOG.debug("[TransactionalId {}] No partition or offset joined the transaction; ending it locally", transactionalId);
                transactionEnded(next.call);
                continue;
            }
            inFlight = next;
            return next;
        }
        return null;
    }

    /** How long until the first request in line may go, or {@link Long#MAX_VALUE} if none waits. */
    public long untilNextStepMs(long nowMs) {
        Step next = inFlight == null ? queue.peek() : null;
        return next == null ? Long.MAX_VALUE : Math.max(0, next.notBeforeMs - nowMs);
    }

    /**
     * Takes the answer to the request in flight: the response, or the failure that stopped it (a
     * lost connection or timeout counts as the coordinator having moved).
     *
     * @return whether the coordinator the request went to must be found again
     */
    public boolean answered(Step step, ApiMessage response, Throwable failure, long nowMs) {
        if (step != inFlight) {
            throw new IllegalStateException("answer to " + step + " while " + inFlight + " is in flight");
        }
        inFlight = null;
        if (failure != null) {
            if (failure instanceof RetriableException) {
                LOG.debug("[TransactionalId {}] {} got no answer; finding the coordinator again", transactionalId, step, failure);
                return retry(step, TransactionErrorKind.COORDINATOR_MOVED, nowMs);
            }
            fatal(step, failure instanceof RuntimeException runtime ? runtime : new KafkaException(failure));
            return false;
        }
        return switch (step.kind) {
            case INIT_PRODUCER_ID -> initAnswered(step, (InitProducerIdResponseData) response, nowMs);
            case ADD_PARTITIONS -> addPartitionsAnswered(step, (AddPartitionsToTxnResponseData) response, nowMs);
            case ADD_OFFSETS -> addOffsetsAnswered(step, (AddOffsetsToTxnResponseData) response, nowMs);
            case TXN_OFFSET_COMMIT -> txnOffsetCommitAnswered(step, (TxnOffsetCommitResponseData) response, nowMs);
            case END_TXN -> endTxnAnswered(step, (EndTxnResponseData) response, nowMs);
        };
    }

    /**
     * The coordinator of the request in flight could not be found: a transient failure (none
     * elected yet, the transaction log still being created) is asked again after a backoff.
     */
    public void lookupFailed(Step step, Throwable failure, long nowMs) {
        if (step != inFlight) {
            throw new IllegalStateException("lookup for " + step + " while " + inFlight + " is in flight");
        }
        inFlight = null;
        if (failure instanceof RetriableException) {
            LOG.debug("[TransactionalId {}] No coordinator for {} yet", transactionalId, step, failure);
            retry(step, TransactionErrorKind.RETRY, nowMs);
        } else if (failure instanceof GroupAuthorizationException || isTransactionAbortable(failure)) {
            abortable(step, (RuntimeException) failure, false);
        } else if (failure instanceof TransactionalIdAuthorizationException) {
            fatal(step, (RuntimeException) failure);
        } else {
            fatal(step, new KafkaException("Could not find a coordinator for " + step + " due to unexpected error: "
                    + failure.getMessage(), failure));
        }
    }

    /**
     * A batch of the transaction failed for good: the transaction can no longer commit. Fenced,
     * unauthorized or unsupported, the producer can do nothing more; otherwise the application
     * may abort. A transient error that outlived the retries is reported as abortable.
     */
    public void batchFailed(RuntimeException error) {
        if (error instanceof ProducerFencedException || error instanceof TransactionalIdAuthorizationException
                || error instanceof ClusterAuthorizationException || error instanceof UnsupportedVersionException
                || error instanceof InvalidPidMappingException) {
            fatal(null, error);
            return;
        }
        RuntimeException abortable = error;
        if (error instanceof RetriableException || error instanceof InvalidTxnStateException) {
            abortable = abortableException("Transaction Request was aborted after exhausting retries.", error);
        }
        // Under version 1 a failed batch may leave a gap in its partition's sequence: the next transaction needs a new epoch.
        abortable(null, abortable, state != TransactionState.COMMITTING && state != TransactionState.ABORTING);
    }

    /** Ends every call and queued request with {@code error}: the producer closes without waiting. */
    public void close(RuntimeException error) {
        queue.forEach(step -> failCall(step, error));
        queue.clear();
        if (inFlight != null) {
            failCall(inFlight, error);
            inFlight = null;
        }
        TransactionCall call = pendingCall;
        if (call != null) {
            call.fail(error);
        }
    }

    // ---- Answers.

    private boolean initAnswered(Step step, InitProducerIdResponseData response, long nowMs) {
        ErrorCode error = ErrorCode.forCode(response.errorCode());
        TransactionErrorKind kind = TransactionErrorKind.ofInitProducerId(error);
        switch (kind) {
            case NONE -> {
                setIdentity(response.producerId(), response.producerEpoch());
                moveTo(TransactionState.READY, null);
                step.call.done();
            }
            case ABORTABLE, ABORTABLE_WITH_BUMP -> abortable(step, error.exception(), false);
            case FENCED -> fatal(step, fenced());
            case FATAL -> fatal(step, new KafkaException("Unexpected error in InitProducerIdResponse; " + error.message()));
            default -> {
                return retry(step, kind, nowMs);
            }
        }
        return false;
    }

    private boolean addPartitionsAnswered(Step step, AddPartitionsToTxnResponseData response, long nowMs) {
        Map<TopicPartition, ErrorCode> errors = TransactionRequests.addPartitionsErrors(response);
        Set<String> unauthorized = new TreeSet<>();
        boolean partitionErrors = false;
        for (Map.Entry<TopicPartition, ErrorCode> answer : errors.entrySet()) {
            ErrorCode error = answer.getValue();
            TransactionErrorKind kind = TransactionErrorKind.ofAddPartitions(error);
            switch (kind) {
                case NONE -> { }
                case COORDINATOR_MOVED, RETRY, CONCURRENT -> {
                    return retry(step, kind, nowMs);
                }
                case FENCED -> {
                    fatal(step, fenced());
                    return false;
                }
                case FATAL -> {
                    fatal(step, error.exception());
                    return false;
                }
                case ABORTABLE_WITH_BUMP -> {
                    abortable(step, error.exception(), true);
                    return false;
                }
                case ABORTABLE -> {
                    if (error == ErrorCode.TRANSACTION_ABORTABLE) {
                        abortable(step, error.exception(), false);
                        return false;
                    }
                    if (error == ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
                        unauthorized.add(answer.getKey().topic());
                    } else {
                        partitionErrors = true;
                    }
                }
            }
        }
        // Out of the pending set whatever the answer: batches of partitions that were added may go on retrying.
        adding.removeAll(step.partitions);
        if (!unauthorized.isEmpty()) {
            abortable(step, new TopicAuthorizationException(unauthorized), false);
        } else if (partitionErrors) {
            abortable(step, new KafkaException("Could not add partitions to transaction due to errors: " + errors), false);
        } else {
            inTransaction.addAll(step.partitions);
            started = true;
            LOG.debug("[TransactionalId {}] Added partitions {} to the transaction", transactionalId, step.partitions);
        }
        return false;
    }

    private boolean addOffsetsAnswered(Step step, AddOffsetsToTxnResponseData response, long nowMs) {
        ErrorCode error = ErrorCode.forCode(response.errorCode());
        TransactionErrorKind kind = TransactionErrorKind.ofAddOffsets(error);
        switch (kind) {
            case NONE -> {
                started = true;
                // The call ends when the offsets are committed, at the group's coordinator.
                queue.add(offsets(StepKind.TXN_OFFSET_COMMIT, step.call, step.group, step.offsets));
            }
            case ABORTABLE -> abortable(step, error == ErrorCode.GROUP_AUTHORIZATION_FAILED
                    ? GroupAuthorizationException.forGroupId(step.group.groupId()) : error.exception(), false);
            case ABORTABLE_WITH_BUMP -> abortable(step, error.exception(), true);
            case FENCED -> fatal(step, fenced());
            case FATAL -> fatal(step, unexpected(error, "Unexpected error in AddOffsetsToTxnResponse: "));
            default -> {
                return retry(step, kind, nowMs);
            }
        }
        return false;
    }

    private boolean txnOffsetCommitAnswered(Step step, TxnOffsetCommitResponseData response, long nowMs) {
        TransactionErrorKind retryAs = null;
        for (Map.Entry<TopicPartition, ErrorCode> answer : TransactionRequests.txnOffsetCommitErrors(response).entrySet()) {
            ErrorCode error = answer.getValue();
            TransactionErrorKind kind = TransactionErrorKind.ofTxnOffsetCommit(error);
            switch (kind) {
                case NONE -> step.offsets.remove(answer.getKey());
                case COORDINATOR_MOVED -> retryAs = TransactionErrorKind.COORDINATOR_MOVED;
                case RETRY, CONCURRENT -> retryAs = retryAs == null ? TransactionErrorKind.RETRY : retryAs;
                case ABORTABLE, ABORTABLE_WITH_BUMP -> {
                    abortable(step, offsetCommitException(error, step.group.groupId()), false);
                    return false;
                }
                case FENCED -> {
                    fatal(step, fenced());
                    return false;
                }
                case FATAL -> {
                    fatal(step, error == ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                            || error == ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT
                            ? error.exception() : unexpected(error, "Unexpected error in TxnOffsetCommitResponse: "));
                    return false;
                }
            }
        }
        if (step.offsets.isEmpty()) {
            step.call.done();
            return false;
        }
        // What is left was refused for a transient reason (or left out of the answer): commit it again.
        return retry(step, retryAs == null ? TransactionErrorKind.RETRY : retryAs, nowMs);
    }

    private boolean endTxnAnswered(Step step, EndTxnResponseData response, long nowMs) {
        ErrorCode error = ErrorCode.forCode(response.errorCode());
        TransactionErrorKind kind = TransactionErrorKind.ofEndTxn(error, step.commit);
        switch (kind) {
            case NONE -> {
                // EndTxn v5 (transaction version 2) hands out the identity of the next transaction; older versions -1.
                if (response.producerId() >= 0) {
                    setIdentity(response.producerId(), response.producerEpoch());
                }
                transactionEnded(step.call);
            }
            case ABORTABLE -> abortable(step, error.exception(), false);
            case ABORTABLE_WITH_BUMP -> abortable(step, error.exception(), true);
            case FENCED -> fatal(step, fenced());
            case FATAL -> fatal(step, switch (error) {
                case TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> error.exception();
                case TRANSACTION_ABORTABLE -> new KafkaException("Failed to abort transaction", error.exception());
                default -> new KafkaException("Unhandled error in EndTxnResponse: " + error.message());
            });
            default -> {
                return retry(step, kind, nowMs);
            }
        }
        return false;
    }

    // ---- Transitions.

    /**
     * The transaction is over (committed, aborted, or never started): back to ready, through an
     * epoch bump when an error of the transaction asked for one or the cluster moved to transaction
     * version 2 meanwhile. The call ends when the producer is ready again.
     */
    private void transactionEnded(TransactionCall call) {
        boolean bump = bumpAfterTransaction || !version2 && clusterTransactionVersion >= 2;
        inTransaction.clear();
        toAdd.clear();
        adding.clear();
        started = false;
        bumpAfterTransaction = false;
        if (bump) {
            moveTo(TransactionState.INITIALIZING, null);
            LOG.info("[TransactionalId {}] Invoking InitProducerId with current producer ID and epoch {}/{} in order to bump the epoch",
                    transactionalId, producerId, epoch);
            queue.add(initProducerId(call, true));
            return;
        }
        moveTo(TransactionState.READY, null);
        call.done();
    }

    private void setIdentity(long id, short newEpoch) {
        if (id != producerId) {
            LOG.info("[TransactionalId {}] ProducerId set to {} with epoch {}", transactionalId, id, newEpoch);
        } else {
            LOG.debug("[TransactionalId {}] ProducerId set to {} with epoch {}", transactionalId, id, newEpoch);
        }
        producerId = id;
        epoch = newEpoch;
        identityListener.identity(id, newEpoch);
    }

    /** Sends {@code step} again: at once to a coordinator found again, after a backoff for a transient refusal. */
    private boolean retry(Step step, TransactionErrorKind kind, long nowMs) {
        step.movedInARow = kind == TransactionErrorKind.COORDINATOR_MOVED ? step.movedInARow + 1 : 0;
        long backoffMs = switch (kind) {
            // A coordinator that keeps moving (a lookup naming a broker that is not it yet) is not chased at round-trip speed.
            case COORDINATOR_MOVED -> step.movedInARow > 1 ? retryBackoffMs : 0;
            case CONCURRENT -> inTransaction.isEmpty() ? Math.min(CONCURRENT_TRANSACTIONS_BACKOFF_MS, retryBackoffMs) : retryBackoffMs;
            default -> retryBackoffMs;
        };
        step.notBeforeMs = nowMs + backoffMs;
        queue.add(step);
        return kind == TransactionErrorKind.COORDINATOR_MOVED;
    }

    private void abortable(Step step, RuntimeException error, boolean bump) {
        if (step != null) {
            failCall(step, error);
        }
        if (state == TransactionState.ABORTING) {
            LOG.debug("[TransactionalId {}] Already aborting; not moving to the abortable error state for {}", transactionalId,
                    error.toString());
            return;
        }
        if (!state.mayMoveTo(TransactionState.ABORTABLE_ERROR)) {
            LOG.debug("[TransactionalId {}] No transaction to fail in state {}: {}", transactionalId, state, error.toString());
            return;
        }
        // Transaction version 2 bumps the epoch at every EndTxn anyway.
        bumpAfterTransaction |= bump && !version2;
        LOG.info("[TransactionalId {}] Transiting to abortable error state due to {}", transactionalId, error.toString());
        moveTo(TransactionState.ABORTABLE_ERROR, error);
    }

    private void fatal(Step step, RuntimeException error) {
        LOG.info("[TransactionalId {}] Transiting to fatal error state due to {}", transactionalId, error.toString());
        if (step != null) {
            failCall(step, error);
        }
        moveTo(TransactionState.FATAL_ERROR, error);
        TransactionCall call = pendingCall;
        if (call != null) {
            call.fail(error);
        }
    }

    private static void failCall(Step step, RuntimeException error) {
        if (step.call != null) {
            step.call.fail(error);
        }
    }

    private void moveTo(TransactionState target, RuntimeException error) {
        if (!state.mayMoveTo(target)) {
            throw new IllegalStateException("TransactionalId " + transactionalId + ": Invalid transition attempted from state "
                    + state + " to state " + target);
        }
        lastError = target.isError() ? error : null;
        state = target;
    }

    private void takeSentPartitions() {
        TopicPartition partition;
        while ((partition = sentTo.poll()) != null) {
            if (version2) {
                // Its first Produce adds it, so the transaction has begun at the coordinator.
                started = true;
            } else if (!inTransaction.contains(partition) && !adding.contains(partition)) {
                toAdd.add(partition);
            }
        }
    }

    // ---- Checks of the application's calls.

    /**
     * Runs {@code start} unless a call that timed out is pending: the same call resumes it, any
     * other is refused, as {@code KafkaProducer}'s are.
     */
    private TransactionCall startOrResume(String operation, TransactionState target, Supplier<TransactionCall> start) {
        TransactionCall pending = pendingCall;
        if (pending != null && !pending.wasSeenToEnd() && pending.target() == target) {
            return pending;
        }
        requireNoCallPending(operation);
        TransactionCall call = start.get();
        pendingCall = call;
        return call;
    }

    private void requireNoCallPending(String operation) {
        TransactionCall pending = pendingCall;
        if (pending != null && !pending.wasSeenToEnd()) {
            throw new IllegalStateException("Cannot attempt operation `" + operation + "` because the previous call to `"
                    + pending.operation() + "` timed out and must be retried");
        }
    }

    /**
     * Fails in an error state, with {@code KafkaProducer}'s exceptions: a fresh
     * {@link ProducerFencedException} or {@link InvalidProducerEpochException} once fenced, else a
     * {@link KafkaException} whose cause is the error.
     */
    private void failIfInError() {
        RuntimeException error = lastError;
        if (!state.isError() || error == null) {
            return;
        }
        String producer = "Producer with transactionalId '" + transactionalId + "' and (producerId=" + producerId
                + ", epoch=" + epoch + ")";
        if (error instanceof ProducerFencedException) {
            throw new ProducerFencedException(producer + " has been fenced by another producer with the same transactionalId");
        }
        if (error instanceof InvalidProducerEpochException) {
            throw new InvalidProducerEpochException(producer + " attempted to produce with an old epoch");
        }
        throw new KafkaException("Cannot execute transactional method because we are in an error state", error);
    }

    // ---- Exceptions.

    private static RuntimeException fenced() {
        return ErrorCode.PRODUCER_FENCED.exception();
    }

    private static RuntimeException unexpected(ErrorCode error, String prefix) {
        return new KafkaException(prefix + error.message());
    }

    private static RuntimeException offsetCommitException(ErrorCode error, String groupId) {
        return switch (error) {
            case GROUP_AUTHORIZATION_FAILED -> GroupAuthorizationException.forGroupId(groupId);
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> new CommitFailedException(
                    "Transaction offset Commit failed due to consumer group metadata mismatch: " + error.exception().getMessage());
            default -> error.exception();
        };
    }

    /**
     * {@code TransactionAbortableException} with a cause: built through the error's table, since
     * kafka-clients 3.7 has no such class (it then gets the nearest one it has).
     */
    private static RuntimeException abortableException(String message, Throwable cause) {
        RuntimeException error = ErrorCode.TRANSACTION_ABORTABLE.exception(message);
        error.initCause(cause);
        return error;
    }

    /** Whether {@code error} is TRANSACTION_ABORTABLE's exception; named, since kafka-clients 3.7 has no such class. */
    private static boolean isTransactionAbortable(Throwable error) {
        return error.getClass().getName().equals(ErrorCode.TRANSACTION_ABORTABLE.exceptionClassNames().get(0));
    }

    /** For a test: the partitions the coordinator added to the transaction open now. */
    List<TopicPartition> partitionsInTransaction() {
        return new ArrayList<>(inTransaction);
    }

    /** The state now. */
    public TransactionState state() {
        return state;
    }
}
