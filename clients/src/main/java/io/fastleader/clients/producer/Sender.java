package io.fastleader.clients.producer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.LeaderMoves;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.metadata.Refusal;
import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.clients.network.IoLoop;
import io.fastleader.clients.network.RequestTimedOutException;
import io.fastleader.clients.producer.transaction.CoordinatorLink;
import io.fastleader.clients.producer.transaction.TransactionState;
import io.fastleader.clients.producer.transaction.Transactions;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData;

/**
 * The producer's sender: takes ready batches out of the {@link RecordAccumulator}, sends them to
 * their partitions' leaders and settles every batch by its answer. It runs in passes on the I/O loop
 * of the producer's connections ({@link ConnectionPool#loop}), as {@code KafkaProducer}'s sender runs
 * on its network thread: an answer is read, its batches settled and the next request drained on that
 * one thread, with no handoff between. A pass is queued by appends ({@link #wakeup}), by answers and
 * by leader changes, and timed for the next linger, backoff or expiry.
 *
 * <p>Every piece of the sender's state is touched only on the loop: answers from the transport
 * are queued as events and handled at the next pass, in order; a leader change only wakes the
 * sender, which then reads the cache. The decisions are pure and clock-driven elsewhere: readiness
 * ({@link RecordAccumulator#ready}, which asks each retry's {@link EpochBackoff.State} against the
 * leader epoch known then), routing ({@link SendPlan}), retry limits ({@link RetryLimits}), error
 * classes ({@link ProduceErrorKind}), leader moves ({@link LeaderMoves}, routed by
 * {@link ClusterMetadata#onLeaderMoves}), sequence numbers ({@link ProducerIdentity}).
 *
 * <p>Pipelining and order: up to {@code max.in.flight.requests.per.connection} Produce requests
 * are in flight per broker, each with at most one batch per partition, so a partition may have
 * that many batches in flight, all to one broker ({@link InFlightBatches}). The broker answers
 * them in order. A refused batch goes back into its partition's queue in front of every batch
 * made after it, and the batches in flight behind it come back refused too (with idempotence, as
 * OUT_OF_ORDER_SEQUENCE_NUMBER, which then means "behind a refused batch" and is retried without
 * an epoch bump). All of them are then resent in their first order, pipelined again: after a
 * leader move the whole window goes to the new leader at once, not one batch per round trip.
 * With idempotence a partition pipelines only once the broker wrote one of its batches under the
 * held identity ({@link ProducerIdentity#mayPipeline}), so no batch is written ahead of an
 * earlier one; without it a batch written behind a refused one stays ahead of it, as in Kafka.
 *
 * <p>Every batch ends exactly once: written, failed by a non-retriable error, by {@code retries}
 * running out, by {@code delivery.timeout.ms} (queued or in flight), or by a forced close.
 *
 * <p>With {@code acks=0} the broker answers nothing: a request's batches end written, offsets
 * unknown, once the request is written, as in {@code KafkaProducer}; only a request that could not
 * be written is retried. A broker refuses such a request (not the leader, say) by closing the
 * connection, the only sign a leader moved: the topics written over a connection that closes are
 * refreshed, as {@code KafkaProducer} refreshes its metadata on every disconnection, and nothing
 * more goes to that broker until a Metadata answer has come, so batches that would be lost on a
 * former leader wait for the new one instead.
 *
 * <p>Where a batch waits is noted where it is decided, on its {@link BatchTimeline}: the accumulator
 * notes backoffs and batches left queued, the send plan why a ready partition is held, and this
 * loop when a request waits for its connection, goes out, and is answered. The slow-batch log
 * ({@link SlowBatchLog}) prints the timeline of a batch that took long.
 */
public final class Sender {

    private static final Logger LOG = LoggerFactory.getLogger(Sender.class);
    /**
     * A timer due less than this before the next pass's deadline is kept rather than replaced: the
     * waits are whole milliseconds of the producer's clock, finer than which a timer means nothing.
     */
    private static final long TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final RecordAccumulator accumulator;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final ConnectionPool pool;
    private final ProducerSettings settings;
    private final EpochBackoff retryBackoff;
    private final ProducerMetrics metrics;
    private final SlowBatchLog slowBatches;
    private final LongSupplier clockMs;
    /** Null without idempotence. */
    private final ProducerIdentity identity;
    private final BrokerAvailability availability;
    /** Null without {@code transactional.id}. */
    private final String transactionalId;
    /** Null without {@code transactional.id}. */
    private final Transactions transactions;
    private final CoordinatorLink coordinators;
    private final short acks;
    private final int requestTimeoutMs;
    private final int maxInFlightPerNode;

    private final IoLoop loop;
    private final Queue<Runnable> events = new ConcurrentLinkedQueue<>();
    /** A pass is queued on the loop and has not begun: a wakeup meanwhile needs no other. */
    private final AtomicBoolean passQueued = new AtomicBoolean();
    /** Guards {@link #stopped} against calls queued as the sender ends. */
    private final Object endLock = new Object();
    /** Set under the end lock once the sender has ended: no event queued after it would ever run. */
    private volatile boolean stopped;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private volatile boolean closing;
    private volatile boolean forced;
    /** A pass is running: with no pass queued either, the sender is idle. */
    private volatile boolean inPass;

    // On the loop only.
    /** The timer of the next pass the last one asked for, and when it fires; null if none. */
    private Future<?> timer;
    private long timerDeadlineNanos;
    private final InFlightBatches inFlight = new InFlightBatches();
    private final Map<Integer, Integer> requestsPerNode = new HashMap<>();
    /** {@code acks=0}: the topics written over each connection still open, refreshed when it closes. */
    private final Map<BrokerConnection, Set<String>> topicsWrittenOver = new IdentityHashMap<>();
    /**
     * {@code acks=0}: brokers that closed a connection batches were written over, with the count of
     * Metadata answers applied then; each is sent nothing until a later answer has come.
     */
    private final Map<Integer, Long> nodesAwaitingMetadata = new HashMap<>();
    private boolean initInFlight;
    private int initFailures;
    private long initRetryAtMs;

    /**
     * @param retryBackoff the backoff of refused batches, and of producer id requests
     * @param slowBatches  told of every batch the sender ends
     * @param clockMs      monotonic milliseconds, the clock the accumulator's batches were created by
     */
    public Sender(RecordAccumulator accumulator, ClusterMetadata metadata, ConnectionPool pool, ProducerSettings settings,
                  EpochBackoff retryBackoff, ProducerMetrics metrics, SlowBatchLog slowBatches, LongSupplier clockMs) {
        this.accumulator = accumulator;
        this.metadata = metadata;
        this.cache = metadata.cache();
        this.pool = pool;
        this.settings = settings;
        this.retryBackoff = retryBackoff;
        this.metrics = metrics;
        this.slowBatches = slowBatches;
        this.clockMs = clockMs;
        this.transactionalId = settings.transactionalId();
        this.identity = settings.idempotent() ? new ProducerIdentity(transactionalId != null) : null;
        this.availability = new BrokerAvailability(settings.partitionerAdaptive() ? settings.partitionerAvailabilityTimeoutMs() : 0);
        if (transactionalId != null) {
            this.transactions = new Transactions(transactionalId, settings.transactionTimeoutMs(), settings.retryBackoffMs(),
                    identity::initialized);
            this.coordinators = new CoordinatorLink(pool, metadata, transactions, this::onLoop, clockMs);
        } else {
            this.transactions = null;
            this.coordinators = null;
        }
        this.acks = settings.acks();
        this.requestTimeoutMs = settings.requestTimeoutMs();
        this.maxInFlightPerNode = settings.maxInFlightPerConnection();
        this.loop = Objects.requireNonNull(pool.loop(), "the pool's I/O loop");
        // A newer epoch may end a retry's backoff: the next readiness check sees it.
        cache.wakeOnChange(this::wakeup);
    }

    /** Queues the first pass: the sender runs from now on, until it has ended ({@link #whenEnded}). */
    public void start() {
        wakeup();
    }

    /** Makes the sender look again at once: records were appended, a flush began, or the producer closes. */
    public void wakeup() {
        if (passQueued.compareAndSet(false, true) && !loop.execute(this::pass)) {
            // The loop has stopped: the producer is closed, and its close has ended every batch.
            passQueued.set(false);
        }
    }

    /** Whether the calling thread is the one the sender runs on: a send callback's. */
    public boolean inSender() {
        return loop.inLoop();
    }

    /** Completes once the sender has ended, every batch ended with it. */
    public CompletableFuture<Void> whenEnded() {
        return ended.copy();
    }

    /** No pass running nor queued: everything the sender could do is done until something wakes it. For tests. */
    boolean isIdle() {
        return !passQueued.get() && !inPass;
    }

    /** Whether a timed pass is due. For tests, once the sender is idle ({@link #isIdle}), which makes the timer seen. */
    boolean hasTimedPass() {
        return timer != null;
    }

    /** The producer's transactions, or null without {@code transactional.id}. Its calls go through {@link #call}. */
    public Transactions transactions() {
        return transactions;
    }

    /**
     * Runs {@code task} on the sender's thread, which owns the producer's transactional state, and
     * returns its result (or throws what it threw). Called on that thread (from a send callback),
     * it runs at once.
     *
     * @throws IllegalStateException when the sender has ended: the producer is closed
     */
    public <T> T call(Supplier<T> task) {
        if (inSender()) {
            return task.get();
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        synchronized (endLock) {
            if (stopped) {
                throw new IllegalStateException("The producer is closed");
            }
            onLoop(() -> {
                try {
                    result.complete(task.get());
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        }
        try {
            return result.join();
        } catch (CompletionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    /**
     * Runs {@code event} at the next pass: how answers, lookups and the application's calls reach
     * the sender's state. Takes no lock, so a caller may hold the end lock already.
     */
    private void onLoop(Runnable event) {
        events.add(event);
        wakeup();
    }

    /** Asks the loop to end once every batch has ended; the accumulator must be closed first, so no batch is added. */
    public void initiateClose() {
        closing = true;
        wakeup();
    }

    /** Ends the loop at once; the caller has failed every batch ({@link RecordAccumulator#abortAll}). */
    public void forceClose() {
        closing = true;
        forced = true;
        wakeup();
    }

    /**
     * One pass: the events queued since the last, the end if the producer closes and nothing is
     * left, else whatever is ready is sent, and the next pass queued or timed.
     */
    private void pass() {
        passQueued.set(false);
        if (stopped) {
            return;
        }
        inPass = true;
        try {
            if (forced) {
                end();
                return;
            }
            handleEvents();
            if (closing && transactions != null && transactions.needsAbortOnClose() && !abortOnClose()) {
                end();
                return;
            }
            if (closing && !accumulator.hasIncomplete() && (transactions == null || !transactions.hasWork())) {
                end();
                return;
            }
            passIn(sendWhatIsReady(clockMs.getAsLong()));
        } catch (RuntimeException e) {
            // The sender must outlive any one bad batch or answer, or every later record hangs.
            LOG.error("Unexpected error in the producer's sender", e);
            wakeup();
        } finally {
            inPass = false;
        }
    }

    /**
     * Times the next pass for {@code waitMs} from now: at once for 0, never for
     * {@code Long.MAX_VALUE} (a wakeup will come). Every pass works out the whole wait from the
     * state it saw, as {@code KafkaProducer}'s sender works out its poll timeout, so a timer it
     * asked for before is replaced, sooner or later: one left to fire early (a lingering batch that
     * filled and went meanwhile) would only turn the loop for a pass with nothing to do.
     */
    private void passIn(long waitMs) {
        if (waitMs <= 0) {
            wakeup();
            return;
        }
        if (waitMs == Long.MAX_VALUE) {
            cancelTimer();
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        long early = deadline - timerDeadlineNanos;
        if (timer != null && early >= 0 && early < TIMER_SLACK_NANOS) {
            return;
        }
        cancelTimer();
        timerDeadlineNanos = deadline;
        try {
            timer = loop.schedule(this::timedPass, TimeUnit.MILLISECONDS.toNanos(waitMs));
        } catch (RejectedExecutionException e) {
            // The loop has stopped: the producer is closed, and its close has ended every batch.
            timer = null;
        }
    }

    private void timedPass() {
        timer = null;
        pass();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** The sender ends: transactional calls still waiting fail, as do calls queued before it ended. */
    private void end() {
        synchronized (endLock) {
            stopped = true;
        }
        cancelTimer();
        try {
            if (transactions != null) {
                transactions.close(new KafkaException("The producer closed forcefully"));
            }
            handleEvents();
        } finally {
            ended.complete(null);
        }
    }

    /**
     * Begins the abort of the transaction left open at close, as {@code KafkaProducer} does; false
     * when it cannot begin (a call that timed out is still pending), and every batch then fails.
     */
    private boolean abortOnClose() {
        LOG.info("Aborting incomplete transaction due to shutdown");
        try {
            transactions.abortTransaction();
            return true;
        } catch (RuntimeException e) {
            LOG.error("Could not abort the open transaction while closing; failing its records", e);
            accumulator.abortAll(new KafkaException("The producer closed with a transaction it could not abort", e));
            return false;
        }
    }

    private void handleEvents() {
        Runnable event;
        while ((event = events.poll()) != null) {
            event.run();
        }
    }

    /**
     * One pass: expire, get a producer id if needed, send one request to each leader with a ready
     * partition and room for it. Returns how long to wait: nothing after a pass that sent, since a
     * leader may take a further batch of the same partitions.
     */
    private long sendWhatIsReady(long nowMs) {
        ReadyCheck check = accumulator.ready(nowMs);
        failExpired(check.expiredBatches(), nowMs);
        // Covers the next linger, backoff and queued expiry, so it also bounds a wait for a producer id.
        long waitMs = Math.min(untilInFlightExpiry(nowMs), check.nextReadyCheckDelayMs());
        if (transactions != null) {
            waitMs = Math.min(waitMs, driveTransaction(nowMs));
        }
        if (identity != null && !identity.isHeld()) {
            // Waiting for a producer id is none of the named phases.
            for (TopicPartition partition : check.readyPartitions()) {
                accumulator.markWaiting(partition, BatchPhase.QUEUED, nowMs);
            }
            if (transactions != null) {
                // A transactional producer's id comes from its coordinator, with initTransactions.
                return waitMs;
            }
            // A new epoch starts every sequence again: ask for it once no batch of the old one is in flight.
            return inFlight.isEmpty() ? Math.min(waitMs, initProducerId(nowMs)) : waitMs;
        }
        long answersApplied = metadata.answersApplied();
        nodesAwaitingMetadata.values().removeIf(answersThen -> answersApplied > answersThen);
        if (!nodesAwaitingMetadata.isEmpty()) {
            // A leader change wakes the loop; an answer that changes none is seen by looking again.
            waitMs = Math.min(waitMs, settings.retryBackoffMs());
        }
        SendPlan plan = SendPlan.of(check.readyPartitions(), cache::routable, this::holdAt);
        plan.held().forEach((partition, phase) -> accumulator.markWaiting(partition, phase, nowMs));
        if (!plan.topicsWithoutLeader().isEmpty()) {
            metadata.onLeaderError(plan.topicsWithoutLeader());
            // A leader change wakes the loop; looking again after a refresh backoff covers a topic the cache lacks.
            waitMs = Math.min(waitMs, settings.retryBackoffMs());
        }
        boolean sent = false;
        for (Map.Entry<Integer, List<TopicPartition>> entry : plan.byLeader().entrySet()) {
            boolean took = send(entry.getKey(), entry.getValue(), nowMs);
            if (took && availability.isOn()) {
                availability.noteReady(entry.getKey(), true, nowMs);
            }
            sent |= took;
        }
        if (availability.isOn()) {
            noteLeadersThatTookNothing(plan.held(), nowMs);
        }
        return sent ? 0 : waitMs;
    }

    /**
     * Notes, for {@code partitioner.availability.timeout.ms}, the leaders of the held partitions
     * whose batches wait for room at that leader ({@link BatchPhase#QUEUED}): ready, and taking
     * none. A partition held for its transaction, its metadata, or batches still in flight to
     * another node says nothing of its leader.
     */
    private void noteLeadersThatTookNothing(Map<TopicPartition, BatchPhase> held, long nowMs) {
        held.forEach((partition, phase) -> {
            PartitionLeadership leadership = phase == BatchPhase.QUEUED ? cache.routable(partition) : null;
            if (leadership != null) {
                availability.noteReady(leadership.leaderId(), false, nowMs);
            }
        });
    }

    /** Which brokers the adaptive partitioner may draw a new sticky partition's leader among. */
    BrokerAvailability availability() {
        return availability;
    }

    /**
     * The transaction's part of a pass: batches that may no longer go fail, the next request to a
     * coordinator goes out. Returns how long until a request waiting for its backoff may go.
     */
    private long driveTransaction(long nowMs) {
        RuntimeException failUnsent = transactions.unsentBatchesFailWith();
        if (failUnsent != null) {
            accumulator.failQueued(failUnsent, transactions.state() != TransactionState.FATAL_ERROR);
        }
        accumulator.sendAtOnce(transactions.isCompleting());
        Transactions.Step step = transactions.nextStep(accumulator.hasIncomplete(), nowMs);
        if (step != null) {
            coordinators.send(step);
        }
        return transactions.untilNextStepMs(nowMs);
    }

    /**
     * Why the partition's next batch may not go to {@code node} now, or null when it may. It may
     * when the partition's batches in flight (if any) went there, the node has room, and with
     * idempotence the broker already holds the producer's state for it ({@link ProducerIdentity#mayPipeline}).
     */
    private BatchPhase holdAt(TopicPartition partition, int node) {
        if (transactions != null && !transactions.maySend(partition)) {
            return BatchPhase.TRANSACTION;
        }
        if (nodesAwaitingMetadata.containsKey(node)) {
            // acks=0: the broker refused by closing the connection; until Metadata answers, it may no longer lead.
            return BatchPhase.METADATA;
        }
        if (!inFlight.mayGoTo(partition, node)) {
            return BatchPhase.BEHIND_IN_FLIGHT;
        }
        boolean mayGo = requestsPerNode.getOrDefault(node, 0) < maxInFlightPerNode
                && (identity == null || !inFlight.contains(partition) || identity.mayPipeline(partition));
        return mayGo ? null : BatchPhase.QUEUED;
    }

    /** Drains the partitions' first batches into one request to their leader; true if it sent one. */
    private boolean send(int node, List<TopicPartition> partitions, long nowMs) {
        List<ProducerBatch> batches = accumulator.drain(partitions, settings.maxRequestSize(), nowMs);
        if (batches.isEmpty()) {
            return false;
        }
        Map<String, Uuid> topicIds = new HashMap<>();
        for (ProducerBatch batch : batches) {
            TopicPartition partition = batch.topicPartition();
            cache.topicId(partition.topic()).ifPresent(id -> topicIds.put(partition.topic(), id));
            if (identity != null) {
                identity.stamp(batch);
            }
        }
        // Building the request closes the batches: their sizes and compression ratios are final when measured.
        ProduceRequestData request = ProduceRequests.build(transactionalId, acks, requestTimeoutMs, batches);
        metrics.requestSent(batches, nowMs);
        boolean connecting = !pool.isReady(node);
        for (ProducerBatch batch : batches) {
            int leaderEpoch = cache.leaderEpoch(batch.topicPartition());
            if (batch.backoff().isCutShort(leaderEpoch, nowMs)) {
                metrics.backoffSkipped();
            }
            batch.markSent(leaderEpoch);
            inFlight.sent(node, batch);
            if (connecting) {
                batch.timeline().waiting(BatchPhase.CONNECTING, node, nowMs);
            } else {
                batch.timeline().sent(node, leaderEpoch, nowMs);
            }
        }
        requestsPerNode.merge(node, 1, Integer::sum);
        if (connecting) {
            // Asked before the request, so the pool hands the connection to this first: the batches
            // are in flight before any answer. A failed connect fails the request too, ending the attempt.
            pool.connect(node).thenRun(() -> onLoop(() -> connected(node, batches)));
        }
        if (acks == 0) {
            pool.sendWithoutResponse(node, ApiKey.PRODUCE, request)
                    .whenComplete((connection, error) -> {
                        batches.forEach(ProducerBatch::leftTransport);
                        onLoop(() -> requestWritten(node, batches, topicIds, nowMs, connection, error));
                    });
            return true;
        }
        CompletableFuture<ApiMessage> answer = transactions == null ? pool.send(node, ApiKey.PRODUCE, request)
                : pool.send(node, ApiKey.PRODUCE, transactions.highestProduceVersion(), version -> request);
        answer.whenComplete((response, error) -> {
            // Answered or failed, the request's frame is written or dropped: the batches' buffers may be reused.
            batches.forEach(ProducerBatch::leftTransport);
            onLoop(() -> answered(node, batches, topicIds, nowMs, response, error));
        });
        return true;
    }

    /**
     * {@code acks=0}: the request is written, or could not be. Written, its batches end as written
     * with no offset, as the broker will not say where it put them, and no log append time; a
     * request that could not be written fails as an unanswered one does, and is retried.
     */
    private void requestWritten(int node, List<ProducerBatch> batches, Map<String, Uuid> topicIds, long sentAtMs,
                                BrokerConnection connection, Throwable error) {
        if (error != null) {
            answered(node, batches, topicIds, sentAtMs, null, error);
            return;
        }
        long nowMs = clockMs.getAsLong();
        requestsPerNode.merge(node, -1, Integer::sum);
        batches.forEach(inFlight::answered);
        watchForRefusals(node, connection, batches);
        for (ProducerBatch batch : batches) {
            if (!batch.isDone()) {
                batch.timeline().answered(ErrorCode.NONE.name(), nowMs);
            }
            if (batch.complete(-1, RecordBatch.NO_TIMESTAMP)) {
                slowBatches.ended(batch, nowMs);
            }
        }
    }

    /**
     * Notes the batches' topics as written over {@code connection}, and on its first write starts
     * listening for its close: a broker that is not a partition's leader, or refuses an
     * {@code acks=0} batch for any reason, closes the connection, and nothing else tells.
     */
    private void watchForRefusals(int node, BrokerConnection connection, List<ProducerBatch> batches) {
        Set<String> topics = topicsWrittenOver.get(connection);
        if (topics == null) {
            topics = new TreeSet<>();
            topicsWrittenOver.put(connection, topics);
            connection.whenClosed().thenAccept(cause -> onLoop(() -> closedAfterWrites(node, connection, cause)));
        }
        for (ProducerBatch batch : batches) {
            topics.add(batch.topicPartition().topic());
        }
    }

    /**
     * A connection {@code acks=0} batches were written over closed: the leaders of their topics may
     * have moved. Until a Metadata answer comes, the broker is sent nothing more: whatever went there
     * would be lost if it no longer leads.
     */
    private void closedAfterWrites(int node, BrokerConnection connection, Throwable cause) {
        Set<String> topics = topicsWrittenOver.remove(connection);
        LOG.debug("A connection to node {} acks=0 batches of {} were written over closed; refreshing their metadata",
                node, topics, cause);
        nodesAwaitingMetadata.put(node, metadata.answersApplied());
        metadata.onLeaderError(topics);
    }

    /** The connection a request waited for is ready: the request's batches are in flight from now on. */
    private void connected(int node, List<ProducerBatch> batches) {
        long nowMs = clockMs.getAsLong();
        for (ProducerBatch batch : batches) {
            if (!batch.isDone() && batch.timeline().isConnectingTo(node)) {
                batch.timeline().sent(node, batch.lastSentLeaderEpoch(), nowMs);
            }
        }
    }

    private void answered(int node, List<ProducerBatch> batches, Map<String, Uuid> topicIds, long sentAtMs,
                          ApiMessage response, Throwable error) {
        long nowMs = clockMs.getAsLong();
        requestsPerNode.merge(node, -1, Integer::sum);
        batches.forEach(inFlight::answered);
        if (error != null) {
            Throwable failure = Failures.cause(error);
            String outcome = failure instanceof RequestTimedOutException ? BatchTimeline.TIMEOUT : BatchTimeline.DISCONNECTED;
            for (ProducerBatch batch : batches) {
                if (!batch.isDone()) {
                    batch.timeline().answered(outcome, nowMs);
                }
                metrics.produceMoves().refused(batch.topicPartition(), node, batch.lastSentLeaderEpoch(), false, nowMs);
            }
            requestFailed(batches, failure, nowMs);
            return;
        }
        ProduceResponseData produced = (ProduceResponseData) response;
        metrics.requestAnswered(node, nowMs - sentAtMs, produced.throttleTimeMs());
        LeaderMoves moves = LeaderMoves.of(produced, topicIds);
        // Routed before the refused batches are put back, so a hint's new epoch is known at their next readiness check.
        Set<TopicPartition> followed = metadata.onLeaderMoves(moves);
        for (ProducerBatch batch : batches) {
            PartitionProduceResponse answer = ProduceRequests.answerFor(produced, batch.topicPartition());
            if (batch.isDone()) {
                continue;
            }
            if (answer == null) {
                batch.timeline().answered(BatchTimeline.LEFT_OUT, nowMs);
                retry(batch, new KafkaException("the broker's Produce response left out " + batch.topicPartition()), nowMs);
                continue;
            }
            ErrorCode code = ErrorCode.forCode(answer.errorCode());
            RuntimeException cause = ProduceErrorKind.exception(code, batch.topicPartition(), answer.errorMessage());
            batch.timeline().answered(code.name(), nowMs);
            switch (ProduceErrorKind.of(code)) {
                case WRITTEN -> {
                    metrics.produceMoves().answered(batch.topicPartition(), node, batch.lastSentLeaderEpoch(), nowMs);
                    written(batch, answer, nowMs);
                }
                case LEADER_MOVED -> {
                    metrics.produceMoves().refused(batch.topicPartition(), node, batch.lastSentLeaderEpoch(),
                            followed.contains(batch.topicPartition()), nowMs);
                    retry(batch, cause, moves.refusal(batch.topicPartition(), nowMs - sentAtMs), nowMs);
                }
                case RETRIABLE -> retry(batch, cause, nowMs);
                case OUT_OF_SEQUENCE -> outOfSequence(batch, cause, nowMs);
                case SEQUENCE_LOST -> sequenceLost(batch, cause, nowMs);
                case TOO_LARGE -> tooLarge(batch, answer.errorMessage(), nowMs);
                case FATAL -> fail(batch, cause, nowMs);
            }
        }
    }

    private void written(ProducerBatch batch, PartitionProduceResponse answer, long nowMs) {
        if (identity != null) {
            identity.written(batch);
        }
        if (batch.complete(answer.baseOffset(), answer.logAppendTimeMs())) {
            slowBatches.ended(batch, nowMs);
        }
    }

    /** The request got no answer (connection failure, timeout): every batch in it is retried, its topics refreshed. */
    private void requestFailed(List<ProducerBatch> batches, Throwable error, long nowMs) {
        RuntimeException failure = error instanceof RuntimeException runtime ? runtime : new KafkaException(error);
        if (!(failure instanceof RetriableException)) {
            batches.forEach(batch -> fail(batch, failure, nowMs));
            return;
        }
        LOG.debug("A Produce request failed; retrying its {} batch(es)", batches.size(), failure);
        Set<String> topics = new TreeSet<>();
        for (ProducerBatch batch : batches) {
            topics.add(batch.topicPartition().topic());
            retry(batch, failure, nowMs);
        }
        metadata.onLeaderError(topics);
    }

    /**
     * MESSAGE_TOO_LARGE: as in the Java client, a batch of several records is split and its halves
     * go in its place, without using up a retry; a half still too large is split again. A single
     * record fails: no split can make it smaller.
     */
    private void tooLarge(ProducerBatch batch, String brokerMessage, long nowMs) {
        if (batch.recordCount() < 2) {
            fail(batch, new RecordTooLargeException("The broker refused a record for " + batch.topicPartition() + " ("
                    + batch.estimatedSizeBytes() + " bytes as a batch) as too large: more than the topic's max.message.bytes"
                    + " or the broker's message.max.bytes" + (brokerMessage == null ? "" : " (" + brokerMessage + ")")), nowMs);
            return;
        }
        if (accumulator.splitAndReenqueue(batch) > 0) {
            metrics.batchSplit();
            LOG.info("The broker refused {} records for {} as too large; split in two", batch.recordCount(),
                    batch.topicPartition());
        }
    }

    /** The broker expected another sequence: a batch in flight behind a refused one, or lost producer state. */
    private void outOfSequence(ProducerBatch batch, RuntimeException error, long nowMs) {
        if (identity != null && identity.waitsForAnEarlierBatch(batch)) {
            // No backoff of its own: it is queued behind that batch and goes right after it.
            if (mayRetry(batch, error, nowMs)) {
                batch.backOff(batch.backoff().waitOver());
                accumulator.reenqueue(batch);
            }
            return;
        }
        sequenceLost(batch, error, nowMs);
    }

    private void sequenceLost(ProducerBatch batch, RuntimeException error, long nowMs) {
        if (identity == null || identity.isTransactional()) {
            // Only idempotent batches carry sequences; a broker saying otherwise is answering nonsense.
            // A transaction cannot re-sequence under its epoch: the batch fails, and the transaction with it.
            fail(batch, error, nowMs);
            return;
        }
        if (identity.bumpFor(batch)) {
            LOG.info("{} for {}: bumping the producer epoch and re-sequencing", error.getClass().getSimpleName(),
                    batch.topicPartition());
        }
        retry(batch, error, nowMs);
    }

    private void retry(ProducerBatch batch, RuntimeException error, long nowMs) {
        retry(batch, error, Refusal.NONE, nowMs);
    }

    /** Queues the batch again to wait out the backoff its refusal earned, or fails it if it may not be retried. */
    private void retry(ProducerBatch batch, RuntimeException error, Refusal refusal, long nowMs) {
        if (mayRetry(batch, error, nowMs)) {
            batch.backOff(retryBackoff.refused(batch.backoff(), batch.lastSentLeaderEpoch(), refusal, nowMs));
            accumulator.reenqueue(batch);
        }
    }

    /** Whether the batch may go again; if not, it is failed, unless it had ended already (expired in flight, aborted). */
    private boolean mayRetry(ProducerBatch batch, RuntimeException error, long nowMs) {
        if (batch.isDone()) {
            return false;
        }
        RuntimeException failure = RetryLimits.exceeded(settings.retries(), settings.deliveryTimeoutMs(), batch, error, nowMs);
        if (failure != null) {
            fail(batch, failure, nowMs);
            return false;
        }
        return true;
    }

    private void fail(ProducerBatch batch, RuntimeException error, long nowMs) {
        if (batch.isDone()) {
            return;
        }
        // A move its partition was refused for ends here unrecovered: the next batch starts afresh.
        metrics.produceMoves().forget(batch.topicPartition());
        // Counted before the callbacks run, so whoever sees the record fail finds it counted.
        metrics.batchFailed(batch);
        // A batch that took a sequence and was not written leaves a gap the broker would refuse.
        if (identity != null && identity.bumpFor(batch)) {
            LOG.info("A batch for {} failed after taking a sequence: bumping the producer epoch", batch.topicPartition());
        }
        if (batch.fail(error)) {
            slowBatches.ended(batch, nowMs);
            if (transactions != null) {
                transactions.batchFailed(error);
            }
        }
    }

    /** Fails the queued batches the accumulator took out as expired, and those in flight past their delivery timeout. */
    private void failExpired(List<ProducerBatch> expiredInQueues, long nowMs) {
        long timeoutMs = settings.deliveryTimeoutMs();
        for (ProducerBatch batch : expiredInQueues) {
            fail(batch, RetryLimits.deliveryTimeout(batch, timeoutMs, nowMs), nowMs);
        }
        // In flight too: the answer may never come in time. The batch stays in flight until it does.
        if (untilInFlightExpiry(nowMs) > 0) {
            return;
        }
        for (ProducerBatch batch : inFlight.batches()) {
            if (!batch.isDone() && batch.hasReachedDeliveryTimeout(timeoutMs, nowMs)) {
                fail(batch, RetryLimits.deliveryTimeout(batch, timeoutMs, nowMs), nowMs);
            }
        }
    }

    private long untilInFlightExpiry(long nowMs) {
        long oldestMs = inFlight.oldestUnendedCreatedMs();
        return oldestMs == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, oldestMs + settings.deliveryTimeoutMs() - nowMs);
    }

    /** Sends InitProducerId unless one is in flight or backing off; returns how long until it may be sent again. */
    private long initProducerId(long nowMs) {
        if (initInFlight) {
            return Long.MAX_VALUE;
        }
        if (nowMs < initRetryAtMs) {
            return initRetryAtMs - nowMs;
        }
        // Any broker answers an idempotent producer's InitProducerId; after failures, try the next one.
        List<Integer> nodes = new ArrayList<>(new TreeSet<>(cache.nodes().keySet()));
        int node = nodes.isEmpty() ? -1 : nodes.get(initFailures % nodes.size());
        initInFlight = true;
        pool.send(node, ApiKey.INIT_PRODUCER_ID, identity.initRequest())
                .whenComplete((response, error) -> onLoop(() -> initAnswered(node, response, error)));
        return Long.MAX_VALUE;
    }

    private void initAnswered(int node, ApiMessage response, Throwable error) {
        initInFlight = false;
        Throwable failure = Failures.cause(error);
        if (failure == null) {
            InitProducerIdResponseData answer = (InitProducerIdResponseData) response;
            ErrorCode code = ErrorCode.forCode(answer.errorCode());
            if (code == ErrorCode.NONE) {
                identity.initialized(answer);
                initFailures = 0;
                LOG.debug("Producer id {} epoch {} from node {}", answer.producerId(), answer.producerEpoch(), node);
                return;
            }
            failure = code.exception();
        }
        if (!(failure instanceof RetriableException)) {
            // No producer id can be had (authorization, say): nothing queued could ever be sent.
            LOG.error("InitProducerId failed for good; failing every batch", failure);
            accumulator.abortAll(failure instanceof RuntimeException runtime ? runtime : new KafkaException(failure));
            return;
        }
        initFailures++;
        initRetryAtMs = retryBackoff.untilMs(initFailures, clockMs.getAsLong());
        LOG.debug("InitProducerId to node {} failed; retrying", node, failure);
    }
}
