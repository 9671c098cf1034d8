package io.fastleader.clients.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.metadata.Refusal;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;

/**
 * Gives positions to the partitions that lack a valid one, asynchronously, on the consumer's
 * thread: the committed offset of a new partition (with a {@code group.id}), a ListOffsets lookup
 * for a reset, and an OffsetsForLeaderEpoch check for a position read under an older leader when
 * the Fetch could not check it. At most one lookup per partition is under way.
 *
 * <p>A failed lookup is retried by a later {@link #resolve} as {@link EpochBackoff} says, the rule
 * the Fetch and Produce paths follow: each partition it asked for backs off on its own (in its
 * {@link PartitionState#backoff}), exponentially from {@code retry.backoff.ms}, and the others go
 * on. A lookup that goes to the partition's leader (OffsetsForLeaderEpoch, ListOffsets) remembers
 * the leader epoch it was decided and sent at, from one read of the cache: once the cache knows a
 * newer epoch for the partition, its backoff is over at once. A committed-offset lookup goes to the
 * group's coordinator, which no leader epoch concerns: its backoff ends by time only. A validation
 * refused for a leadership reason, or lost in transit, has its topics refreshed, which is how the
 * newer epoch is learned (OffsetsForLeaderEpoch answers carry no leader hints); a reset's lookup
 * does the same itself ({@link OffsetLookup}).
 */
final class PositionResolver {

    private static final Logger LOG = LoggerFactory.getLogger(PositionResolver.class);
    /** OffsetsForLeaderEpoch's replica id for a consumer. */
    private static final int CONSUMER_REPLICA_ID = -1;
    /** The leader epoch of a lookup no leader answers (the coordinator's): no epoch advance ends its backoff. */
    private static final int NO_EPOCH = -1;

    private final SubscriptionState subscriptions;
    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final OffsetLookup offsetLookup;
    private final Optional<ConsumerGroup> group;
    private final EpochBackoff retryBackoff;
    private final ConsumerSettings settings;
    private final ConsumerMetrics metrics;
    private final Executor inbox;
    private final LongSupplier clockMs;
    private final PendingErrors errors;
    private final Set<TopicPartition> underWay = new HashSet<>();

    /**
     * @param retryBackoff between a partition's failed lookups: the consumer's one retry policy, the Fetcher's too
     * @param thread       where lookups' answers are applied: its inbox runs them on the consumer's thread
     */
    PositionResolver(ConnectionPool pool, ClusterMetadata metadata, SubscriptionState subscriptions, OffsetLookup offsetLookup,
                     Optional<ConsumerGroup> group, EpochBackoff retryBackoff, PollThread thread) {
        this.pool = pool;
        this.metadata = metadata;
        this.cache = metadata.cache();
        this.subscriptions = subscriptions;
        this.offsetLookup = offsetLookup;
        this.group = group;
        this.retryBackoff = retryBackoff;
        this.settings = thread.settings();
        this.metrics = thread.metrics();
        this.inbox = thread.inbox();
        this.clockMs = thread.clockMs();
        this.errors = thread.errors();
    }

    /**
     * One partition as an OffsetsForLeaderEpoch asked for it.
     *
     * @param leaderEpoch the epoch it was asked at ({@code CurrentLeaderEpoch}): the one read of the cache
     *                    that routed it and ended its backoff, and the epoch a refusal backs it off at
     */
    private record Asked(PartitionState state, int leaderEpoch) {
    }

    /** Starts the lookups that positions need and that are not under way or backing off. */
    void resolve() {
        long nowMs = clockMs.getAsLong();
        Set<TopicPartition> initializing = new HashSet<>();
        Map<ResetStrategy, Map<TopicPartition, Long>> resets = new HashMap<>();
        Map<TopicPartition, Integer> resetEpochs = new HashMap<>();
        Map<Integer, List<Asked>> validations = new HashMap<>();
        for (PartitionState state : subscriptions.states()) {
            if (underWay.contains(state.partition())) {
                continue;
            }
            switch (state.phase()) {
                case INITIALIZING -> {
                    if (state.backoff().isOver(NO_EPOCH, nowMs)) {
                        initializing.add(state.partition());
                    }
                }
                case AWAIT_RESET -> {
                    // The lookup routes itself (OffsetLookup); this one read decides, and is the epoch a failure backs off at.
                    int leaderEpoch = cache.leaderEpoch(state.partition());
                    if (state.backoff().isOver(leaderEpoch, nowMs)) {
                        resets.computeIfAbsent(state.pendingReset(), s -> new HashMap<>())
                                .put(state.partition(), state.pendingReset().targetTimestamp(System.currentTimeMillis()));
                        resetEpochs.put(state.partition(), leaderEpoch);
                    }
                }
                case AWAIT_VALIDATION -> {
                    // One read: the leader it goes to, the epoch it is asked at, and whether that epoch ends its backoff.
                    PartitionLeadership leadership = cache.routable(state.partition());
                    if (leadership != null && state.backoff().isOver(leadership.leaderEpoch(), nowMs)) {
                        validations.computeIfAbsent(leadership.leaderId(), node -> new ArrayList<>())
                                .add(new Asked(state, leadership.leaderEpoch()));
                    }
                }
                default -> { }
            }
        }
        if (!initializing.isEmpty()) {
            lookUpCommitted(initializing, nowMs);
        }
        resets.forEach((strategy, timestamps) -> reset(strategy, timestamps, resetEpochs, nowMs));
        validations.forEach(this::validate);
    }


    private void lookUpCommitted(Set<TopicPartition> partitions, long nowMs) {
        if (group.isEmpty()) {
            partitions.forEach(partition -> errors.capture(() -> subscriptions.state(partition).noCommittedOffset(settings.resetStrategy())));
            return;
        }
        underWay.addAll(partitions);
        group.get().committed(partitions, settings.stableOffsets(), deadline(nowMs))
                .whenComplete((committed, failure) -> inbox.execute(() -> {
                    underWay.removeAll(partitions);
                    if (failure != null) {
                        logFailure("committed offsets", partitions, failure);
                        for (TopicPartition partition : partitions) {
                            PartitionState state = subscriptions.state(partition);
                            if (state != null && state.phase() == PartitionState.Phase.INITIALIZING) {
                                backOff(state, NO_EPOCH);
                            }
                        }
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

    /** @param leaderEpochs the leader epoch each partition's reset was decided at */
    private void reset(ResetStrategy strategy, Map<TopicPartition, Long> timestamps, Map<TopicPartition, Integer> leaderEpochs,
                       long nowMs) {
        underWay.addAll(timestamps.keySet());
        offsetLookup.offsets(timestamps, settings.isolationLevel(), deadline(nowMs))
                .whenComplete((offsets, failure) -> inbox.execute(() -> {
                    underWay.removeAll(timestamps.keySet());
                    if (failure != null) {
                        logFailure("reset offsets", timestamps.keySet(), failure);
                        for (TopicPartition partition : timestamps.keySet()) {
                            PartitionState state = subscriptions.state(partition);
                            if (state != null && state.phase() == PartitionState.Phase.AWAIT_RESET && state.pendingReset() == strategy) {
                                backOff(state, leaderEpochs.get(partition));
                            }
                        }
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

    private void validate(int node, List<Asked> states) {
        Map<TopicPartition, Asked> asked = new HashMap<>();
        Map<String, OffsetForLeaderEpochRequestData.OffsetForLeaderTopic> topics = new HashMap<>();
        for (Asked validation : states) {
            TopicPartition partition = validation.state().partition();
            asked.put(partition, validation);
            topics.computeIfAbsent(partition.topic(), t -> new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(t))
                    .partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(partition.partition())
                            .setCurrentLeaderEpoch(validation.leaderEpoch())
                            .setLeaderEpoch(validation.state().position().lastFetchedEpoch()));
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

    private void validated(Map<TopicPartition, Asked> asked, ApiMessage response, Throwable failure) {
        underWay.removeAll(asked.keySet());
        Set<String> refresh = new TreeSet<>();
        if (failure != null) {
            logFailure("OffsetsForLeaderEpoch", asked.keySet(), failure);
            asked.values().forEach(validation -> {
                if (stillValidating(validation)) {
                    backOff(validation.state(), validation.leaderEpoch());
                    refresh.add(validation.state().partition().topic());
                }
            });
            refreshLeaders(refresh);
            return;
        }
        for (OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic : ((OffsetForLeaderEpochResponseData) response).topics()) {
            for (OffsetForLeaderEpochResponseData.EpochEndOffset result : topic.partitions()) {
                Asked validation = asked.get(new TopicPartition(topic.topic(), result.partition()));
                if (validation == null || !subscriptions.isCurrent(validation.state())) {
                    continue;
                }
                PartitionState state = validation.state();
                ErrorCode error = ErrorCode.forCode(result.errorCode());
                if (error == ErrorCode.NONE) {
                    if (stillValidating(validation)) {
                        // The leader answered: a backoff earned by earlier failures is over, as a Fetch answer ends one.
                        state.backOff(EpochBackoff.State.NONE);
                    }
                    EpochEndOffset end = new EpochEndOffset(result.leaderEpoch(), result.endOffset());
                    if (end.truncates(state.position())) {
                        metrics.truncationDetected();
                    }
                    errors.capture(() -> state.epochEnds(end, settings.resetStrategy()));
                } else if (FetchErrorKind.of(error) == FetchErrorKind.FATAL) {
                    errors.add(error.exception("Validating the position of " + state.partition() + " failed: " + error.message()));
                } else if (stillValidating(validation)) {
                    logFailure("OffsetsForLeaderEpoch", Set.of(state.partition()), error.exception());
                    backOff(state, validation.leaderEpoch());
                    if (FetchErrorKind.of(error) == FetchErrorKind.LEADER_MOVED) {
                        refresh.add(state.partition().topic());
                    }
                }
            }
        }
        refreshLeaders(refresh);
    }

    /** Refreshes the topics whose leaders refused or could not be reached: a newer leader epoch found ends their backoff. */
    private void refreshLeaders(Set<String> topics) {
        if (!topics.isEmpty()) {
            metadata.onLeaderError(topics);
        }
    }

    /** Whether the partition still awaits the validation asked: a seek since made it moot, and its backoff the Fetcher's. */
    private boolean stillValidating(Asked validation) {
        return subscriptions.isCurrent(validation.state()) && validation.state().phase() == PartitionState.Phase.AWAIT_VALIDATION;
    }

    private long deadline(long nowMs) {
        return nowMs + settings.defaultApiTimeout().toMillis();
    }

    /**
     * Holds the partition's next lookup back as {@link EpochBackoff} says after a failure, the
     * others not.
     *
     * @param askedAtEpoch the leader epoch the failed lookup was decided and sent at; {@link #NO_EPOCH} for the coordinator
     */
    private void backOff(PartitionState state, int askedAtEpoch) {
        state.backOff(retryBackoff.refused(state.backoff(), askedAtEpoch, Refusal.NONE, clockMs.getAsLong()));
    }

    private static void logFailure(String what, Set<TopicPartition> partitions, Throwable failure) {
        LOG.debug("Looking up {} of {} failed; each backs off before it is retried: {}", what, partitions, failure.toString());
    }

    /**
     * When the first partition backing off after a failed lookup may be retried by time; 0 when none
     * is. A newer leader epoch may end a backoff sooner: the cache wakes the consumer for that.
     */
    long retryAtMs() {
        long nowMs = clockMs.getAsLong();
        long retryAtMs = Long.MAX_VALUE;
        for (PartitionState state : subscriptions.states()) {
            boolean looksUp = switch (state.phase()) {
                case INITIALIZING, AWAIT_RESET, AWAIT_VALIDATION -> true;
                case FETCHING, STOPPED -> false;
            };
            long untilMs = state.backoff().untilMs();
            if (looksUp && untilMs > nowMs) {
                retryAtMs = Math.min(retryAtMs, untilMs);
            }
        }
        return retryAtMs == Long.MAX_VALUE ? 0 : retryAtMs;
    }

}
