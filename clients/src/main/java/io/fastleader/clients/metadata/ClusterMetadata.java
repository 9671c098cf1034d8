package io.fastleader.clients.metadata;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import org.apache.kafka.common.ClusterResource;
import org.apache.kafka.common.ClusterResourceListener;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.BrokerConnectionException;
import io.fastleader.clients.network.ClientThreads;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.clients.network.MisroutedConnectionException;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.MetadataRequestData.MetadataRequestTopic;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * Keeps a {@link LeaderCache} current: sends Metadata requests as a {@link RefreshSchedule} decides,
 * and turns what the producer and consumer learn from refused requests ({@link LeaderMoves}) into
 * hints or refreshes ({@link #onLeaderMoves}).
 *
 * <p>The topics in use are refreshed every {@code metadata.max.age.ms}. A topic a producer has not
 * used for {@code metadata.max.idle.ms} drops out of use before the next request is planned, as
 * {@code KafkaProducer} forgets it; {@link #recordUse} then says so, and the topic comes back
 * through {@link #awaitTopics} like a new one.
 *
 * <p>All Metadata responses are applied on this object's one thread, in the order the requests
 * were sent; one request is in flight at a time. Requests go to the broker that answered last
 * (unless its connection has requests waiting and another known broker's has none), moving on to
 * the next after a failure. Which brokers those are, {@link MetadataRecovery} decides: the
 * bootstrap servers (under ids -1, -2, ...) until an answer names the brokers, then the brokers the
 * last answer named, and the bootstrap servers again after a rebootstrap
 * ({@code metadata.recovery.strategy}). A bootstrap server's host name is resolved anew at each
 * connect, as kafka-clients resolves it, so a cluster replaced behind the same name is found.
 */
public final class ClusterMetadata implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterMetadata.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** kafka-clients' words when a closed client's metadata is asked for, as {@code KafkaProducer.partitionsFor} after close says them. */
    private static final String CLOSED = "Requested metadata update after close";

    private final MetadataConfig config;
    private final ConnectionPool pool;
    private final MetadataMetrics metrics;
    private final LeaderCache cache;
    private final LongSupplier clockMs;
    /** Uniform in [0, 1): spreads backoffs. */
    private final DoubleSupplier random;
    /** When the last Metadata answer was applied, or this object was made before the first. */
    private volatile long lastAppliedMs;
    /** Metadata answers applied so far; written by the metadata thread only. */
    private volatile long answersApplied;
    /** The bootstrap servers by id, unresolved: the pool resolves each name at each connect. */
    private final Map<Integer, InetSocketAddress> bootstrap = new HashMap<>();
    /** {@code bootstrap.servers} as resolved when the client was built, for the log. */
    private final List<InetSocketAddress> bootstrapServers;
    /** Every broker's address as last listed, kept when a later table leaves it out ({@link #useNodes}). */
    private final Map<Integer, InetSocketAddress> lastKnownAddresses = new HashMap<>();
    /** Bound on waiting for the refresh thread at close, should an answer being applied hang. */
    private static final long THREAD_END_MILLIS = 10_000;

    private final ClientThreads threads = new ClientThreads();
    private final ScheduledExecutorService thread;
    private final Object lock = new Object();
    /** The topics in use, for this object and its schedule; membership changes under {@code lock}, uses are noted without it. */
    private final TopicUse topicUse;
    /** Guarded by {@code lock}, as is everything below but {@code metadataNode}. */
    private final RefreshSchedule schedule;
    private final MetadataRecovery recovery;
    private final BootstrapResolution bootstrapResolution;
    /** What the client fails with for good once {@code bootstrap.resolve.timeout.ms} passed unresolved; null until then. */
    private KafkaException bootstrapFailure;
    private final Map<String, List<TopicWait>> topicWaiters = new HashMap<>();
    private ScheduledFuture<?> wakeup;
    private long wakeupAtMs = Long.MAX_VALUE;
    private long lastView;
    private boolean closed;
    /** Written on {@code thread}; volatile because {@link #describeAllTopics} reads it on its caller's. */
    private volatile int metadataNode = Integer.MIN_VALUE;
    /** The plugins told of the cluster id, and the id they were last told; both guarded by {@code lock}. */
    private final List<ClusterResourceListener> clusterResourceListeners = new ArrayList<>();
    private String clusterId;
    /** Told of what a Metadata request met that kafka-clients raises to its consumer ({@link #onMetadataError}). */
    private final List<Consumer<KafkaException>> errorListeners = new CopyOnWriteArrayList<>();

    /** Metadata for a client whose brokers are first reached through {@code bootstrapServers}. */
    public ClusterMetadata(MetadataConfig config, ConnectionPool pool, List<InetSocketAddress> bootstrapServers,
                           Metrics metrics) {
        this(config, pool, bootstrapServers, new MetadataMetrics(metrics),
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), () -> ThreadLocalRandom.current().nextDouble());
    }

    ClusterMetadata(MetadataConfig config, ConnectionPool pool, List<InetSocketAddress> bootstrapServers,
                    MetadataMetrics metrics, LongSupplier clockMs, DoubleSupplier random) {
        this.config = Objects.requireNonNull(config, "config");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.random = Objects.requireNonNull(random, "random");
        this.lastAppliedMs = clockMs.getAsLong();
        if (bootstrapServers.isEmpty()) {
            throw new IllegalArgumentException("no bootstrap servers");
        }
        this.bootstrapServers = List.copyOf(bootstrapServers);
        for (int i = 0; i < bootstrapServers.size(); i++) {
            InetSocketAddress server = bootstrapServers.get(i);
            bootstrap.put(-1 - i, InetSocketAddress.createUnresolved(server.getHostString(), server.getPort()));
        }
        // The pool learns every node table before the cache shows a leadership that names it.
        this.cache = new LeaderCache(metrics, this::useNodes);
        this.topicUse = new TopicUse(config.metadataMaxIdle());
        this.schedule = new RefreshSchedule(config, topicUse, random);
        this.recovery = new MetadataRecovery(config.recoveryStrategy(), config.rebootstrapTrigger().toMillis());
        this.bootstrapResolution = new BootstrapResolution(config.bootstrapResolveTimeout(), lastAppliedMs);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                threads.named("fastleader-metadata-" + INSTANCES.incrementAndGet() + "-"));
        executor.setRemoveOnCancelPolicy(true);
        this.thread = executor;
        pool.updateNodes(bootstrap);
        if (config.clusterCheck()) {
            pool.onMisroutedConnection(this::misrouted);
        }
    }

    /**
     * Runs {@code task} on the metadata thread every {@code period} until {@link #close}: upkeep
     * that no request drives, such as {@link ReplicaPrewarm#keepWarm}.
     */
    public void every(Duration period, Runnable task) {
        long millis = Math.max(1, period.toMillis());
        thread.scheduleWithFixedDelay(task, millis, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Runs {@code task} once on the metadata thread after {@code delayMs}.
     *
     * @throws RejectedExecutionException after {@link #close}
     */
    public ScheduledFuture<?> after(long delayMs, Runnable task) {
        return thread.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    /**
     * The brokers a request about the cluster as a whole may go to, in the order a Metadata request
     * tries them: the known ones by id, or the bootstrap servers while none is known or while the
     * client rebootstraps.
     */
    public List<Integer> brokers() {
        return rotation();
    }

    /**
     * Runs tasks on the metadata thread, in order, after what it is doing now; after {@link #close}
     * it refuses them ({@link RejectedExecutionException}). For work that reacts to the cache but
     * must stay off the threads that write it, such as {@link ReplicaPrewarm}'s.
     */
    public Executor executor() {
        return thread::execute;
    }

    /** How long ago the last Metadata answer was applied (since this object was made, before the first): a producer's {@code metadata-age}. */
    public long ageMs() {
        return clockMs.getAsLong() - lastAppliedMs;
    }

    /**
     * How many Metadata answers have been applied: a caller that notes it when it asks for a refresh
     * can tell once a later answer has come.
     */
    public long answersApplied() {
        return answersApplied;
    }

    /** The leader state this object keeps current. */
    public LeaderCache cache() {
        return cache;
    }

    /**
     * Marks the topics as in use (and used now) and waits until their partitions are known. A topic
     * coming into use, or back into use after it was dropped or left idle, waits for a Metadata
     * answer that describes it, even if the cache still holds what an older answer said.
     *
     * @return completes once every topic has partitions in the cache; fails with the topic's error
     *         if a broker answers with a non-retriable one (for example authorization); a missing
     *         topic is asked for again after each backoff until the caller stops waiting
     */
    public CompletableFuture<Void> awaitTopics(Collection<String> topics) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new KafkaException(CLOSED));
            }
            if (bootstrapFailure != null) {
                return CompletableFuture.failedFuture(bootstrapFailure);
            }
            for (String topic : topics) {
                if (!topicUse.contains(topic) || cache.partitionCount(topic) == 0) {
                    waits.add(addWaitLocked(topic, 1));
                }
            }
            topicUse.add(topics, clockMs.getAsLong());
        }
        poke();
        return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
    }

    /**
     * Waits for a Metadata answer that shows the partition, the topic being in use (see
     * {@link #awaitTopics}): a record may name a partition a topic does not have yet, and partitions
     * may be added meanwhile. The topic is asked for again after each backoff until the answer
     * shows the partition or the caller cancels the returned future.
     *
     * @return completes once an answer gives the topic more partitions than the partition's number;
     *         fails as {@link #awaitTopics} does
     */
    public CompletableFuture<Void> awaitPartition(TopicPartition partition) {
        CompletableFuture<Void> wait;
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new KafkaException(CLOSED));
            }
            if (bootstrapFailure != null) {
                return CompletableFuture.failedFuture(bootstrapFailure);
            }
            wait = addWaitLocked(partition.topic(), partition.partition() + 1);
        }
        poke();
        return wait;
    }

    private CompletableFuture<Void> addWaitLocked(String topic, int partitions) {
        TopicWait wait = new TopicWait(new CompletableFuture<>(), partitions);
        topicWaiters.computeIfAbsent(topic, t -> new ArrayList<>()).add(wait);
        schedule.refreshNow(RefreshCause.NEW_TOPIC, Set.of(topic));
        return wait.done();
    }

    /** The topics are no longer in use; periodic refreshes stop describing them. */
    public void removeTopics(Collection<String> topics) {
        synchronized (lock) {
            topicUse.remove(topics);
        }
    }

    /**
     * Notes that the client uses the topic, for {@code metadata.max.idle.ms}: its idle time counts
     * from the next time a request is planned. Takes no lock and reads no clock: a producer calls
     * it for every record.
     *
     * @return whether the topic is in use; if not (never awaited, removed, or left idle), nothing is
     *         noted and {@link #awaitTopics} brings it back into use
     */
    public boolean recordUse(String topic) {
        return topicUse.touch(topic);
    }

    /** Whether the topic is in use: awaited, and neither removed nor left idle since. Takes no lock. */
    public boolean inUse(String topic) {
        return topicUse.contains(topic);
    }

    /**
     * Acts on the partitions a Produce or Fetch response refused for leadership reasons: the one
     * place that decides between a hint and a refresh, for both clients. With
     * {@code fastleader.leader.hints.enabled}, each {@code CurrentLeader} is judged by the cache: an
     * accepted one moves the partition at once (its next attempt goes to the new leader as soon as
     * its sender next checks readiness) and has its topic refreshed after the confirmation delay;
     * one that cannot be used has its topic refreshed now (within the refresh backoff), as do
     * refusals that name no leader. With hints disabled, every refused topic is refreshed now, as
     * clients did before KIP-951.
     *
     * @return the partitions an accepted hint moved
     */
    public Set<TopicPartition> onLeaderMoves(LeaderMoves moves) {
        if (moves.isEmpty()) {
            return Set.of();
        }
        Set<TopicPartition> followed = new HashSet<>();
        Set<String> confirm = new HashSet<>();
        Set<String> rejected = new HashSet<>();
        Set<String> unhinted = new HashSet<>(moves.unhintedTopics());
        if (config.leaderHintsEnabled()) {
            cache.applyHints(moves.hints(), moves.endpoints()).forEach((partition, verdict) -> {
                if (verdict.isAccepted()) {
                    followed.add(partition);
                    confirm.add(partition.topic());
                } else {
                    rejected.add(partition.topic());
                }
            });
        } else {
            moves.hints().forEach(hint -> unhinted.add(hint.partition().topic()));
        }
        synchronized (lock) {
            schedule.confirmLater(confirm, clockMs.getAsLong());
            if (!rejected.isEmpty()) {
                schedule.refreshNow(RefreshCause.REJECTED_HINT, rejected);
            }
            if (!unhinted.isEmpty()) {
                schedule.refreshNow(RefreshCause.LEADER_ERROR, unhinted);
            }
        }
        poke();
        return followed;
    }

    /**
     * Asks for the metadata of every topic in the cluster ({@code listTopics}), without applying it
     * to the cache: topics nobody uses are not tracked. A broker that cannot be reached, or answers
     * with a retriable error, is passed over for the next one the refreshes would ask, at
     * once while a round of them has not been tried, and after the refresh backoff between rounds,
     * until the caller cancels the returned future, as it does at its deadline.
     *
     * @return the first broker's answer; fails at once with an error retrying cannot fix (say,
     *         authorization)
     */
    public CompletableFuture<MetadataResponseData> describeAllTopics() {
        CompletableFuture<MetadataResponseData> answer = new CompletableFuture<>();
        describeAllTopics(answer, chooseNode(), 0);
        return answer;
    }

    private void describeAllTopics(CompletableFuture<MetadataResponseData> answer, int node, int failures) {
        if (answer.isDone()) {
            return;
        }
        metrics.recordRequest();
        pool.send(node, ApiKey.METADATA, new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false))
                .whenComplete((response, error) -> {
                    Throwable failure = error != null ? Failures.cause(error) : topLevelError((MetadataResponseData) response);
                    AuthenticationException refused = Failures.authenticationFailure(failure);
                    if (failure == null) {
                        answer.complete((MetadataResponseData) response);
                    } else if (refused != null) {
                        answer.completeExceptionally(refused);
                    } else if (!(failure instanceof RetriableException)) {
                        answer.completeExceptionally(failure);
                    } else {
                        LOG.debug("Listing topics through node {} failed; trying the next broker", node, failure);
                        int failed = failures + 1;
                        int candidates = rotation().size();
                        long delayMs = failed % candidates != 0 ? 0
                                : config.refreshBackoff().millis(failed / candidates, random.getAsDouble());
                        scheduleOrFail(answer, () -> describeAllTopics(answer, nextNode(node), failed), delayMs);
                    }
                });
    }

    /** Runs {@code attempt} on this object's thread after {@code delayMs}; fails {@code answer} if this object closed meanwhile. */
    private void scheduleOrFail(CompletableFuture<?> answer, Runnable attempt, long delayMs) {
        try {
            thread.schedule(attempt, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            answer.completeExceptionally(new KafkaException(CLOSED));
        }
    }

    /**
     * The client found no leader for partitions of the topics, or lost a request to their leader in
     * transit: refresh them now (within the refresh backoff). Refusals in an answer go to
     * {@link #onLeaderMoves} instead.
     */
    public void onLeaderError(Collection<String> topics) {
        synchronized (lock) {
            schedule.refreshNow(RefreshCause.LEADER_ERROR, topics);
        }
        poke();
    }

    /** Stops refreshing and fails every wait still pending. The connection pool stays open: its owner closes it. */
    @Override
    public void close() {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        synchronized (lock) {
            closed = true;
            topicWaiters.values().forEach(topicWaits -> topicWaits.forEach(wait -> waits.add(wait.done())));
            topicWaiters.clear();
        }
        thread.shutdownNow();
        waits.forEach(wait -> wait.completeExceptionally(new KafkaException(CLOSED)));
        // Its tasks send requests, apply answers and do upkeep that never blocks (ReplicaPrewarm's):
        // it ends as soon as the one running returns.
        threads.awaitEnd(timeout -> thread.awaitTermination(timeout, TimeUnit.MILLISECONDS), THREAD_END_MILLIS);
    }

    private void poke() {
        try {
            thread.execute(this::refreshIfDue);
        } catch (RejectedExecutionException closedMeanwhile) {
            // close() won: nothing is refreshed any more.
        }
    }

    /** Sends the next request if one is due, else sets a wakeup for when one will be. Runs on {@code thread}. */
    private void refreshIfDue() {
        RefreshPlan plan;
        long view;
        synchronized (lock) {
            if (closed || bootstrapFailure != null) {
                return;
            }
            long now = clockMs.getAsLong();
            expireIdleTopicsLocked(now);
            plan = schedule.start(now);
            if (plan == null) {
                rearmLocked(schedule.nextDueMs(), now);
                return;
            }
            recovery.requested(now);
            view = ++lastView;
        }
        metrics.recordRequest();
        plan.causes().forEach(metrics::recordRefresh);
        int node = chooseNode();
        pool.send(node, ApiKey.METADATA, request(plan.topics()))
                .whenCompleteAsync((response, error) -> answered(node, view, response, error), thread);
    }

    private void expireIdleTopicsLocked(long nowMs) {
        Set<String> idle = topicUse.expire(nowMs);
        if (!idle.isEmpty()) {
            LOG.debug("No longer refreshing {}: not used for metadata.max.idle.ms ({} ms)", idle,
                    config.metadataMaxIdle().toMillis());
        }
    }

    private void answered(int node, long view, ApiMessage response, Throwable error) {
        if (isBootstrapServer(node) && bootstrapResolutionFailed(error)) {
            return;
        }
        Throwable failure = error != null ? error : topLevelError((MetadataResponseData) response);
        if (failure == null) {
            try {
                applied(node, view, (MetadataResponseData) response);
            } catch (RuntimeException bug) {
                // Never leave the schedule believing a request is still in flight: that would stop all refreshes.
                LOG.error("Could not apply a Metadata response from node {}", node, bug);
                failure = bug;
            }
        }
        if (failure != null) {
            LOG.debug("Metadata request to node {} failed", node, failure);
            MetadataRecovery.Failure kind = recoveryFailure(response, failure);
            if (kind == MetadataRecovery.Failure.REBOOTSTRAP_REQUIRED) {
                LOG.info("Rebootstrap requested by server.");
            }
            boolean rebootstrap;
            synchronized (lock) {
                long now = clockMs.getAsLong();
                schedule.failed(now);
                rebootstrap = recovery.failed(kind, now, cache.nodes().size());
            }
            // Counted once the backoff is set: whoever reads the count then sees the schedule that follows it.
            metrics.recordRefreshFailure();
            if (rebootstrap) {
                LOG.info("Rebootstrapping with {}", bootstrapServers);
                metadataNode = rotation().get(0);
            } else {
                metadataNode = nextNode(node);
            }
            AuthenticationException refused = Failures.authenticationFailure(failure);
            if (refused != null) {
                // Refreshes go on, backed off: a credential fixed meanwhile (a rotated secret, a refreshed
                // token) is taken up by the next connection.
                failWaiters(refused);
            }
        }
        refreshIfDue();
    }

    /**
     * Tells {@link #bootstrapResolution} how a request to a bootstrap server ended ({@code error}
     * null: answered); once {@code bootstrap.resolve.timeout.ms} has passed without a name resolving,
     * the client fails for good, as kafka-clients 4.4's does: every wait fails, and every later one
     * at once, and no more requests are sent.
     *
     * @return whether the client has so failed
     */
    private boolean bootstrapResolutionFailed(Throwable error) {
        KafkaException failure;
        synchronized (lock) {
            if (bootstrapResolution.resolved()) {
                return false;
            }
            long now = clockMs.getAsLong();
            failure = bootstrapResolution.requestEnded(error, now);
            if (failure == null && !bootstrapResolution.resolved()) {
                LOG.debug("Failed to resolve bootstrap servers, will retry. Remaining time: {}ms", bootstrapResolution.remainingMs(now));
            }
            bootstrapFailure = failure;
        }
        if (failure == null) {
            return false;
        }
        LOG.error(failure.getMessage());
        failWaiters(failure);
        return true;
    }

    private static boolean isBootstrapServer(int node) {
        return node < 0;
    }

    /**
     * Fails everything waiting for metadata with {@code error} at once, as kafka-clients' clients
     * raise it from their metadata wait, rather than waiting out {@code max.block.ms} with nothing
     * said, and tells the {@link #onMetadataError} listeners.
     */
    private void failWaiters(KafkaException error) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        synchronized (lock) {
            topicWaiters.values().forEach(topicWaits -> topicWaits.forEach(wait -> waits.add(wait.done())));
            topicWaiters.clear();
        }
        waits.forEach(wait -> wait.completeExceptionally(error));
        errorListeners.forEach(listener -> listener.accept(error));
    }

    /**
     * Tells {@code listener}, on the metadata thread, of what kafka-clients' {@code Metadata} raises
     * to the application's next call: a broker's refusal to authenticate the client, bootstrap
     * servers whose names did not resolve within {@code bootstrap.resolve.timeout.ms}, topics in use
     * the client may not describe ({@link TopicAuthorizationException} naming them) or whose names
     * are invalid. A consumer raises each from its next {@code poll}, as {@code KafkaConsumer} does.
     */
    public void onMetadataError(Consumer<KafkaException> listener) {
        errorListeners.add(listener);
    }

    /** The topics of {@code response} refused for authorization, and those with invalid names, each raised as one exception. */
    private static List<KafkaException> topicErrors(MetadataResponseData response) {
        Set<String> unauthorized = new TreeSet<>();
        Set<String> invalid = new TreeSet<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.errorCode() == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code()) {
                unauthorized.add(topic.name());
            } else if (topic.errorCode() == ErrorCode.INVALID_TOPIC_EXCEPTION.code()) {
                invalid.add(topic.name());
            }
        }
        List<KafkaException> errors = new ArrayList<>();
        if (!unauthorized.isEmpty()) {
            errors.add(new TopicAuthorizationException(unauthorized));
        }
        if (!invalid.isEmpty()) {
            errors.add(new InvalidTopicException(invalid));
        }
        return errors;
    }

    /**
     * A known broker refused a connect as misrouted (KIP-1242), as the pool tells from whichever
     * thread saw it: back to the bootstrap servers, and a refresh of every topic in use from there.
     */
    private void misrouted(MisroutedConnectionException refusal) {
        LOG.info("Rebootstrap requested by server due to cluster metadata mismatch for cluster {} and node {}.",
                refusal.clusterId(), refusal.nodeId());
        boolean rebootstrap;
        synchronized (lock) {
            rebootstrap = !closed && recovery.misrouted();
            if (rebootstrap) {
                schedule.refreshNow(RefreshCause.REBOOTSTRAP, topicUse.topics());
            }
        }
        if (rebootstrap) {
            LOG.info("Rebootstrapping with {}", bootstrapServers);
            poke();
        }
    }

    /** What recovery makes of a failed request: an answer's {@code REBOOTSTRAP_REQUIRED}, a broker not reached, or another error. */
    private static MetadataRecovery.Failure recoveryFailure(ApiMessage response, Throwable failure) {
        if (response instanceof MetadataResponseData answer && answer.errorCode() == ErrorCode.REBOOTSTRAP_REQUIRED.code()) {
            return MetadataRecovery.Failure.REBOOTSTRAP_REQUIRED;
        }
        return Failures.cause(failure) instanceof BrokerConnectionException ? MetadataRecovery.Failure.UNREACHABLE
                : MetadataRecovery.Failure.ANSWERED_WITH_ERROR;
    }

    private static Throwable topLevelError(MetadataResponseData response) {
        return response.errorCode() == ErrorCode.NONE.code() ? null : ErrorCode.forCode(response.errorCode()).exception();
    }

    private void applied(int node, long view, MetadataResponseData response) {
        cache.applyMetadata(response, view);
        lastAppliedMs = clockMs.getAsLong();
        answersApplied++;
        metadataNode = node;
        List<Runnable> completions = new ArrayList<>();
        synchronized (lock) {
            schedule.succeeded(clockMs.getAsLong());
            recovery.answered();
            settleWaitersLocked(response, completions);
            if (!errorListeners.isEmpty()) {
                List<KafkaException> errors = topicErrors(response);
                errors.forEach(error -> completions.add(() -> errorListeners.forEach(listener -> listener.accept(error))));
            }
            if (response.clusterId() != null && !response.clusterId().equals(clusterId)) {
                clusterId = response.clusterId();
                if (config.clusterCheck()) {
                    pool.checkClusterOnConnect(clusterId);
                }
                List<ClusterResourceListener> told = List.copyOf(clusterResourceListeners);
                ClusterResource resource = new ClusterResource(clusterId);
                completions.add(() -> told.forEach(listener -> listener.onUpdate(resource)));
            }
        }
        completions.forEach(Runnable::run);
    }

    /**
     * Tells each of {@code plugins} that implements {@link ClusterResourceListener} (a serializer, an
     * interceptor, a partitioner, a metrics reporter) the cluster id, as kafka-clients' clients do:
     * once the first Metadata answer names it (at once if one has), and again should it change.
     */
    public void tellClusterId(Collection<?> plugins) {
        List<ClusterResourceListener> listeners = new ArrayList<>();
        plugins.forEach(plugin -> {
            if (plugin instanceof ClusterResourceListener listener) {
                listeners.add(listener);
            }
        });
        String known;
        synchronized (lock) {
            clusterResourceListeners.addAll(listeners);
            known = clusterId;
        }
        if (known != null) {
            ClusterResource resource = new ClusterResource(known);
            listeners.forEach(listener -> listener.onUpdate(resource));
        }
    }

    private void settleWaitersLocked(MetadataResponseData response, List<Runnable> completions) {
        Set<String> described = new HashSet<>();
        response.topics().forEach(topic -> described.add(topic.name()));
        for (var waiting = topicWaiters.entrySet().iterator(); waiting.hasNext(); ) {
            var entry = waiting.next();
            String topic = entry.getKey();
            // Only an answer describing the topic settles it: the cache may hold an older one's partitions.
            boolean answered = described.contains(topic);
            ErrorCode error = cache.topicError(topic);
            int partitions = cache.partitionCount(topic);
            for (var waits = entry.getValue().iterator(); waits.hasNext(); ) {
                TopicWait wait = waits.next();
                if (wait.done().isDone()) {
                    waits.remove();
                } else if (answered && error == ErrorCode.NONE && partitions >= wait.partitions()) {
                    completions.add(() -> wait.done().complete(null));
                    waits.remove();
                } else if (answered && error != ErrorCode.NONE && !error.isRetriable()) {
                    completions.add(() -> wait.done().completeExceptionally(topicFailure(topic, error)));
                    waits.remove();
                }
            }
            if (entry.getValue().isEmpty()) {
                waiting.remove();
            } else {
                schedule.refreshNow(RefreshCause.NEW_TOPIC, Set.of(topic));
            }
        }
    }

    /** Why a topic's metadata cannot be had, as kafka-clients' {@code Metadata} says it: authorization and invalid names name the topic. */
    private static RuntimeException topicFailure(String topic, ErrorCode error) {
        return switch (error) {
            case TOPIC_AUTHORIZATION_FAILED -> new TopicAuthorizationException(Set.of(topic));
            case INVALID_TOPIC_EXCEPTION -> new InvalidTopicException(Set.of(topic));
            default -> error.exception();
        };
    }

    private void rearmLocked(long dueMs, long nowMs) {
        if (dueMs == wakeupAtMs) {
            return;
        }
        if (wakeup != null) {
            wakeup.cancel(false);
            wakeup = null;
        }
        wakeupAtMs = dueMs;
        if (dueMs != Long.MAX_VALUE) {
            wakeup = thread.schedule(this::refreshIfDue, Math.max(0, dueMs - nowMs), TimeUnit.MILLISECONDS);
        }
    }

    private MetadataRequestData request(Set<String> topics) {
        List<MetadataRequestTopic> requested = new ArrayList<>();
        for (String topic : topics) {
            requested.add(new MetadataRequestTopic().setName(topic));
        }
        return new MetadataRequestData()
                .setTopics(requested)
                .setAllowAutoTopicCreation(config.allowAutoTopicCreation());
    }

    /**
     * The broker that answered last, unless its connection is busy (a Metadata request would wait
     * behind the requests not yet answered there; a consumer's long-polling Fetches have their own
     * connection) and another one's of the rotation is not; the first of the rotation if the one
     * that answered last is not in it (none yet, or a rebootstrap since).
     */
    private int chooseNode() {
        List<Integer> rotation = rotation();
        int preferred = rotation.contains(metadataNode) ? metadataNode : rotation.get(0);
        if (!pool.isBusy(preferred)) {
            return preferred;
        }
        for (int node : rotation) {
            if (!pool.isBusy(node)) {
                return node;
            }
        }
        return preferred;
    }

    private int nextNode(int failed) {
        List<Integer> rotation = rotation();
        int index = rotation.indexOf(failed);
        return rotation.get((index + 1) % rotation.size());
    }

    /** The brokers a Metadata request may go to, in turn: the known ones by id, or the bootstrap servers in the order given. */
    private List<Integer> rotation() {
        boolean bootstrapping;
        synchronized (lock) {
            bootstrapping = recovery.bootstrapping();
        }
        List<Integer> known = new ArrayList<>(new TreeSet<>(cache.nodes().keySet()));
        if (!bootstrapping && !known.isEmpty()) {
            return known;
        }
        List<Integer> bootstrapIds = new ArrayList<>(bootstrap.keySet());
        bootstrapIds.sort((a, b) -> Integer.compare(b, a));
        return bootstrapIds;
    }

    /**
     * Gives the pool the cache's new node table, the bootstrap servers kept, and the last address
     * of every broker the table no longer lists. A broker that is down is left out of Metadata
     * answers while it stays a replica of its partitions: the prewarm connects to it again, by that
     * address, as soon as it is back, before its leaderships return. Called under the cache's
     * write lock, so one table at a time.
     */
    private void useNodes(Map<Integer, BrokerEndpoint> nodes) {
        nodes.forEach((id, endpoint) -> lastKnownAddresses.put(id, endpoint.address()));
        Map<Integer, InetSocketAddress> addresses = new HashMap<>(bootstrap);
        addresses.putAll(lastKnownAddresses);
        pool.updateNodes(addresses);
    }

    /** A caller waiting for an answer that gives a topic at least {@code partitions} partitions; it may cancel {@code done}. */
    private record TopicWait(CompletableFuture<Void> done, int partitions) {
    }
}
