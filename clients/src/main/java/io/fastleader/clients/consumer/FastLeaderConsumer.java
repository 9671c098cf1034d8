package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.Assignee;
import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.metadata.ClientResources;
import io.fastleader.clients.metadata.ClientResources.ClusterLink;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.ClusterView;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.ReplicaPrewarm;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.Failures;
import io.fastleader.clients.network.KafkaClientsRange;

/**
 * A Kafka consumer that follows a partition's leader the moment it moves: when a broker refuses a
 * Fetch because the leadership moved and names the new leader (KIP-951), the partition's next
 * Fetch goes to that leader at once; and Fetches carry {@code LastFetchedEpoch}, so a log
 * truncated under the consumer is reported in the Fetch answer, with no OffsetsForLeaderEpoch
 * round trip on the way. A drop-in for {@code KafkaConsumer}: the same constructors, configuration
 * keys and {@link Consumer} contract, plus the {@code fastleader.*} keys described in the module's README.
 *
 * <p>{@link #subscribe(Collection, ConsumerRebalanceListener) subscribe} joins the {@code group.id}
 * with the consumer group protocol (KIP-848, Kafka 4.0+): the coordinator assigns the partitions;
 * heartbeats go from a thread of the consumer's own; listener callbacks run on the thread that
 * calls {@code poll}. {@link #assign} takes partitions without joining; offsets are then committed
 * for the {@code group.id} as a standalone {@code KafkaConsumer} commits them. Not supported yet:
 * the classic group protocol ({@code group.protocol=classic} is refused), fetching from followers
 * ({@code client.rack} only informs the coordinator's assignors) and client telemetry.
 *
 * <p>Not thread-safe, like {@code KafkaConsumer}: one thread uses it; only {@link #wakeup()} may
 * be called from another.
 */
public final class FastLeaderConsumer<K, V> implements Consumer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConsumer.class);
    private static final long NO_OWNER = -1;
    /** {@code KafkaConsumer}'s close timeout when none is given. */
    private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final String MUTUALLY_EXCLUSIVE = "Subscription to topics, partitions and pattern are mutually exclusive";

    private final ConsumerSettings settings;
    private final LongSupplier clockMs = () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    private final ClientResources resources = new ClientResources("FastLeaderConsumer");
    private final SubscriptionState subscriptions = new SubscriptionState();
    private final PendingErrors errors = new PendingErrors();
    private final AtomicLong owner = new AtomicLong(NO_OWNER);
    private final AtomicInteger ownerDepth = new AtomicInteger();
    private final AtomicBoolean wakeupRequested = new AtomicBoolean();
    /** Set when the application's thread is interrupted in a call: the call, running on the state owner, stops. */
    private final AtomicBoolean interruptRequested = new AtomicBoolean();
    private final ConsumerThread stateOwner;
    private final Metrics metrics;
    private final ConsumerMetrics consumerMetrics;
    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private final ConsumerInterceptorChain<K, V> interceptors;
    private final OffsetLookup offsetLookup;
    /** Empty without a {@code group.id}. */
    private final Optional<ConsumerGroup> group;
    private final Fetcher<K, V> fetcher;
    private final PositionResolver positions;
    private final ReplicaPrewarm prewarm;
    private long nextAutoCommitMs;
    /** Set once {@code close} starts: from then on a {@link #wakeup()} is ignored, as {@code KafkaConsumer} ignores it. */
    private boolean closing;
    private boolean closed;

    /** A consumer configured by {@code configs}, deserializers from {@code key.deserializer} and {@code value.deserializer}. */
    public FastLeaderConsumer(Map<String, Object> configs) {
        this(configs, null, null);
    }

    /** A consumer configured by {@code properties}, deserializers from {@code key.deserializer} and {@code value.deserializer}. */
    public FastLeaderConsumer(Properties properties) {
        this(Utils.propsToMap(properties), null, null);
    }

    /** A consumer configured by {@code properties} with the given deserializers, which it closes on close. */
    public FastLeaderConsumer(Properties properties, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
        this(Utils.propsToMap(properties), keyDeserializer, valueDeserializer);
    }

    /**
     * A consumer configured by {@code configs} with the given deserializers (null: from the
     * deserializer keys), which it closes on close. As with {@code KafkaConsumer}, deserializers
     * given here are not configured again.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is allowed
     * @throws KafkaException when the kafka-clients on the classpath is outside the supported line
     *         ({@link KafkaClientsRange})
     */
    public FastLeaderConsumer(Map<String, Object> configs, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
        KafkaClientsRange.requireSupported();
        this.settings = ConsumerSettings.parse(configs, keyDeserializer, valueDeserializer);
        ConsumerConfig kafka = settings.kafkaConfig();
        String clientId = settings.clientId();
        Map<String, Object> clientIdOverride = Map.of(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        try {
            // Registered first, so closed last: closing the other resources may still hand it answers.
            this.stateOwner = register(new ConsumerThread(clientId, clockMs));
            this.metrics = resources.openMetrics(clientId);
            this.keyDeserializer = register(keyDeserializer != null ? keyDeserializer
                    : configuredDeserializer(kafka, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, clientIdOverride, true));
            this.valueDeserializer = register(valueDeserializer != null ? valueDeserializer
                    : configuredDeserializer(kafka, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, clientIdOverride, false));
            @SuppressWarnings("unchecked")
            List<ConsumerInterceptor<K, V>> configured = (List<ConsumerInterceptor<K, V>>) (List<?>) kafka.getConfiguredInstances(
                    ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ConsumerInterceptor.class, clientIdOverride);
            this.interceptors = register(new ConsumerInterceptorChain<>(configured));
            ClusterLink cluster = resources.openCluster(clientId, settings, metrics, ConsumerMetrics.CLIENT_GROUP,
                    ConsumerMetrics.NODE_GROUP, opened -> subscriptions::usesTopic);
            this.pool = cluster.pool();
            this.metadata = cluster.metadata();
            this.prewarm = cluster.prewarm();
            this.cache = metadata.cache();
            ExponentialBackoff backoff = new ExponentialBackoff(Duration.ofMillis(settings.retryBackoffMs()),
                    Duration.ofMillis(settings.retryBackoffMaxMs()), ExponentialBackoff.KAFKA_JITTER);
            this.consumerMetrics = new ConsumerMetrics(metrics, Time.SYSTEM);
            EpochBackoff retryBackoff = EpochBackoff.of(settings.metadataConfig());
            this.offsetLookup = new OffsetLookup(pool, metadata, retryBackoff, clockMs, stateOwner);
            this.group = settings.groupId().map(id -> register(new ConsumerGroup(new ConsumerGroup.Settings(id,
                    settings.groupInstanceId(), settings.clientRack(), settings.remoteAssignor(), settings.maxPollIntervalMs(), backoff,
                    retryBackoff, settings.metadataMaxAgeMs()), pool, metadata, metrics, clockMs, stateOwner, stateOwner::wakeUp,
                    new Reconciled())));
            RecordDecoding<K, V> decoding = new RecordDecoding<>(this.keyDeserializer, this.valueDeserializer,
                    settings.isolationLevel(), settings.checkCrcs());
            PollThread thread = new PollThread(settings, consumerMetrics, stateOwner, clockMs, errors);
            this.fetcher = new Fetcher<>(pool, metadata, subscriptions, decoding, retryBackoff, thread);
            this.positions = new PositionResolver(pool, metadata, subscriptions, offsetLookup, group, retryBackoff, thread);
            // A newer leader epoch may end a partition's backoff: a waiting poll looks again.
            cache.wakeOnChange(stateOwner::wakeUp);
            this.nextAutoCommitMs = clockMs.getAsLong() + settings.autoCommitIntervalMs();
            FastLeaderConfigs.logUnusedKeys(kafka, ConsumerConfig.configNames());
            if (!settings.classicProtocolKeysGiven().isEmpty()) {
                LOG.warn("{} belong to the classic group protocol and are ignored: under the consumer group protocol the "
                        + "coordinator decides session timeout, heartbeat interval and assignment", settings.classicProtocolKeysGiven());
            }
        } catch (RuntimeException e) {
            throw resources.failedToStart(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> Deserializer<T> configuredDeserializer(ConsumerConfig kafka, String key, Map<String, Object> overrides,
                                                              boolean isKey) {
        Deserializer<T> deserializer = kafka.getConfiguredInstance(key, Deserializer.class);
        deserializer.configure(kafka.originals(overrides), isKey);
        return deserializer;
    }

    private <T extends AutoCloseable> T register(T resource) {
        return resources.register(resource);
    }

    // ---------------------------------------------------------------- assignment

    /**
     * {@inheritDoc} Partitions kept keep their positions; new ones start from their committed
     * offset (with a {@code group.id}) or per {@code auto.offset.reset}. With auto-commit, the
     * positions of the old assignment are committed first, asynchronously, as {@code KafkaConsumer} does.
     *
     * @throws IllegalArgumentException for a null partition or a partition with an empty topic
     */
    @Override
    public void assign(Collection<TopicPartition> partitions) {
        runOwned(() -> {
            if (isGroupSubscribed()) {
                throw new IllegalStateException(MUTUALLY_EXCLUSIVE);
            }
            if (partitions == null) {
                throw new IllegalArgumentException("Topic partitions collection to assign to cannot be null");
            }
            for (TopicPartition partition : partitions) {
                if (partition == null || Utils.isBlank(partition.topic())) {
                    throw new IllegalArgumentException("Topic partitions to assign to cannot have null or empty topic");
                }
            }
            if (settings.autoCommit() && !subscriptions.isEmpty()) {
                commitAsync(subscriptions.positionsToCommit(), this::logAutoCommitFailure);
            }
            changeAssignment(partitions);
        });
    }

    private void changeAssignment(Collection<TopicPartition> partitions) {
        SubscriptionState.Change change = subscriptions.assign(partitions);
        change.removed().forEach(consumerMetrics::unassigned);
        change.added().forEach(consumerMetrics::assigned);
        group.ifPresent(joined -> joined.assignedPartitions(subscriptions.partitions().size()));
        useTopics(change);
    }

    /** Reconciliation's hold on the assignment: the same path as {@link #assign}, without its commit of the old one. */
    private final class Reconciled implements Assignee {
        @Override
        public Set<TopicPartition> assignment() {
            return subscriptions.partitions();
        }

        @Override
        public void assign(Collection<TopicPartition> partitions) {
            changeAssignment(partitions);
        }

        @Override
        public void commitBeforeRevoking(Set<TopicPartition> partitions) {
            commitBeforeRevoking(partitions, deadline(settings.defaultApiTimeout()));
        }

        @Override
        public void commitBeforeRevoking(Set<TopicPartition> partitions, long deadlineMs) {
            if (!settings.autoCommit()) {
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(subscriptions.positionsToCommit());
            offsets.keySet().retainAll(partitions);
            try {
                commitSync(offsets, Duration.ofMillis(Math.max(0, deadlineMs - clockMs.getAsLong())));
            } catch (RuntimeException e) {
                LOG.warn("Failed to commit the offsets of partitions {} before revoking them: {}", partitions, e.toString());
            }
        }
    }

    private void useTopics(SubscriptionState.Change change) {
        if (!change.topicsDropped().isEmpty()) {
            metadata.removeTopics(change.topicsDropped());
        }
        Set<String> added = change.topicsAdded();
        if (!added.isEmpty()) {
            metadata.awaitTopics(added).thenRun(() -> {
                stateOwner.wakeUp();
                if (prewarm != null) {
                    added.forEach(prewarm::prewarmTopic);
                }
            });
        }
    }

    @Override
    public Set<TopicPartition> assignment() {
        return callOwned(() -> Collections.unmodifiableSet(subscriptions.partitions()));
    }

    /** {@inheritDoc} For a {@code Pattern}, the topics it matched last; for a {@code SubscriptionPattern}, those assigned. */
    @Override
    public Set<String> subscription() {
        return callOwned(() -> group.map(joined -> Collections.unmodifiableSet(joined.subscription())).orElse(Set.of()));
    }

    /**
     * {@inheritDoc} Joins the group with the consumer group protocol (KIP-848): the coordinator
     * assigns the partitions. An empty collection unsubscribes.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(Collection<String> topics) {
        subscribeTopics(topics, null);
    }

    /**
     * {@inheritDoc} The listener's callbacks run on the thread that calls {@code poll}.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener callback) {
        subscribeTopics(topics, requireListener(callback));
    }

    /** {@code KafkaConsumer} refuses a null listener before anything else. */
    private static ConsumerRebalanceListener requireListener(ConsumerRebalanceListener callback) {
        if (callback == null) {
            throw new IllegalArgumentException("RebalanceListener cannot be null");
        }
        return callback;
    }

    private void subscribeTopics(Collection<String> topics, ConsumerRebalanceListener callback) {
        runOwned(() -> {
            group();
            if (topics == null) {
                throw new IllegalArgumentException("Topic collection to subscribe to cannot be null");
            }
            if (topics.isEmpty()) {
                unsubscribe();
                return;
            }
            for (String topic : topics) {
                if (Utils.isBlank(topic)) {
                    throw new IllegalArgumentException("Topic collection to subscribe to cannot contain null or empty topic");
                }
            }
            requireGroupSubscribable().subscribe(topics, callback);
        });
    }

    /**
     * {@inheritDoc} The pattern is matched here against the cluster's topics, listed every
     * {@code metadata.max.age.ms}; the coordinator is sent the matching names.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(Pattern pattern, ConsumerRebalanceListener callback) {
        subscribePattern(pattern, requireListener(callback));
    }

    private void subscribePattern(Pattern pattern, ConsumerRebalanceListener callback) {
        runOwned(() -> {
            group();
            if (pattern == null || pattern.toString().isEmpty()) {
                throw new IllegalArgumentException("Topic pattern to subscribe to cannot be " + (pattern == null ? "null" : "empty"));
            }
            requireGroupSubscribable().subscribe(pattern, callback);
        });
    }

    /** {@inheritDoc} @see #subscribe(Pattern, ConsumerRebalanceListener) */
    @Override
    public void subscribe(Pattern pattern) {
        subscribePattern(pattern, null);
    }

    /**
     * {@inheritDoc} The coordinator matches the expression (RE2/J) against the cluster's topics;
     * it needs ConsumerGroupHeartbeat v1 (Kafka 4.0+).
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener callback) {
        subscribeRegex(pattern, requireListener(callback));
    }

    private void subscribeRegex(SubscriptionPattern pattern, ConsumerRebalanceListener callback) {
        runOwned(() -> {
            group();
            if (pattern == null || pattern.pattern() == null || pattern.pattern().isEmpty()) {
                throw new IllegalArgumentException("Topic pattern to subscribe to cannot be " + (pattern == null ? "null" : "empty"));
            }
            requireGroupSubscribable().subscribe(pattern, callback);
        });
    }

    /** {@inheritDoc} @see #subscribe(SubscriptionPattern, ConsumerRebalanceListener) */
    @Override
    public void subscribe(SubscriptionPattern pattern) {
        subscribeRegex(pattern, null);
    }

    private ConsumerGroup requireGroupSubscribable() {
        ConsumerGroup joining = group();
        if (!joining.isSubscribed() && !subscriptions.isEmpty()) {
            throw new IllegalStateException(MUTUALLY_EXCLUSIVE);
        }
        return joining;
    }

    private boolean isGroupSubscribed() {
        return group.isPresent() && group.get().isSubscribed();
    }

    /**
     * {@inheritDoc} A group member commits (with auto-commit) and revokes its partitions, then
     * leaves the group, waiting up to {@code default.api.timeout.ms} for the coordinator's answer;
     * a static member leaves with epoch -2, as in {@code KafkaConsumer}.
     */
    @Override
    public void unsubscribe() {
        runOwned(() -> {
            if (isGroupSubscribed()) {
                leaveGroup(false, settings.defaultApiTimeout());
            } else {
                assign(List.of());
            }
        });
    }

    /**
     * Leaves the group, waiting for the coordinator's answer until the timeout; a late answer is
     * logged, not raised.
     *
     * @param forGood whether a static member leaves for good (epoch -1) rather than keeping its
     *                partitions for its session timeout (-2); a dynamic member always leaves with -1
     */
    private void leaveGroup(boolean forGood, Duration timeout) {
        long deadlineMs = deadline(timeout);
        CompletableFuture<Void> left = group().leave(!forGood, deadlineMs);
        try {
            await(left, deadlineMs, () -> "Timeout of " + timeout.toMillis() + "ms expired before leaving group "
                    + settings.groupId().orElseThrow());
        } catch (TimeoutException e) {
            LOG.warn("{}; the coordinator will drop the member after its session timeout", e.getMessage());
        }
    }

    /** {@inheritDoc} A no-op: under the consumer group protocol the coordinator alone starts rebalances. */
    @Override
    public void enforceRebalance() {
        enforceRebalance(null);
    }

    /** {@inheritDoc} A no-op: under the consumer group protocol the coordinator alone starts rebalances. */
    @Override
    public void enforceRebalance(String reason) {
        LOG.warn("Operation not supported in new consumer group protocol");
    }

    // ---------------------------------------------------------------- poll

    /**
     * {@inheritDoc} Returns as soon as records are buffered, having sent the next Fetches so the
     * brokers work while the application does; otherwise waits up to {@code timeout} for them.
     *
     * @throws IllegalArgumentException for a negative timeout, with {@code KafkaConsumer}'s message
     * @throws IllegalStateException if no partition is assigned
     * @throws WakeupException       if {@link #wakeup()} was called
     * @throws org.apache.kafka.clients.consumer.InvalidOffsetException a position out of range or truncated
     *                               with {@code auto.offset.reset=none}
     */
    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        return poll(timeout, false);
    }

    /**
     * {@code Consumer.poll(long)} of kafka-clients 3.x (deprecated there, gone in 4.0), for
     * applications on 3.7 to 3.9. As {@code KafkaConsumer} 3.x's under its default, classic,
     * protocol, and unlike {@link #poll(Duration)}, it first waits for as long as it takes until a
     * subscribed consumer has joined its group and taken its assignment, and until every assigned
     * partition's committed offset is known; records are then waited for until {@code timeoutMs}
     * after the call. So {@code poll(0)} right after {@code subscribe} returns a member with its
     * partitions. ({@code KafkaConsumer} 3.x refuses the call under the consumer protocol.)
     *
     * @param timeoutMs how long to wait for records, counted from the call
     * @throws IllegalArgumentException for a negative timeout, with {@code KafkaConsumer}'s message
     * @throws WakeupException          if {@link #wakeup()} was called, also while waiting for the group
     * @deprecated as in kafka-clients 3.x: {@link #poll(Duration)} does not wait beyond its timeout
     */
    @Deprecated
    public ConsumerRecords<K, V> poll(long timeoutMs) {
        return poll(Duration.ofMillis(timeoutMs), true);
    }

    /**
     * @param awaitAssignment whether to wait, without limit, for the assignment and committed offsets
     *                        first ({@link #poll(long)})
     */
    private ConsumerRecords<K, V> poll(Duration timeout, boolean awaitAssignment) {
        // KafkaConsumer refuses it before anything else, open or closed, with its Timer's message.
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("Invalid negative timeout " + timeout.toMillis());
        }
        ConsumerRecords<K, V> polled = callOwned(() -> {
            consumerMetrics.pollStarted();
            try {
                if (subscriptions.isEmpty() && !isGroupSubscribed()) {
                    throw new IllegalStateException("Consumer is not subscribed to any topics or assigned any partitions");
                }
                long deadlineMs = deadline(timeout);
                applyPending(0);
                if (awaitAssignment) {
                    awaitAssignment();
                }
                while (true) {
                    startPollTurn();
                    ConsumerRecords<K, V> records = fetcher.collect(settings.maxPollRecords());
                    // Sent before returning, so brokers gather the next records while the application works.
                    fetcher.sendFetches();
                    // After the fetches: building them can find positions to validate.
                    positions.resolve();
                    if (!records.isEmpty()) {
                        return records;
                    }
                    long nowMs = clockMs.getAsLong();
                    if (nowMs >= deadlineMs) {
                        return ConsumerRecords.empty();
                    }
                    applyPending(Math.min(deadlineMs, nextTimerMs()) - nowMs);
                }
            } finally {
                consumerMetrics.pollEnded();
            }
        });
        return polled.isEmpty() ? polled : interceptors.onConsume(polled);
    }

    /** What every turn of a poll does first: reconcile the group, auto-commit when due, raise an error found meanwhile. */
    private void startPollTurn() {
        group.ifPresent(ConsumerGroup::onPoll);
        maybeAutoCommit();
        errors.throwOldest();
    }

    /**
     * Waits until a group member has joined and reconciled its assignment, and no assigned
     * partition still waits for its committed offset: what {@code KafkaConsumer} 3.x's
     * {@code poll(long)} waits for before its timeout counts.
     */
    private void awaitAssignment() {
        while (true) {
            startPollTurn();
            positions.resolve();
            boolean joined = !isGroupSubscribed() || group().hasJoined();
            if (joined && subscriptions.states().stream().noneMatch(state -> state.phase() == PartitionState.Phase.INITIALIZING)) {
                return;
            }
            applyPending(nextTimerMs() - clockMs.getAsLong());
        }
    }

    /** The earliest time something other than an answer needs the consumer's thread. */
    private long nextTimerMs() {
        long next = Long.MAX_VALUE;
        long nowMs = clockMs.getAsLong();
        for (PartitionState state : subscriptions.states()) {
            if (state.backoff().untilMs() > nowMs) {
                next = Math.min(next, state.backoff().untilMs());
            }
        }
        if (positions.retryAtMs() > nowMs) {
            next = Math.min(next, positions.retryAtMs());
        }
        if (settings.autoCommit()) {
            next = Math.min(next, nextAutoCommitMs);
        }
        if (group.isPresent()) {
            next = Math.min(next, group.get().nextTimerMs());
        }
        return next;
    }

    /** Runs the state owner's queued tasks (answers, timers) within a call, waiting up to {@code maxWaitMs} for the first one. */
    private void applyPending(long maxWaitMs) {
        checkWakeupAndInterrupt();
        stateOwner.runPending(maxWaitMs);
        checkWakeupAndInterrupt();
    }

    private void checkWakeupAndInterrupt() {
        if (!closing && wakeupRequested.compareAndSet(true, false)) {
            throw new WakeupException();
        }
        if (interruptRequested.compareAndSet(true, false)) {
            throw new InterruptException(new InterruptedException());
        }
    }

    // ---------------------------------------------------------------- positions

    @Override
    public void seek(TopicPartition partition, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("seek offset must not be a negative number");
        }
        seekTo(partition, FetchPosition.at(offset));
    }

    /** {@inheritDoc} The leader epoch of {@code offsetAndMetadata}, if any, is validated by the next Fetch. */
    @Override
    public void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata) {
        if (offsetAndMetadata.offset() < 0) {
            throw new IllegalArgumentException("seek offset must not be a negative number");
        }
        seekTo(partition, new FetchPosition(offsetAndMetadata.offset(), offsetAndMetadata.leaderEpoch()));
    }

    private void seekTo(TopicPartition partition, FetchPosition position) {
        runOwned(() -> {
            subscriptions.assigned(partition).seek(position);
        });
    }

    /** {@inheritDoc} An empty collection means every assigned partition. */
    @Override
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        seekToReset(partitions, ResetStrategy.EARLIEST);
    }

    /** {@inheritDoc} An empty collection means every assigned partition. */
    @Override
    public void seekToEnd(Collection<TopicPartition> partitions) {
        seekToReset(partitions, ResetStrategy.LATEST);
    }

    private void seekToReset(Collection<TopicPartition> partitions, ResetStrategy strategy) {
        if (partitions == null) {
            throw new IllegalArgumentException("Partitions collection cannot be null");
        }
        runOwned(() -> {
            for (TopicPartition partition : partitions.isEmpty() ? subscriptions.partitions() : partitions) {
                subscriptions.assigned(partition).requestReset(strategy);
            }
        });
    }

    @Override
    public long position(TopicPartition partition) {
        return position(partition, settings.defaultApiTimeout());
    }

    /**
     * {@inheritDoc} Looks the position up first when the partition has none yet.
     *
     * @throws TimeoutException if it cannot be determined within {@code timeout}
     */
    @Override
    public long position(TopicPartition partition, Duration timeout) {
        return callOwned(() -> {
            PartitionState state = subscriptions.assigned(partition);
            long deadlineMs = deadline(timeout);
            while (state.phase() != PartitionState.Phase.FETCHING) {
                errors.throwOldest();
                positions.resolve();
                long nowMs = clockMs.getAsLong();
                if (nowMs >= deadlineMs) {
                    throw new TimeoutException("Timeout of " + timeout.toMillis() + "ms expired before the position for partition "
                            + partition + " could be determined");
                }
                applyPending(Math.min(deadlineMs, nextTimerMs()) - nowMs);
            }
            return state.position().offset();
        });
    }

    @Override
    public Set<TopicPartition> paused() {
        return callOwned(() -> Collections.unmodifiableSet(subscriptions.paused()));
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        runOwned(() -> {
            partitions.forEach(partition -> subscriptions.assigned(partition).pause());
        });
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        runOwned(() -> {
            partitions.forEach(partition -> subscriptions.assigned(partition).resume());
        });
    }

    /** {@inheritDoc} From the high watermark (or last stable offset) of the partition's latest Fetch. */
    @Override
    public OptionalLong currentLag(TopicPartition partition) {
        return callOwned(() -> {
            Optional<Long> lag = subscriptions.assigned(partition).lag(settings.isolationLevel() == IsolationLevel.READ_COMMITTED);
            return lag.map(OptionalLong::of).orElseGet(OptionalLong::empty);
        });
    }

    // ---------------------------------------------------------------- commits

    @Override
    public void commitSync() {
        commitSync(settings.defaultApiTimeout());
    }

    @Override
    public void commitSync(Duration timeout) {
        runOwned(() -> {
            commitSync(subscriptions.positionsToCommit(), timeout);
        });
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitSync(offsets, settings.defaultApiTimeout());
    }

    /**
     * {@inheritDoc} Commits as a standalone consumer: with the {@code group.id}, without joining the group.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     * @throws TimeoutException        if not committed within {@code timeout}
     */
    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
        runOwned(() -> {
            long startNanos = System.nanoTime();
            try {
                await(commitTimed(copy, deadline(timeout)), deadline(timeout),
                        () -> "Timeout of " + timeout.toMillis() + "ms expired before successfully committing offsets " + copy);
            } finally {
                consumerMetrics.commitSyncTook(System.nanoTime() - startNanos);
            }
        });
        interceptors.onCommit(copy);
    }

    @Override
    public void commitAsync() {
        commitAsync(null);
    }

    @Override
    public void commitAsync(OffsetCommitCallback callback) {
        runOwned(() -> {
            commitAsync(subscriptions.positionsToCommit(), callback);
        });
    }

    /**
     * {@inheritDoc} The callback runs on the application's thread, in a later call of this
     * consumer ({@code poll}, {@code commitSync}, {@code close}, ...); without one, failures are logged.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        runOwned(() -> {
            Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
            OffsetCommitCallback effective = callback != null ? callback : this::logCommitFailure;
            commitTimed(copy, deadline(settings.defaultApiTimeout()))
                    .whenComplete((ignored, failure) -> stateOwner.onApplicationThreadLater(() -> {
                        if (failure == null) {
                            interceptors.onCommit(copy);
                        }
                        effective.onComplete(copy, failure == null ? null : unwrap(failure));
                    }));
        });
    }

    /**
     * {@code Consumer.committed(TopicPartition)} of kafka-clients 3.x (deprecated there, gone in
     * 4.0), for applications on 3.7 to 3.9: the partition's committed offset, null if none,
     * waiting up to {@code default.api.timeout.ms}.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     * @throws TimeoutException        if not known within {@code default.api.timeout.ms}
     * @deprecated as in kafka-clients 3.x: use {@link #committed(Set)}
     */
    @Deprecated
    public OffsetAndMetadata committed(TopicPartition partition) {
        return committed(partition, settings.defaultApiTimeout());
    }

    /**
     * {@code Consumer.committed(TopicPartition, Duration)} of kafka-clients 3.x (deprecated there,
     * gone in 4.0), for applications on 3.7 to 3.9: the partition's committed offset, null if none.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     * @throws TimeoutException        if not known within {@code timeout}
     * @deprecated as in kafka-clients 3.x: use {@link #committed(Set, Duration)}
     */
    @Deprecated
    public OffsetAndMetadata committed(TopicPartition partition, Duration timeout) {
        return committed(Set.of(partition), timeout).get(partition);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        return committed(partitions, settings.defaultApiTimeout());
    }

    /**
     * {@inheritDoc} Partitions without a committed offset map to null, as in {@code KafkaConsumer}.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        return callOwned(() -> {
            long startNanos = System.nanoTime();
            try {
                Map<TopicPartition, OffsetAndMetadata> found = await(
                        group().committed(Set.copyOf(partitions), settings.isolationLevel() == IsolationLevel.READ_COMMITTED,
                                deadline(timeout)),
                        deadline(timeout), () -> "Timeout of " + timeout.toMillis() + "ms expired before the last committed offset "
                                + "for partitions " + partitions + " could be determined. Try tuning default.api.timeout.ms larger to relax the threshold.");
                Map<TopicPartition, OffsetAndMetadata> result = new HashMap<>();
                partitions.forEach(partition -> result.put(partition, found.get(partition)));
                return result;
            } finally {
                consumerMetrics.committedTook(System.nanoTime() - startNanos);
            }
        });
    }

    /** {@inheritDoc} Outside the group (assigning partitions itself): no generation, no member id. */
    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return callOwned(() -> group().metadata());
    }

    /** Commits at the coordinator, each call timed into {@code commit-latency} as {@code KafkaConsumer} times its commits. */
    private CompletableFuture<Void> commitTimed(Map<TopicPartition, OffsetAndMetadata> offsets, long deadlineMs) {
        return group().commit(offsets, deadlineMs, clockMs);
    }

    private ConsumerGroup group() {
        return group.orElseThrow(() -> new InvalidGroupIdException(
                "To use the group management or offset commit APIs, you must provide a valid group.id in the consumer configuration."));
    }

    private void maybeAutoCommit() {
        long nowMs = clockMs.getAsLong();
        if (settings.autoCommit() && nowMs >= nextAutoCommitMs) {
            nextAutoCommitMs = nowMs + settings.autoCommitIntervalMs();
            Map<TopicPartition, OffsetAndMetadata> offsets = subscriptions.positionsToCommit();
            if (!offsets.isEmpty()) {
                commitAsync(offsets, this::logAutoCommitFailure);
            }
        }
    }

    private void logCommitFailure(Map<TopicPartition, OffsetAndMetadata> offsets, Exception failure) {
        if (failure != null) {
            LOG.error("Offset commit of {} failed", offsets, failure);
        }
    }

    private void logAutoCommitFailure(Map<TopicPartition, OffsetAndMetadata> offsets, Exception failure) {
        if (failure != null) {
            LOG.warn("Asynchronous auto-commit of offsets {} failed: {}", offsets, failure.getMessage());
        }
    }

    // ---------------------------------------------------------------- offsets and topics

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch) {
        return offsetsForTimes(timestampsToSearch, settings.defaultApiTimeout());
    }

    /** {@inheritDoc} Partitions without a record at or after their timestamp map to null. */
    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch, Duration timeout) {
        timestampsToSearch.forEach((partition, timestamp) -> {
            if (timestamp < 0) {
                throw new IllegalArgumentException("The target time for partition " + partition + " is " + timestamp
                        + ". The target time cannot be negative.");
            }
        });
        Map<TopicPartition, ListedOffset> listed = listOffsets(timestampsToSearch, timeout, "offsets for times");
        Map<TopicPartition, OffsetAndTimestamp> result = new HashMap<>();
        listed.forEach((partition, offset) -> result.put(partition,
                offset.offset() < 0 ? null : new OffsetAndTimestamp(offset.offset(), offset.timestamp(), offset.leaderEpoch())));
        return result;
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return beginningOffsets(partitions, settings.defaultApiTimeout());
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return offsetsAt(partitions, ListOffsetsRequest.EARLIEST_TIMESTAMP, timeout, "beginning offsets");
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return endOffsets(partitions, settings.defaultApiTimeout());
    }

    /**
     * {@inheritDoc} With {@code isolation.level=read_committed}, the last stable offsets. As in
     * {@code KafkaConsumer}, an assigned partition's end offset also serves {@link #currentLag}
     * until a Fetch answers for it.
     */
    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        boolean readCommitted = settings.isolationLevel() == IsolationLevel.READ_COMMITTED;
        return callOwned(() -> {
            Map<TopicPartition, Long> ends = offsetsAt(partitions, ListOffsetsRequest.LATEST_TIMESTAMP, timeout, "end offsets");
            ends.forEach((partition, end) -> {
                PartitionState state = subscriptions.state(partition);
                if (state != null) {
                    state.endListed(end, readCommitted);
                }
            });
            return ends;
        });
    }

    private Map<TopicPartition, Long> offsetsAt(Collection<TopicPartition> partitions, long timestamp, Duration timeout, String what) {
        Map<TopicPartition, Long> timestamps = new HashMap<>();
        partitions.forEach(partition -> timestamps.put(partition, timestamp));
        Map<TopicPartition, Long> result = new HashMap<>();
        listOffsets(timestamps, timeout, what).forEach((partition, listed) -> result.put(partition, listed.offset()));
        return result;
    }

    private Map<TopicPartition, ListedOffset> listOffsets(Map<TopicPartition, Long> timestamps, Duration timeout, String what) {
        return callOwned(() -> {
            if (timestamps.isEmpty()) {
                return Map.of();
            }
            long deadlineMs = deadline(timeout);
            return await(offsetLookup.offsets(Map.copyOf(timestamps), settings.isolationLevel(), deadlineMs), deadlineMs,
                    () -> "Failed to get " + what + " of " + timestamps.keySet() + " in " + timeout.toMillis() + "ms");
        });
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return partitionsFor(topic, settings.defaultApiTimeout());
    }

    /** {@inheritDoc} Empty when the topic does not exist. */
    @Override
    public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        return callOwned(() -> {
            if (cache.partitionCount(topic) > 0) {
                return ClusterView.partitions(cache, topic);
            }
            long deadlineMs = deadline(timeout);
            List<PartitionInfo> found = listTopics(deadlineMs).get(topic);
            return found == null ? List.of() : found;
        });
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        return listTopics(settings.defaultApiTimeout());
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
        return callOwned(() -> {
            return listTopics(deadline(timeout));
        });
    }

    /** Every topic, as one broker describes it; {@code TimeoutException} with KafkaConsumer's message past {@code deadlineMs}. */
    private Map<String, List<PartitionInfo>> listTopics(long deadlineMs) {
        return ClusterView.topics(await(metadata.describeAllTopics(), deadlineMs,
                () -> "Timeout expired while fetching topic metadata"));
    }

    // ---------------------------------------------------------------- metrics, lifecycle

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return Collections.unmodifiableMap(metrics.metrics());
    }

    /** {@inheritDoc} A no-op: this consumer pushes no client telemetry. */
    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
    }

    /** {@inheritDoc} A no-op: this consumer pushes no client telemetry. */
    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
    }

    /** Not supported: this consumer pushes no client telemetry. @throws IllegalStateException always */
    @Override
    public Uuid clientInstanceId(Duration timeout) {
        throw new IllegalStateException("FastLeaderConsumer does not push client telemetry, so it has no client instance id");
    }

    /** {@inheritDoc} Safe to call from any thread. */
    @Override
    public void wakeup() {
        wakeupRequested.set(true);
        stateOwner.wakeUp();
    }

    /** {@inheritDoc} Waits up to 30 seconds, as {@code KafkaConsumer} does. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT, false);
    }

    /** {@inheritDoc} Deprecated as in {@code Consumer} 4.1+: use {@link #close(CloseOptions)}. */
    @Deprecated
    @Override
    public void close(Duration timeout) {
        close(timeout, false);
    }

    /**
     * {@inheritDoc} With auto-commit, commits the positions first, within the timeout. Pending
     * commit callbacks run before it returns. No consumer thread outlives it.
     */
    @Override
    public void close(CloseOptions options) {
        // The only place CloseOptions (kafka-clients 4.1+) is used, so that close() and close(Duration) work without it.
        close(options.timeout().orElse(DEFAULT_CLOSE_TIMEOUT),
                options.groupMembershipOperation() == CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
    }

    /**
     * As {@code KafkaConsumer} 4.3 under the consumer protocol, a group member leaves the group:
     * a static member leaves with epoch -2, keeping its partitions for its session timeout, unless
     * {@code leaveForGood} (epoch -1); a dynamic member always leaves with -1, as the consumer
     * protocol has no way for it to stay.
     *
     * @param leaveForGood whether closed with {@code CloseOptions} {@code LEAVE_GROUP}
     */
    private void close(Duration timeout, boolean leaveForGood) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("The timeout cannot be negative.");
        }
        if (closed) {
            return;
        }
        acquire();
        try {
            stateOwner.call(() -> {
                closing = true;
                if (isGroupSubscribed()) {
                    leaveOnClose(leaveForGood, timeout);
                } else if (settings.autoCommit()) {
                    try {
                        commitSync(subscriptions.positionsToCommit(), timeout);
                    } catch (RuntimeException e) {
                        LOG.warn("Failed to commit offsets on close", e);
                    }
                }
                // Answers already in (say of an async commit) run, so their callbacks run before close returns.
                stateOwner.runPending(0);
                return null;
            }, () -> interruptRequested.set(true));
            closed = true;
            releaseResources();
        } finally {
            release();
        }
    }

    private void leaveOnClose(boolean leaveForGood, Duration timeout) {
        try {
            leaveGroup(leaveForGood, timeout);
        } catch (RuntimeException e) {
            LOG.warn("Failed to leave group {} cleanly on close", settings.groupId().orElseThrow(), e);
        }
    }

    private void releaseResources() {
        resources.close();
    }

    // ---------------------------------------------------------------- helpers

    /** Waits for {@code future} on this thread, applying answers meanwhile; honours {@link #wakeup()}. */
    private <T> T await(CompletableFuture<T> future, long deadlineMs, Supplier<String> timeoutMessage) {
        future.whenComplete((result, failure) -> stateOwner.wakeUp());
        while (!future.isDone()) {
            long remainingMs = deadlineMs - clockMs.getAsLong();
            if (remainingMs <= 0) {
                future.cancel(false);
                throw new TimeoutException(timeoutMessage.get());
            }
            applyPending(remainingMs);
        }
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    private static KafkaException unwrap(Throwable failure) {
        Throwable cause = Failures.cause(failure);
        if (cause instanceof KafkaException kafka) {
            return kafka;
        }
        return new KafkaException(cause);
    }

    private long deadline(Duration timeout) {
        long nowMs = clockMs.getAsLong();
        long timeoutMs = timeout.toMillis();
        return timeoutMs > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + timeoutMs;
    }

    /**
     * Runs a call of the API on the state owner, as the consumer's one user ({@link #acquire}), and
     * returns its result; a call made by the owner itself (one call in another) runs in place.
     */
    private <T> T callOwned(Supplier<T> call) {
        if (stateOwner.isCurrent()) {
            return call.get();
        }
        acquire();
        try {
            return stateOwner.call(call, () -> interruptRequested.set(true));
        } finally {
            release();
        }
    }

    /** Runs a call of the API that returns nothing as the consumer's one user ({@link #acquire}). */
    private void runOwned(Runnable call) {
        callOwned(() -> {
            call.run();
            return null;
        });
    }

    /** Enters a call; as in {@code KafkaConsumer}, a second thread is refused rather than served. */
    private void acquire() {
        long thread = Thread.currentThread().getId();
        if (thread != owner.get() && !owner.compareAndSet(NO_OWNER, thread)) {
            throw new ConcurrentModificationException("FastLeaderConsumer is not safe for multi-threaded access");
        }
        if (closed) {
            owner.set(NO_OWNER);
            throw new IllegalStateException("This consumer has already been closed.");
        }
        ownerDepth.incrementAndGet();
    }

    private void release() {
        if (ownerDepth.decrementAndGet() == 0) {
            owner.set(NO_OWNER);
        }
    }
}
