package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

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
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.Assignee;
import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.consumer.group.LeaveOperation;
import io.fastleader.clients.metadata.ClientResources;
import io.fastleader.clients.metadata.ClientResources.ClusterLink;
import io.fastleader.clients.metadata.ClientTelemetry;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.network.ConnectionPool;
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
 * with the classic group protocol (the group's leader runs {@code partition.assignment.strategy}'s
 * assignor), or under {@code group.protocol=consumer} with the consumer group protocol (KIP-848,
 * Kafka 4.0+: the coordinator assigns); heartbeats go from a thread of the consumer's own; listener
 * callbacks and assignors run on the thread that calls {@code poll}. {@link #assign} takes
 * partitions without joining; offsets are then committed for the {@code group.id} as a standalone
 * {@code KafkaConsumer} commits them. Not supported yet: fetching from followers, client telemetry.
 *
 * <p>Not thread-safe, like {@code KafkaConsumer}: one thread uses it; only {@link #wakeup()} may
 * be called from another.
 */
public final class FastLeaderConsumer<K, V> extends ConsumerDefaults<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConsumer.class);
    /** The JMX domain of the client's MBeans, kafka-clients' own. */
    private static final String JMX_PREFIX = "kafka.consumer";

    private final ConsumerSettings settings;
    private final LongSupplier clockMs = () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    private final ClientResources resources = new ClientResources("FastLeaderConsumer");
    private final SubscriptionState subscriptions = new SubscriptionState();
    private final ConsumerThread stateOwner;
    private final ApplicationCalls calls;
    private final Metrics metrics;
    private final ConsumerInterceptorChain<K, V> interceptors;
    private final OptionalGroup group;
    private final Commits commits;
    private final AutoCommit autoCommit;
    private final Assignment assignment;
    private final ClusterQueries queries;
    private final PollLoop<K, V> pollLoop;
    private final ClientTelemetry telemetry;

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
        String clientId = settings.clientId();
        try {
            // Registered first, so closed last: closing the other resources may still hand it answers.
            this.stateOwner = resources.register(new ConsumerThread(clientId, clockMs));
            this.calls = new ApplicationCalls(stateOwner, clockMs);
            this.metrics = resources.openMetrics(clientId, settings.kafkaConfig(), JMX_PREFIX);
            Deserializer<K> keys = resources.registerPlugin(settings.keyDeserializer(keyDeserializer), metrics,
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
            Deserializer<V> values = resources.registerPlugin(settings.valueDeserializer(valueDeserializer), metrics,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
            List<ConsumerInterceptor<K, V>> configuredInterceptors = settings.interceptors();
            configuredInterceptors.forEach(interceptor -> resources.monitor(interceptor, metrics, ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG));
            this.interceptors = resources.register(new ConsumerInterceptorChain<>(configuredInterceptors));
            ClusterLink cluster = resources.openCluster(clientId, settings, metrics, ConsumerMetrics.CLIENT_GROUP,
                    ConsumerMetrics.NODE_GROUP, opened -> subscriptions::usesTopic);
            ConnectionPool pool = cluster.pool();
            ClusterMetadata metadata = cluster.metadata();
            this.telemetry = cluster.telemetry();
            metadata.tellClusterId(ClientResources.clusterIdListeners(keys, values, configuredInterceptors, metrics));
            ConsumerMetrics consumerMetrics = new ConsumerMetrics(metrics, Time.SYSTEM);
            EpochBackoff retryBackoff = EpochBackoff.of(settings.metadataConfig());
            OffsetLookup offsetLookup = new OffsetLookup(pool, metadata, retryBackoff, clockMs, stateOwner);
            Optional<ConsumerGroup> consumerGroup = settings.groupSettings(retryBackoff).map(groupSettings -> resources.register(
                    new ConsumerGroup(groupSettings, pool, metadata, metrics, clockMs, stateOwner, stateOwner::wakeUp, new Reconciled(),
                            telemetry::memberIdChanged)));
            this.group = new OptionalGroup(consumerGroup, calls);
            this.commits = new Commits(calls, group, settings, consumerMetrics, interceptors, stateOwner, clockMs);
            this.autoCommit = new AutoCommit(settings, subscriptions, commits, clockMs);
            this.assignment = new Assignment(subscriptions, group, autoCommit, consumerMetrics, metadata, cluster.prewarm(), stateOwner,
                    settings.defaultApiTimeout());
            this.queries = new ClusterQueries(calls, offsetLookup, metadata, subscriptions, settings.isolationLevel());
            RecordDecoding<K, V> decoding = new RecordDecoding<>(keys, values, settings.isolationLevel(), settings.checkCrcs());
            PendingErrors errors = new PendingErrors();
            metadata.onMetadataError(error -> stateOwner.execute(() -> errors.add(error)));
            PollThread thread = new PollThread(settings, consumerMetrics, stateOwner, clockMs, errors);
            Fetcher<K, V> fetcher = new Fetcher<>(pool, metadata, subscriptions, decoding, retryBackoff, thread);
            PositionResolver positions = new PositionResolver(pool, metadata, subscriptions, offsetLookup, consumerGroup, retryBackoff,
                    thread);
            this.pollLoop = new PollLoop<>(calls, group, autoCommit, subscriptions, fetcher, positions, thread);
            // A newer leader epoch may end a partition's backoff: a waiting poll looks again.
            metadata.cache().wakeOnChange(stateOwner::wakeUp);
            settings.logIgnoredKeys();
        } catch (RuntimeException e) {
            throw resources.failedToStart(e);
        }
    }

    /** Reconciliation's hold on the assignment: the same path as {@link #assign}, without its commit of the old one. */
    private final class Reconciled implements Assignee {
        @Override
        public Set<TopicPartition> assignment() {
            return subscriptions.partitions();
        }

        @Override
        public void assign(Collection<TopicPartition> partitions) {
            assignment.change(partitions);
        }

        @Override
        public void commitBeforeRevoking(Set<TopicPartition> partitions) {
            commitBeforeRevoking(partitions, calls.deadline(settings.defaultApiTimeout()));
        }

        @Override
        public void commitBeforeRevoking(Set<TopicPartition> partitions, long deadlineMs) {
            autoCommit.beforeRevoking(partitions, deadlineMs);
        }
    }

    @Override
    Duration defaultApiTimeout() {
        return settings.defaultApiTimeout();
    }

    /**
     * {@inheritDoc} Partitions kept keep their positions; new ones start from their committed
     * offset (with a {@code group.id}) or per {@code auto.offset.reset}. With auto-commit, the
     * positions of the old assignment are committed first, asynchronously, as {@code KafkaConsumer} does.
     *
     * @throws IllegalArgumentException for a null partition or a partition with an empty topic
     */
    @Override
    public void assign(Collection<TopicPartition> partitions) {
        calls.runOwned(() -> assignment.assign(partitions));
    }

    @Override
    public Set<TopicPartition> assignment() {
        return calls.callOwned(() -> Collections.unmodifiableSet(subscriptions.partitions()));
    }

    /** {@inheritDoc} For a {@code Pattern}, the topics it matched last; for a {@code SubscriptionPattern}, none (the coordinator matches it). */
    @Override
    public Set<String> subscription() {
        return calls.callOwned(group::subscription);
    }

    /**
     * {@inheritDoc} Joins the group with the protocol {@code group.protocol} names (classic unless
     * set). An empty collection unsubscribes.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(Collection<String> topics) {
        calls.runOwned(() -> assignment.subscribe(topics, null));
    }

    /**
     * {@inheritDoc} The listener's callbacks run on the thread that calls {@code poll}.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener callback) {
        Assignment.requireListener(callback);
        calls.runOwned(() -> assignment.subscribe(topics, callback));
    }

    /**
     * {@inheritDoc} The pattern is matched here against the cluster's topics, listed every
     * {@code metadata.max.age.ms}; the coordinator is sent the matching names.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(Pattern pattern, ConsumerRebalanceListener callback) {
        Assignment.requireListener(callback);
        calls.runOwned(() -> assignment.subscribe(pattern, callback));
    }

    /** {@inheritDoc} @see #subscribe(Pattern, ConsumerRebalanceListener) */
    @Override
    public void subscribe(Pattern pattern) {
        calls.runOwned(() -> assignment.subscribe(pattern, null));
    }

    /**
     * {@inheritDoc} The coordinator matches the expression (RE2/J) against the cluster's topics;
     * it needs the consumer group protocol and ConsumerGroupHeartbeat v1 (Kafka 4.0+).
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener callback) {
        Assignment.requireListener(callback);
        calls.runOwned(() -> assignment.subscribe(pattern, callback));
    }

    /** {@inheritDoc} @see #subscribe(SubscriptionPattern, ConsumerRebalanceListener) */
    @Override
    public void subscribe(SubscriptionPattern pattern) {
        calls.runOwned(() -> assignment.subscribe(pattern, null));
    }

    /**
     * {@inheritDoc} A group member commits (with auto-commit) and revokes its partitions, then
     * leaves the group, waiting up to {@code default.api.timeout.ms} for the coordinator's answer;
     * a static member leaves with epoch -2, as in {@code KafkaConsumer}.
     */
    @Override
    public void unsubscribe() {
        calls.runOwned(assignment::unsubscribe);
    }

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

    @Override
    ConsumerRecords<K, V> poll(Duration timeout, boolean awaitAssignment) {
        // KafkaConsumer refuses it before anything else, open or closed, with its Timer's message.
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("Invalid negative timeout " + timeout.toMillis());
        }
        Optional<ConsumerRecords<K, V>> polled = calls.callOwned(() -> pollLoop.poll(timeout, awaitAssignment));
        // As KafkaConsumer's: the interceptors see what a poll returns before its timeout, records or only new positions.
        return polled.map(interceptors::onConsume).orElseGet(ConsumerRecords::empty);
    }

    @Override
    public void seek(TopicPartition partition, long offset) {
        seekTo(partition, offset, Optional.empty());
    }

    /** {@inheritDoc} The leader epoch of {@code offsetAndMetadata}, if any, is validated by the next Fetch. */
    @Override
    public void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata) {
        seekTo(partition, offsetAndMetadata.offset(), offsetAndMetadata.leaderEpoch());
    }

    private void seekTo(TopicPartition partition, long offset, Optional<Integer> leaderEpoch) {
        if (offset < 0) {
            throw new IllegalArgumentException("seek offset must not be a negative number");
        }
        FetchPosition position = new FetchPosition(offset, leaderEpoch);
        calls.runOwned(() -> subscriptions.assigned(partition).seek(position));
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
        calls.runOwned(() -> assignment.reset(partitions, strategy));
    }

    /**
     * {@inheritDoc} Looks the position up first when the partition has none yet.
     *
     * @throws TimeoutException if it cannot be determined within {@code timeout}
     */
    @Override
    public long position(TopicPartition partition, Duration timeout) {
        return calls.callOwned(() -> pollLoop.position(partition, timeout));
    }

    @Override
    public Set<TopicPartition> paused() {
        return calls.callOwned(() -> Collections.unmodifiableSet(subscriptions.paused()));
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        calls.runOwned(() -> partitions.forEach(partition -> subscriptions.assigned(partition).pause()));
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        calls.runOwned(() -> partitions.forEach(partition -> subscriptions.assigned(partition).resume()));
    }

    /** {@inheritDoc} From the high watermark (or last stable offset) of the partition's latest Fetch. */
    @Override
    public OptionalLong currentLag(TopicPartition partition) {
        return calls.callOwned(() -> {
            Optional<Long> lag = subscriptions.assigned(partition).lag(settings.isolationLevel() == IsolationLevel.READ_COMMITTED);
            return lag.map(OptionalLong::of).orElseGet(OptionalLong::empty);
        });
    }

    @Override
    public void commitSync(Duration timeout) {
        calls.runOwned(() -> commits.commitSync(subscriptions.positionsToCommit(), timeout));
    }

    /**
     * {@inheritDoc} Commits as a standalone consumer: with the {@code group.id}, without joining the group.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     * @throws TimeoutException        if not committed within {@code timeout}
     */
    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        commits.commitSync(offsets, timeout);
    }

    @Override
    public void commitAsync(OffsetCommitCallback callback) {
        calls.runOwned(() -> commits.commitAsync(subscriptions.positionsToCommit(), callback));
    }

    /**
     * {@inheritDoc} The callback runs on the application's thread, in a later call of this
     * consumer ({@code poll}, {@code commitSync}, {@code close}, ...); without one, failures are logged.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        commits.commitAsync(offsets, callback);
    }

    /**
     * {@inheritDoc} Partitions without a committed offset map to null, as in {@code KafkaConsumer}.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        return commits.committed(partitions, timeout);
    }

    /** {@inheritDoc} A classic member rejoins on its next poll; under the consumer protocol only a warning, as from {@code KafkaConsumer}. */
    @Override
    public void enforceRebalance(String reason) {
        if (!calls.callOwned(() -> group.require().enforceRebalance(reason))) {
            LOG.warn("Operation not supported in new consumer group protocol");
        }
    }

    /** {@inheritDoc} Outside the group (assigning partitions itself): no generation, no member id. */
    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return calls.callOwned(() -> group.require().metadata());
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
        return queries.offsetsForTimes(timestampsToSearch, timeout);
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return queries.beginningOffsets(partitions, timeout);
    }

    /**
     * {@inheritDoc} With {@code isolation.level=read_committed}, the last stable offsets. As in
     * {@code KafkaConsumer}, an assigned partition's end offset also serves {@link #currentLag}
     * until a Fetch answers for it.
     */
    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return queries.endOffsets(partitions, timeout);
    }

    /** {@inheritDoc} Empty when the topic does not exist. */
    @Override
    public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        return queries.partitionsFor(topic, timeout);
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
        return queries.listTopics(timeout);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return Collections.unmodifiableMap(metrics.metrics());
    }

    /** Adds the application's {@code metric} to this consumer's client telemetry, unless it is one of the consumer's own. */
    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        telemetry.addApplicationMetric(metric, metrics);
    }

    /** Takes the application's {@code metric} out of this consumer's client telemetry; the consumer's own stay. */
    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        telemetry.removeApplicationMetric(metric, metrics);
    }

    /**
     * The id the brokers gave this consumer for its client telemetry (KIP-714), waiting up to
     * {@code timeout} for it; null if it did not come in time, as in {@code KafkaConsumer}.
     *
     * @throws IllegalStateException with {@code enable.metrics.push=false}, as {@code KafkaConsumer} does
     * @throws IllegalArgumentException for a negative timeout
     */
    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return telemetry.clientInstanceId(timeout);
    }

    /** {@inheritDoc} Safe to call from any thread. */
    @Override
    public void wakeup() {
        calls.wakeup();
    }

    /**
     * {@inheritDoc} With auto-commit, commits the positions first, within the timeout. Pending
     * commit callbacks run before it returns. No consumer thread outlives it.
     */
    @Override
    public void close(CloseOptions options) {
        // The only place CloseOptions (kafka-clients 4.1+) is used, so that close() and close(Duration) work without it.
        close(options.timeout().orElse(DEFAULT_CLOSE_TIMEOUT), LeaveOperation.valueOf(options.groupMembershipOperation().name()));
    }

    @Override
    void close(Duration timeout, LeaveOperation leave) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("The timeout cannot be negative.");
        }
        long deadlineMs = calls.deadline(timeout);
        calls.close(() -> {
            if (group.isSubscribed()) {
                group.leaveOnClose(settings.onClose(leave), timeout);
            } else {
                autoCommit.onClose(timeout);
            }
            // Answers already in (say of an async commit) run, so their callbacks run before close returns.
            stateOwner.runPending(0);
        }, () -> {
            telemetry.closeWithin(Duration.ofMillis(Math.max(0, deadlineMs - clockMs.getAsLong())));
            resources.close();
        });
    }
}
