package io.fastleader.clients.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;

/**
 * Gives positions to the partitions that lack a valid one, asynchronously, on the consumer's
 * thread: the committed offset of a new partition (with a {@code group.id}), a ListOffsets lookup
 * for a reset, and an OffsetsForLeaderEpoch check for a position read under an older leader when
 * the Fetch could not check it. At most one lookup per partition is under way; a failed one is
 * retried by a later {@link #resolve} after {@code retry.backoff.ms}.
 */
final class PositionResolver {

    private static final Logger LOG = LoggerFactory.getLogger(PositionResolver.class);
    /** OffsetsForLeaderEpoch's replica id for a consumer. */
    private static final int CONSUMER_REPLICA_ID = -1;

    private final SubscriptionState subscriptions;
    private final ConnectionPool pool;
    private final LeaderCache cache;
    private final OffsetLookup offsetLookup;
    private final Optional<ConsumerGroup> group;
    private final ConsumerSettings settings;
    private final ConsumerMetrics metrics;
    private final Executor inbox;
    private final LongSupplier clockMs;
    private final PendingErrors errors;
    private final Set<TopicPartition> underWay = new HashSet<>();
    private long retryAtMs;

    /** @param thread where lookups' answers are applied: its inbox runs them on the consumer's thread */
    PositionResolver(ConnectionPool pool, ClusterMetadata metadata, SubscriptionState subscriptions, OffsetLookup offsetLookup,
                     Optional<ConsumerGroup> group, PollThread thread) {
        this.pool = pool;
        this.cache = metadata.cache();
        this.subscriptions = subscriptions;
        this.offsetLookup = offsetLookup;
        this.group = group;
        this.settings = thread.settings();
        this.metrics = thread.metrics();
        this.inbox = thread.inbox();
        this.clockMs = thread.clockMs();
        this.errors = thread.errors();
    }

    /** Starts the lookups that positions need and that are not under way or backing off. */
    void resolve() {
        long nowMs = clockMs.getAsLong();
        if (nowMs < retryAtMs) {
            return;
        }
        Set<TopicPartition> initializing = new HashSet<>();
        Map<ResetStrategy, Map<TopicPartition, Long>> resets = new HashMap<>();
        Map<Integer, List<PartitionState>> validations = new HashMap<>();
        for (PartitionState state : subscriptions.states()) {
            if (underWay.contains(state.partition())) {
                continue;
            }
            switch (state.phase()) {
                case INITIALIZING -> initializing.add(state.partition());
                case AWAIT_RESET -> resets.computeIfAbsent(state.pendingReset(), s -> new HashMap<>())
                        .put(state.partition(), state.pendingReset().targetTimestamp(System.currentTimeMillis()));
                case AWAIT_VALIDATION -> {
                    PartitionLeadership leadership = cache.routable(state.partition());
                    if (leadership != null) {
                        validations.computeIfAbsent(leadership.leaderId(), node -> new ArrayList<>()).add(state);
                    }
                }
                default -> { }
            }
        }
        if (!initializing.isEmpty()) {
            lookUpCommitted(initializing, nowMs);
        }
        resets.forEach((strategy, timestamps) -> reset(strategy, timestamps, nowMs));
        validations.forEach(this::validate);
    }


    private void lookUpCommitted(Set<TopicPartition> partitions, long nowMs) {
        if (group.isEmpty()) {
            partitions.forEach(partition -> errors.capture(() -> subscriptions.state(partition).noCommittedOffset(settings.resetStrategy())));
            return;
        }
        underWay.addAll(partitions);
        boolean requireStable = settings.isolationLevel() == IsolationLevel.READ_COMMITTED;
        group.get().committed(partitions, requireStable, deadline(nowMs))
                .whenComplete((committed, failure) -> inbox.execute(() -> {
                    underWay.removeAll(partitions);
                    if (failure != null) {
                        backOff("committed offsets", failure);
                        return;
                    }
                    for (TopicPartition partition : partitions) {
                        PartitionState state = subscriptions.state(partition);
                        if (state == null || state.phase() != PartitionState.Phase.INITIALIZING) {
                            continue;
                        }
                        OffsetAndMetadata offset = committed.get(partition);
                        if (offset == null) {
                            errors.capture(() -> state.noCommittedOffset(settings.resetStrategy()));
                        } else {
                            state.seek(new FetchPosition(offset.offset(), offset.leaderEpoch()));
                        }
                    }
                }));
    }

    private void reset(ResetStrategy strategy, Map<TopicPartition, Long> timestamps, long nowMs) {
        underWay.addAll(timestamps.keySet());
        offsetLookup.offsets(timestamps, settings.isolationLevel(), deadline(nowMs))
                .whenComplete((offsets, failure) -> inbox.execute(() -> {
                    underWay.removeAll(timestamps.keySet());
                    if (failure != null) {
                        backOff("reset offsets", failure);
                        return;
                    }
                    offsets.forEach((partition, listed) -> {
                        PartitionState state = subscriptions.state(partition);
                        if (state == null || state.phase() != PartitionState.Phase.AWAIT_RESET || state.pendingReset() != strategy) {
                            return;
                        }
                        if (listed.offset() < 0) {
                            // by_duration found no record that recent: start at the end, as KafkaConsumer does.
                            state.requestReset(ResetStrategy.LATEST);
                        } else {
                            state.resetTo(new FetchPosition(listed.offset(), listed.leaderEpoch()));
                        }
                    });
                }));
    }

    private void validate(int node, List<PartitionState> states) {
        Map<TopicPartition, PartitionState> asked = new HashMap<>();
        Map<String, OffsetForLeaderEpochRequestData.OffsetForLeaderTopic> topics = new HashMap<>();
        for (PartitionState state : states) {
            TopicPartition partition = state.partition();
            asked.put(partition, state);
            topics.computeIfAbsent(partition.topic(), t -> new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(t))
                    .partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(partition.partition())
                            .setCurrentLeaderEpoch(cache.leadership(partition).leaderEpoch())
                            .setLeaderEpoch(state.position().lastFetchedEpoch()));
        }
        underWay.addAll(asked.keySet());
        metrics.validationSent();
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection collection =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        topics.values().forEach(collection::add);
        pool.send(node, ApiKey.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochRequestData()
                        .setReplicaId(CONSUMER_REPLICA_ID).setTopics(collection))
                .whenComplete((response, failure) -> inbox.execute(() -> validated(asked, response, failure)));
    }

    private void validated(Map<TopicPartition, PartitionState> asked, ApiMessage response, Throwable failure) {
        underWay.removeAll(asked.keySet());
        if (failure != null) {
            backOff("OffsetsForLeaderEpoch", failure);
            return;
        }
        for (OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic : ((OffsetForLeaderEpochResponseData) response).topics()) {
            for (OffsetForLeaderEpochResponseData.EpochEndOffset result : topic.partitions()) {
                PartitionState state = asked.get(new TopicPartition(topic.topic(), result.partition()));
                if (state == null || !subscriptions.isCurrent(state)) {
                    continue;
                }
                ErrorCode error = ErrorCode.forCode(result.errorCode());
                if (error == ErrorCode.NONE) {
                    EpochEndOffset end = new EpochEndOffset(result.leaderEpoch(), result.endOffset());
                    if (end.truncates(state.position())) {
                        metrics.truncationDetected();
                    }
                    errors.capture(() -> state.epochEnds(end, settings.resetStrategy()));
                } else if (FetchErrorKind.of(error) == FetchErrorKind.FATAL) {
                    errors.add(error.exception("Validating the position of " + state.partition() + " failed: " + error.message()));
                } else {
                    backOff("OffsetsForLeaderEpoch for " + state.partition(), error.exception());
                }
            }
        }
    }

    private long deadline(long nowMs) {
        return nowMs + settings.defaultApiTimeout().toMillis();
    }

    private void backOff(String what, Throwable failure) {
        LOG.debug("Looking up {} failed, retrying after {} ms: {}", what, settings.retryBackoffMs(), failure.toString());
        retryAtMs = clockMs.getAsLong() + settings.retryBackoffMs();
    }

    /** When a backed-off lookup may be retried; 0 when none is backing off. */
    long retryAtMs() {
        return retryAtMs;
    }

}
