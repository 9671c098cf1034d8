package io.fastleader.clients.consumer.group;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;

import io.fastleader.clients.metadata.Coordinator;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;

/**
 * A consumer's {@code group.id}: the one type the consumer talks to for everything group, whether
 * it joins the group ({@code subscribe}, under the classic protocol or the consumer group protocol)
 * or only commits and reads offsets for it (partitions it assigned itself). The subscription, the
 * membership of either protocol, the coordinator and the group's offsets live behind it, in this package.
 */
public final class ConsumerGroup implements AutoCloseable {

    /** {@code KafkaConsumer}'s message when a subscription of one kind meets another, or an assignment. */
    public static final String MUTUALLY_EXCLUSIVE = "Subscription to topics, partitions and pattern are mutually exclusive";

    /**
     * What the group needs of the consumer's configuration.
     *
     * @param maxPollIntervalMs      {@code max.poll.interval.ms}, also the rebalance timeout sent to the coordinator
     * @param retryBackoff           {@code retry.backoff.ms} .. {@code retry.backoff.max.ms}, between failed heartbeats
     * @param offsetsRetryBackoff    between attempts of an offset commit or fetch: the consumer's one retry policy, the
     *                               one its fetches and offset lookups follow ({@link GroupOffsets} says why no leader
     *                               epoch ends its waits)
     * @param topicListingIntervalMs how often a {@code Pattern} subscription lists the cluster's topics ({@code metadata.max.age.ms})
     * @param excludeInternalTopics  {@code exclude.internal.topics}: whether a {@code Pattern} subscription leaves internal topics out
     * @param classic                what the classic protocol needs, present when the consumer joins with it; empty
     *                               under the consumer group protocol
     */
    public record Settings(String groupId, Optional<String> instanceId, Optional<String> rack, Optional<String> remoteAssignor,
                           int maxPollIntervalMs, ExponentialBackoff retryBackoff, EpochBackoff offsetsRetryBackoff,
                           long topicListingIntervalMs, boolean excludeInternalTopics, Optional<Classic> classic) {
        public Settings {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(offsetsRetryBackoff, "offsetsRetryBackoff");
        }
    }

    /**
     * What the classic group protocol needs besides: present when the consumer joins with it
     * ({@code group.protocol=classic}, {@code KafkaConsumer}'s default).
     *
     * @param assignors {@code partition.assignment.strategy}, configured, in the order of preference
     */
    public record Classic(int sessionTimeoutMs, int heartbeatIntervalMs, List<ConsumerPartitionAssignor> assignors) {
        public Classic {
            assignors = List.copyOf(assignors);
        }
    }

    private final String groupId;
    private final LongSupplier clockMs;
    private final GroupMetrics metrics;
    private final GroupSubscription subscription;
    private final GroupMember member;
    private final GroupOffsets offsets;
    private final Consumer<String> memberIdSeen;
    private String memberIdTold = "";

    /**
     * @param owner        the consumer's state owner: everything here runs on it
     * @param wakeConsumer makes a call waiting on the owner look again
     * @param assignee     the consumer's assignment, which reconciliation changes
     * @param memberIdSeen told of each member id the group gives the consumer, from {@link #onPoll}
     *                     (client telemetry labels its metrics with it)
     */
    public ConsumerGroup(Settings settings, ConnectionPool pool, ClusterMetadata metadata, Metrics kafkaMetrics, LongSupplier clockMs,
                         StateOwner owner, Runnable wakeConsumer, Assignee assignee, Consumer<String> memberIdSeen) {
        this.memberIdSeen = Objects.requireNonNull(memberIdSeen, "memberIdSeen");
        DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
        Coordinator coordinator = new Coordinator(pool, metadata, Coordinator.KeyType.GROUP, settings.groupId(), owner);
        this.groupId = settings.groupId();
        this.clockMs = clockMs;
        this.metrics = new GroupMetrics(kafkaMetrics, Time.SYSTEM);
        this.subscription = new GroupSubscription(metadata, owner, wakeConsumer, clockMs, settings.topicListingIntervalMs(),
                settings.excludeInternalTopics());
        RebalanceCallbacks callbacks = new RebalanceCallbacks(subscription, assignee, owner, metrics, clockMs);
        if (settings.classic().isPresent()) {
            Classic classic = settings.classic().get();
            ClassicMembership membership = new ClassicMembership(groupId, settings.instanceId(), new ClassicMembership.Timeouts(
                    classic.sessionTimeoutMs(), classic.heartbeatIntervalMs(), settings.maxPollIntervalMs()), settings.retryBackoff(), random);
            this.member = new ClassicMember(groupId, settings.instanceId(), settings.rack(), membership, classic.assignors(), coordinator,
                    pool, metadata, callbacks, owner, wakeConsumer, clockMs, metrics);
        } else {
            GroupMembership membership = new GroupMembership(groupId, Uuid.randomUuid().toString(), settings.instanceId(), settings.rack(),
                    settings.remoteAssignor(), settings.maxPollIntervalMs(), settings.maxPollIntervalMs(), settings.retryBackoff(), random);
            GroupHeartbeats heartbeats = new GroupHeartbeats(pool, coordinator, membership, clockMs, wakeConsumer, metrics, owner);
            this.member = new GroupReconciler(membership, heartbeats, subscription, callbacks, clockMs, metrics);
        }
        subscription.onChange(member::subscribe);
        this.offsets = new GroupOffsets(pool, coordinator, member::committer, member::fetcher, settings.offsetsRetryBackoff(), clockMs,
                owner);
    }

    /** The group's id. */
    public String groupId() {
        return groupId;
    }

    // ---------------------------------------------------------------- membership

    /** Subscribes to exactly these topics (not empty); the member joins, or reports the change. */
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
        subscription.subscribe(topics, listener);
    }

    /** Subscribes to the topics matching {@code pattern}, matched here against the cluster's topics. */
    public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
        subscription.subscribe(pattern, listener);
    }

    /**
     * Subscribes to the topics the coordinator matches with {@code pattern} (RE2/J).
     *
     * @throws UnsupportedOperationException under the classic protocol, as {@code KafkaConsumer}'s
     */
    public void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener listener) {
        if (member instanceof ClassicMember) {
            throw new UnsupportedOperationException("subscribe(SubscriptionPattern) is only supported for the consumer group "
                    + "protocol (group.protocol=consumer); this consumer uses the classic one");
        }
        subscription.subscribe(pattern, listener);
    }

    /** Whether the consumer subscribed, and so is (or is joining) a member of the group. */
    public boolean isSubscribed() {
        return subscription.isSubscribed();
    }

    /** Whether the member is in the group with the coordinator's latest assignment reconciled. */
    public boolean hasJoined() {
        return member.hasJoined();
    }

    /** The subscription as {@code KafkaConsumer} reports it. */
    public Set<String> subscription() {
        return subscription.topics();
    }

    /**
     * Does what the membership asks of the consumer's thread before it fetches: raises a fatal
     * error, releases lost partitions, reconciles a new target, running the listener's callbacks.
     */
    public void onPoll() {
        if (!subscription.isSubscribed()) {
            return;
        }
        long nowMs = clockMs.getAsLong();
        subscription.onPoll(nowMs);
        member.onPoll(nowMs);
        String memberId = member.described().memberId();
        if (!memberId.isEmpty() && !memberId.equals(memberIdTold)) {
            memberIdTold = memberId;
            memberIdSeen.accept(memberId);
        }
    }

    /** When {@link #onPoll} next has timed work to do; {@code Long.MAX_VALUE} for never. */
    public long nextTimerMs() {
        return subscription.nextTimerMs();
    }

    /**
     * Leaves the group, revoking (or losing) the partitions first.
     *
     * @param operation  whether the member leaves or keeps its place, as {@code CloseOptions} says
     * @param deadlineMs the caller's deadline (on the consumer's clock), shared by the commit before revoking
     * @return completes once the coordinator answered the leave, or it failed
     */
    public CompletableFuture<Void> leave(LeaveOperation operation, long deadlineMs) {
        if (!subscription.isSubscribed()) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            return member.leave(operation, deadlineMs);
        } finally {
            subscription.unsubscribe();
        }
    }

    /** Whether the member is in a rebalance that refuses its commits: auto-commit waits for its end. */
    public boolean isRebalancing() {
        return subscription.isSubscribed() && member.isRebalancing();
    }

    /**
     * Asks the group to rebalance, as {@code enforceRebalance} does.
     *
     * @return false when the protocol leaves rebalances to the coordinator (the consumer group protocol)
     */
    public boolean enforceRebalance(String reason) {
        return subscription.isSubscribed() && member.enforceRebalance(reason);
    }

    /**
     * The member as {@code KafkaConsumer.groupMetadata()} describes it: no member id and generation -1
     * before the coordinator first answered; then the member id and the last epoch it gave, kept
     * after the member left for an expired poll interval, until the application leaves the group.
     */
    // Kafka deprecates building it anywhere but in a consumer; this is one.
    @SuppressWarnings("removal")
    public ConsumerGroupMetadata metadata() {
        MemberIdentity described = member.described();
        return new ConsumerGroupMetadata(groupId, described.epoch(), described.memberId(), described.instanceId());
    }

    // ---------------------------------------------------------------- offsets

    /**
     * Commits the offsets, as the member's current epoch when in the group; retriable failures are
     * retried until the deadline. Each call is timed into {@code commit-latency}.
     *
     * @see GroupOffsets#commit
     */
    public CompletableFuture<Void> commit(Map<TopicPartition, OffsetAndMetadata> toCommit, long deadlineMs, LongSupplier clockMs) {
        long startMs = clockMs.getAsLong();
        return offsets.commit(toCommit, deadlineMs)
                .whenComplete((ignored, failure) -> metrics.commitAnswered(clockMs.getAsLong() - startMs));
    }

    /**
     * The committed offsets of {@code partitions}; a partition without one is absent.
     *
     * @see GroupOffsets#committed
     */
    public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions, StableOffsets stable,
                                                                              long deadlineMs) {
        return offsets.committed(partitions, stable, deadlineMs);
    }

    /** Records the size of the assignment, for {@code assigned-partitions}. */
    public void assignedPartitions(int count) {
        metrics.assignedPartitions(count);
    }

    /** Stops heartbeats; the caller has left the group first if it meant to. */
    @Override
    public void close() {
        member.close();
    }
}
