package io.fastleader.clients.consumer.group;

import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.GroupMembership.Assignment;
import io.fastleader.clients.consumer.group.GroupMembership.Subscription;
import io.fastleader.clients.consumer.group.GroupMembership.Task;

/**
 * The consumer's side of group membership under the consumer group protocol (KIP-848), on the
 * consumer's state owner: the reconciliation the protocol asks for. A target assignment arrives by
 * topic id and is resolved to names through metadata; partitions leaving are committed (with
 * auto-commit) and revoked first, with the listener's {@code onPartitionsRevoked}; then the new
 * ones are assigned (positioned from their committed offset, else {@code auto.offset.reset}) and
 * handed to {@code onPartitionsAssigned}; then the next heartbeat acknowledges the assignment.
 * A fenced member gives its partitions up with {@code onPartitionsLost} and joins again.
 *
 * <p>Listener callbacks (and the commit before revoking) are handed to the thread that calls
 * {@code poll}, as in {@code KafkaConsumer}, and waited for; an exception one throws is logged and
 * raised by {@code poll} once the reconciliation is done.
 */
final class GroupReconciler implements GroupMember {

    private static final Logger LOG = LoggerFactory.getLogger(GroupReconciler.class);
    private static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final GroupMembership membership;
    private final GroupHeartbeats heartbeats;
    private final GroupSubscription subscription;
    private final RebalanceCallbacks callbacks;
    private final LongSupplier clockMs;
    private final GroupMetrics metrics;

    GroupReconciler(GroupMembership membership, GroupHeartbeats heartbeats, GroupSubscription subscription,
                    RebalanceCallbacks callbacks, LongSupplier clockMs, GroupMetrics metrics) {
        this.membership = Objects.requireNonNull(membership, "membership");
        this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
        this.subscription = Objects.requireNonNull(subscription, "subscription");
        this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public void subscribe(Subscription wanted) {
        membership.subscribe(wanted);
        heartbeats.poke();
    }

    @Override
    public boolean hasJoined() {
        return membership.isReconciled();
    }

    /**
     * Does what the membership asks of the consumer's thread: raises a fatal error, releases lost
     * partitions, reconciles a new target.
     *
     * @throws KafkaException the membership's fatal error, or a listener's exception (wrapped unless a {@link KafkaException})
     */
    @Override
    public void onPoll(long nowMs) {
        if (membership.polled(nowMs)) {
            heartbeats.poke();
        }
        Optional<Task> task = membership.task();
        if (task.isEmpty()) {
            return;
        }
        if (task.get() instanceof Task.Fail fail) {
            throw fail.error();
        }
        if (task.get() instanceof Task.Reconcile reconcile) {
            reconcile(reconcile.target());
        } else {
            releaseLost();
        }
    }

    private void releaseLost() {
        RuntimeException error = callbacks.loseAll();
        metrics.rebalanceFailed();
        membership.released(clockMs.getAsLong());
        heartbeats.poke();
        RebalanceCallbacks.raise(error);
    }

    private void reconcile(Assignment target) {
        Set<TopicPartition> wanted = subscription.named(target.partitions());
        if (wanted == null) {
            return;
        }
        Set<TopicPartition> current = callbacks.owned();
        Set<TopicPartition> revoked = new TreeSet<>(PARTITION_ORDER);
        revoked.addAll(current);
        revoked.removeAll(wanted);
        Set<TopicPartition> added = new TreeSet<>(PARTITION_ORDER);
        added.addAll(wanted);
        added.removeAll(current);
        LOG.info("Reconciling the assignment of epoch {}: revoking {}, adding {}", target.epoch(), revoked, added);
        RuntimeException revokeError = callbacks.revoke(revoked, Long.MAX_VALUE);
        RuntimeException assignError = callbacks.assign(wanted, added);
        membership.reconciled(target);
        metrics.rebalanced(clockMs.getAsLong() - membership.targetSinceMs());
        heartbeats.poke();
        RebalanceCallbacks.raise(revokeError, assignError);
    }

    /**
     * Leaves the group: commits (with auto-commit) and revokes the partitions (or gives them up as
     * lost if the member was fenced), then tells the coordinator.
     *
     * @throws KafkaException a listener's exception, after the member left
     */
    @Override
    public CompletableFuture<Void> leave(LeaveOperation operation, long deadlineMs) {
        GroupMembership.State state = membership.state();
        RuntimeException error = state == GroupMembership.State.FENCED || state == GroupMembership.State.STALE
                ? callbacks.loseAll()
                : callbacks.revoke(callbacks.owned(), deadlineMs);
        // A static member keeps its place (epoch -2) unless it leaves for good; a dynamic one always leaves.
        CompletableFuture<Void> left = membership.leave(operation != LeaveOperation.LEAVE_GROUP);
        heartbeats.poke();
        RebalanceCallbacks.raise(error);
        return left;
    }

    @Override
    public MemberIdentity described() {
        return membership.described();
    }

    @Override
    public MemberIdentity committer() {
        return membership.identity();
    }

    @Override
    public MemberIdentity fetcher() {
        return membership.identity();
    }

    /** Under the consumer group protocol a member commits at its epoch throughout a reconciliation. */
    @Override
    public boolean isRebalancing() {
        return false;
    }

    /** Under the consumer group protocol the coordinator alone starts rebalances. */
    @Override
    public boolean enforceRebalance(String reason) {
        return false;
    }

    @Override
    public void close() {
        heartbeats.close();
    }
}
