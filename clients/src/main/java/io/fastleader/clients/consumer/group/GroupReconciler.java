package io.fastleader.clients.consumer.group;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.GroupMembership.Assignment;
import io.fastleader.clients.consumer.group.GroupMembership.Subscription;
import io.fastleader.clients.consumer.group.GroupMembership.Task;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * The consumer's side of group membership, on the consumer's state owner: what the application
 * subscribed to, and the reconciliation the consumer group protocol asks for. A target assignment
 * arrives by topic id and is resolved to names through metadata; partitions leaving are committed
 * (with auto-commit) and revoked first, with the listener's {@code onPartitionsRevoked}; then the
 * new ones are assigned (positioned from their committed offset, else {@code auto.offset.reset})
 * and handed to {@code onPartitionsAssigned}; then the next heartbeat acknowledges the assignment.
 * A fenced member gives its partitions up with {@code onPartitionsLost} and joins again.
 *
 * <p>Listener callbacks (and the commit before revoking) are handed to the thread that calls
 * {@code poll}, as in {@code KafkaConsumer}, and waited for; an exception one throws is logged and
 * raised by {@code poll} once the reconciliation is done.
 */
final class GroupReconciler {

    private static final Logger LOG = LoggerFactory.getLogger(GroupReconciler.class);
    private static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final ConsumerRebalanceListener NO_LISTENER = new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }
    };

    private final GroupMembership membership;
    private final GroupHeartbeats heartbeats;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final StateOwner owner;
    private final Runnable wakeConsumer;
    private final LongSupplier clockMs;
    private final long topicListingIntervalMs;
    private final Assignee assignee;
    private final GroupMetrics metrics;
    /** Topic names by id, from metadata; kept across reconciliations. */
    private final Map<Uuid, String> topicNames = new HashMap<>();

    private ConsumerRebalanceListener listener = NO_LISTENER;
    /** Null when not subscribed. */
    private Set<String> topics;
    private Pattern pattern;
    private SubscriptionPattern brokerPattern;
    private CompletableFuture<MetadataResponseData> listing;
    private long nextListingMs = Long.MAX_VALUE;

    /**
     * @param wakeConsumer            makes a consumer thread waiting in {@code poll} look again
     * @param topicListingIntervalMs how often a {@code Pattern} subscription lists the cluster's topics ({@code metadata.max.age.ms})
     */
    GroupReconciler(GroupMembership membership, GroupHeartbeats heartbeats, ClusterMetadata metadata, StateOwner owner,
                    Runnable wakeConsumer, LongSupplier clockMs, long topicListingIntervalMs, Assignee assignee, GroupMetrics metrics) {
        this.membership = Objects.requireNonNull(membership, "membership");
        this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.cache = metadata.cache();
        this.owner = Objects.requireNonNull(owner, "owner");
        this.wakeConsumer = Objects.requireNonNull(wakeConsumer, "wakeConsumer");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.topicListingIntervalMs = topicListingIntervalMs;
        this.assignee = Objects.requireNonNull(assignee, "assignee");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    // ---------------------------------------------------------------- subscription

    /**
     * Subscribes to exactly these topics (not empty); the member joins, or reports the change.
     *
     * @throws IllegalStateException when subscribed to a {@code Pattern} or a {@code SubscriptionPattern}
     */
    void subscribe(Collection<String> wanted, ConsumerRebalanceListener callback) {
        requireKind(Kind.TOPICS);
        resetSubscription(callback);
        topics = Set.copyOf(wanted);
        metadata.awaitTopics(topics).whenComplete((ignored, error) -> wakeConsumer.run());
        join(Subscription.ofTopics(topics));
    }

    /**
     * Subscribes to the topics matching {@code regex}, matched here against the cluster's topics as they come and go.
     *
     * @throws IllegalStateException when subscribed to topics or a {@code SubscriptionPattern}
     */
    void subscribe(Pattern regex, ConsumerRebalanceListener callback) {
        requireKind(Kind.PATTERN);
        resetSubscription(callback);
        pattern = regex;
        topics = Set.of();
        nextListingMs = clockMs.getAsLong();
        listTopics();
    }

    /**
     * Subscribes to the topics the coordinator matches with {@code regex} (RE2/J).
     *
     * @throws IllegalStateException when subscribed to topics or a {@code Pattern}
     */
    void subscribe(SubscriptionPattern regex, ConsumerRebalanceListener callback) {
        requireKind(Kind.SUBSCRIPTION_PATTERN);
        resetSubscription(callback);
        brokerPattern = regex;
        topics = Set.of();
        join(Subscription.ofRegex(regex.pattern()));
    }

    /** The kinds of subscription, which {@code KafkaConsumer} never lets one replace another without an unsubscribe between. */
    private enum Kind { TOPICS, PATTERN, SUBSCRIPTION_PATTERN }

    private void requireKind(Kind wanted) {
        if (topics == null) {
            return;
        }
        Kind current = pattern != null ? Kind.PATTERN : brokerPattern != null ? Kind.SUBSCRIPTION_PATTERN : Kind.TOPICS;
        if (current != wanted) {
            throw new IllegalStateException(ConsumerGroup.MUTUALLY_EXCLUSIVE);
        }
    }

    private void resetSubscription(ConsumerRebalanceListener callback) {
        listener = callback == null ? NO_LISTENER : callback;
        topics = null;
        pattern = null;
        brokerPattern = null;
        nextListingMs = Long.MAX_VALUE;
    }

    private void join(Subscription subscription) {
        membership.subscribe(subscription);
        heartbeats.poke();
    }

    boolean isSubscribed() {
        return topics != null;
    }

    /** Whether the member is in the group with the coordinator's latest assignment reconciled. */
    boolean hasJoined() {
        return membership.isReconciled();
    }

    /**
     * The subscription as {@code KafkaConsumer} reports it: the topics, or those a {@code Pattern}
     * matched last; none for a {@code SubscriptionPattern}, whose topics only the coordinator matches.
     */
    Set<String> subscription() {
        return topics == null ? Set.of() : topics;
    }

    // ---------------------------------------------------------------- poll

    /**
     * Does what the membership asks of the consumer's thread: raises a fatal error, releases lost
     * partitions, reconciles a new target. Called by {@code poll} before it fetches.
     *
     * @throws KafkaException the membership's fatal error, or a listener's exception (wrapped unless a {@link KafkaException})
     */
    void onPoll() {
        if (topics == null) {
            return;
        }
        long nowMs = clockMs.getAsLong();
        if (membership.polled(nowMs)) {
            heartbeats.poke();
        }
        if (pattern != null && nowMs >= nextListingMs) {
            listTopics();
        }
        Optional<Task> task = membership.task();
        if (task.isEmpty()) {
            return;
        }
        if (task.get() instanceof Task.Fail fail) {
            throw fail.error();
        }
        RuntimeException callbackError = task.get() instanceof Task.Reconcile reconcile ? reconcile(reconcile.target()) : releaseLost();
        if (callbackError != null) {
            throw callbackError instanceof KafkaException kafka ? kafka
                    : new KafkaException("User rebalance callback throws an error", callbackError);
        }
    }

    /** When {@link #onPoll} next has timed work: listing the topics for a {@code Pattern}. */
    long nextTimerMs() {
        return nextListingMs;
    }

    private RuntimeException releaseLost() {
        Set<TopicPartition> lost = assignee.assignment();
        RuntimeException error = null;
        if (!lost.isEmpty()) {
            LOG.info("Giving up partitions {} as lost", lost);
            error = callback("onPartitionsLost", metrics::lostCallback, () -> listener.onPartitionsLost(lost));
            assignee.assign(Set.of());
        }
        metrics.rebalanceFailed();
        membership.released(clockMs.getAsLong());
        heartbeats.poke();
        return error;
    }

    private RuntimeException reconcile(Assignment target) {
        Set<TopicPartition> wanted = resolve(target);
        if (wanted == null) {
            return null;
        }
        Set<TopicPartition> current = assignee.assignment();
        Set<TopicPartition> revoked = new TreeSet<>(PARTITION_ORDER);
        revoked.addAll(current);
        revoked.removeAll(wanted);
        Set<TopicPartition> added = new TreeSet<>(PARTITION_ORDER);
        added.addAll(wanted);
        added.removeAll(current);
        LOG.info("Reconciling the assignment of epoch {}: revoking {}, adding {}", target.epoch(), revoked, added);
        RuntimeException error = null;
        if (!revoked.isEmpty()) {
            owner.onApplicationThread(() -> assignee.commitBeforeRevoking(revoked));
            error = callback("onPartitionsRevoked", metrics::revokedCallback, () -> listener.onPartitionsRevoked(revoked));
        }
        assignee.assign(wanted);
        // Called even when nothing was added, as KafkaConsumer does after every rebalance.
        RuntimeException assignError = callback("onPartitionsAssigned", metrics::assignedCallback,
                () -> listener.onPartitionsAssigned(added));
        membership.reconciled(target);
        metrics.rebalanced(clockMs.getAsLong() - membership.targetSinceMs());
        heartbeats.poke();
        return error != null ? error : assignError;
    }

    /** The target's partitions by name; null while a topic id is not known yet (a listing is under way, and wakes the consumer). */
    private Set<TopicPartition> resolve(Assignment target) {
        for (String topic : topics) {
            cache.topicId(topic).ifPresent(id -> topicNames.put(id, topic));
        }
        Set<TopicPartition> partitions = new HashSet<>();
        for (Map.Entry<Uuid, SortedSet<Integer>> topic : target.partitions().entrySet()) {
            String name = topicNames.get(topic.getKey());
            if (name == null) {
                listTopics();
                return null;
            }
            topic.getValue().forEach(index -> partitions.add(new TopicPartition(name, index)));
        }
        return partitions;
    }

    /** Lists the cluster's topics once at a time: names for new topic ids, and a {@code Pattern}'s matches. */
    private void listTopics() {
        if (listing != null) {
            return;
        }
        CompletableFuture<MetadataResponseData> asked = metadata.describeAllTopics();
        listing = asked;
        asked.whenCompleteAsync((response, error) -> listed(asked, response, error), owner);
    }

    private void listed(CompletableFuture<MetadataResponseData> asked, MetadataResponseData response, Throwable error) {
        if (listing != asked) {
            return;
        }
        listing = null;
        if (pattern != null) {
            nextListingMs = clockMs.getAsLong() + topicListingIntervalMs;
        }
        if (error != null) {
            LOG.warn("Listing the cluster's topics for group subscription failed: {}", error.toString());
            return;
        }
        Set<String> matched = new TreeSet<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.name() == null) {
                continue;
            }
            if (!Uuid.ZERO_UUID.equals(topic.topicId())) {
                topicNames.put(topic.topicId(), topic.name());
            }
            if (pattern != null && !topic.isInternal() && pattern.matcher(topic.name()).matches()) {
                matched.add(topic.name());
            }
        }
        if (pattern != null && !matched.equals(topics)) {
            LOG.info("Pattern {} matches topics {}", pattern, matched);
            topics = Set.copyOf(matched);
            if (!matched.isEmpty()) {
                metadata.awaitTopics(matched);
            }
            join(Subscription.ofTopics(matched));
        }
    }

    // ---------------------------------------------------------------- leaving

    /**
     * Leaves the group: commits (with auto-commit) and revokes the partitions (or gives them up as
     * lost if the member was fenced), then tells the coordinator.
     *
     * @param staticRejoin a static member leaves with epoch -2 and keeps its partitions for its session
     * @param deadlineMs   the caller's deadline, which the commit before revoking shares
     * @return completes once the coordinator answered the leave, or it failed
     * @throws KafkaException a listener's exception, after the member left
     */
    CompletableFuture<Void> leave(boolean staticRejoin, long deadlineMs) {
        if (topics == null) {
            return CompletableFuture.completedFuture(null);
        }
        Set<TopicPartition> owned = assignee.assignment();
        RuntimeException error = null;
        if (!owned.isEmpty()) {
            GroupMembership.State state = membership.state();
            if (state == GroupMembership.State.FENCED || state == GroupMembership.State.STALE) {
                error = callback("onPartitionsLost", metrics::lostCallback, () -> listener.onPartitionsLost(owned));
            } else {
                owner.onApplicationThread(() -> assignee.commitBeforeRevoking(owned, deadlineMs));
                error = callback("onPartitionsRevoked", metrics::revokedCallback, () -> listener.onPartitionsRevoked(owned));
            }
            assignee.assign(Set.of());
        }
        CompletableFuture<Void> left = membership.leave(staticRejoin);
        heartbeats.poke();
        if (listing != null) {
            listing.cancel(false);
            listing = null;
        }
        resetSubscription(null);
        if (error != null) {
            throw error instanceof KafkaException kafka ? kafka : new KafkaException("User rebalance callback throws an error", error);
        }
        return left;
    }

    /**
     * Runs a listener callback, timed into {@code latency} when the application gave a listener; its
     * exception is logged and returned, except a wakeup or interrupt, which go on up.
     */
    private RuntimeException callback(String name, LongConsumer latency, Runnable call) {
        long startMs = clockMs.getAsLong();
        try {
            owner.onApplicationThread(call);
            return null;
        } catch (WakeupException | InterruptException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.error("User provided listener failed on invocation of {}", name, e);
            return e;
        } finally {
            if (listener != NO_LISTENER) {
                latency.accept(clockMs.getAsLong() - startMs);
            }
        }
    }
}
