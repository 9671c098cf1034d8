package io.fastleader.clients.consumer.group;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;

/**
 * A consumer's {@code group.id}: the one type the consumer talks to for everything group, whether
 * it joins the group ({@code subscribe}, under the consumer group protocol) or only commits and
 * reads offsets for it (partitions it assigned itself). Membership, reconciliation, heartbeats,
 * the coordinator and the group's offsets live behind it, in this package.
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
     */
    public record Settings(String groupId, Optional<String> instanceId, Optional<String> rack, Optional<String> remoteAssignor,
                           int maxPollIntervalMs, ExponentialBackoff retryBackoff, EpochBackoff offsetsRetryBackoff,
                           long topicListingIntervalMs) {
        public Settings {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(offsetsRetryBackoff, "offsetsRetryBackoff");
        }
    }

    private final String groupId;
    private final GroupMembership membership;
    private final GroupMetrics metrics;
    private final GroupOffsets offsets;
    private final GroupHeartbeats heartbeats;
    private final GroupReconciler reconciler;

    /**
     * @param owner        the consumer's state owner: everything here runs on it
     * @param wakeConsumer makes a call waiting on the owner look again
     * @param assignee     the consumer's assignment, which reconciliation changes
     */
    public ConsumerGroup(Settings settings, ConnectionPool pool, ClusterMetadata metadata, Metrics kafkaMetrics, LongSupplier clockMs,
                         StateOwner owner, Runnable wakeConsumer, Assignee assignee) {
        DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
        GroupCoordinator coordinator = new GroupCoordinator(pool, metadata, settings.groupId(), owner);
        this.groupId = settings.groupId();
        this.metrics = new GroupMetrics(kafkaMetrics, Time.SYSTEM);
        this.membership = new GroupMembership(groupId, Uuid.randomUuid().toString(), settings.instanceId(), settings.rack(),
                settings.remoteAssignor(), settings.maxPollIntervalMs(), settings.maxPollIntervalMs(), settings.retryBackoff(), random);
        this.offsets = new GroupOffsets(pool, coordinator, membership::identity, settings.offsetsRetryBackoff(), clockMs, owner);
        this.heartbeats = new GroupHeartbeats(pool, coordinator, membership, clockMs, wakeConsumer, metrics, owner);
        this.reconciler = new GroupReconciler(membership, heartbeats, metadata, owner, wakeConsumer, clockMs,
                settings.topicListingIntervalMs(), assignee, metrics);
    }

    /** The group's id. */
    public String groupId() {
        return groupId;
    }

    // ---------------------------------------------------------------- membership

    /** Subscribes to exactly these topics (not empty); the member joins, or reports the change. */
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
        reconciler.subscribe(topics, listener);
    }

    /** Subscribes to the topics matching {@code pattern}, matched here against the cluster's topics. */
    public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
        reconciler.subscribe(pattern, listener);
    }

    /** Subscribes to the topics the coordinator matches with {@code pattern} (RE2/J). */
    public void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener listener) {
        reconciler.subscribe(pattern, listener);
    }

    /** Whether the consumer subscribed, and so is (or is joining) a member of the group. */
    public boolean isSubscribed() {
        return reconciler.isSubscribed();
    }

    /** Whether the member is in the group with the coordinator's latest assignment reconciled. */
    public boolean hasJoined() {
        return reconciler.hasJoined();
    }

    /** The subscription as {@code KafkaConsumer} reports it. */
    public Set<String> subscription() {
        return reconciler.subscription();
    }

    /**
     * Does what the membership asks of the consumer's thread before it fetches: raises a fatal
     * error, releases lost partitions, reconciles a new target, running the listener's callbacks.
     */
    public void onPoll() {
        reconciler.onPoll();
    }

    /** When {@link #onPoll} next has timed work to do; {@code Long.MAX_VALUE} for never. */
    public long nextTimerMs() {
        return reconciler.nextTimerMs();
    }

    /**
     * Leaves the group, revoking (or losing) the partitions first.
     *
     * @param staticRejoin a static member leaves with epoch -2 and keeps its partitions for its session
     * @param deadlineMs   the caller's deadline (on the consumer's clock), shared by the commit before revoking
     * @return completes once the coordinator answered the leave, or it failed
     */
    public CompletableFuture<Void> leave(boolean staticRejoin, long deadlineMs) {
        return reconciler.leave(staticRejoin, deadlineMs);
    }

    /**
     * The member as {@code KafkaConsumer.groupMetadata()} describes it: no member id and generation -1
     * before the coordinator first answered; then the member id and the last epoch it gave, kept
     * after the member left for an expired poll interval, until the application leaves the group.
     */
    // Kafka deprecates building it anywhere but in a consumer; this is one.
    @SuppressWarnings("removal")
    public ConsumerGroupMetadata metadata() {
        MemberIdentity member = membership.described();
        return new ConsumerGroupMetadata(groupId, member.epoch(), member.memberId(), member.instanceId());
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
    public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions, boolean requireStable,
                                                                              long deadlineMs) {
        return offsets.committed(partitions, requireStable, deadlineMs);
    }

    /** Records the size of the assignment, for {@code assigned-partitions}. */
    public void assignedPartitions(int count) {
        metrics.assignedPartitions(count);
    }

    /** Stops heartbeats; the caller has left the group first if it meant to. */
    @Override
    public void close() {
        heartbeats.close();
    }
}
