package io.fastleader.clients.consumer.group;

import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a rebalance changes the consumer's assignment, whichever protocol the member speaks:
 * partitions revoked (committed first, with auto-commit), lost, or assigned, each with the
 * listener's callback run on the thread that called {@code poll}, as in {@code KafkaConsumer}, and
 * timed into the group's metrics. A callback's exception is logged and returned, to be raised by
 * {@code poll} once the rebalance step is done ({@link #raise}).
 */
final class RebalanceCallbacks {

    private static final Logger LOG = LoggerFactory.getLogger(RebalanceCallbacks.class);

    private final GroupSubscription subscription;
    private final Assignee assignee;
    private final StateOwner owner;
    private final GroupMetrics metrics;
    private final LongSupplier clockMs;

    RebalanceCallbacks(GroupSubscription subscription, Assignee assignee, StateOwner owner, GroupMetrics metrics, LongSupplier clockMs) {
        this.subscription = Objects.requireNonNull(subscription, "subscription");
        this.assignee = Objects.requireNonNull(assignee, "assignee");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    }

    /** The partitions assigned now. */
    Set<TopicPartition> owned() {
        return assignee.assignment();
    }

    /**
     * Commits (with auto-commit) and revokes {@code partitions}, calling {@code onPartitionsRevoked},
     * then takes them out of the assignment.
     *
     * @param deadlineMs when the commit before revoking gives up; {@code Long.MAX_VALUE} for the commit's own timeout
     */
    RuntimeException revoke(Set<TopicPartition> partitions, long deadlineMs) {
        if (partitions.isEmpty()) {
            return null;
        }
        owner.onApplicationThread(() -> {
            if (deadlineMs == Long.MAX_VALUE) {
                assignee.commitBeforeRevoking(partitions);
            } else {
                assignee.commitBeforeRevoking(partitions, deadlineMs);
            }
        });
        RuntimeException error = callback("onPartitionsRevoked", metrics::revokedCallback,
                () -> subscription.listener().onPartitionsRevoked(partitions));
        assignee.assign(without(assignee.assignment(), partitions));
        return error;
    }

    /** Gives every owned partition up as lost, calling {@code onPartitionsLost}, and empties the assignment. */
    RuntimeException loseAll() {
        Set<TopicPartition> lost = assignee.assignment();
        if (lost.isEmpty()) {
            return null;
        }
        LOG.info("Giving up partitions {} as lost", lost);
        RuntimeException error = callback("onPartitionsLost", metrics::lostCallback, () -> subscription.listener().onPartitionsLost(lost));
        assignee.assign(Set.of());
        return error;
    }

    /**
     * Makes {@code wanted} the assignment and calls {@code onPartitionsAssigned} with {@code added}:
     * called even when nothing was added, as {@code KafkaConsumer} does after every rebalance.
     */
    RuntimeException assign(Set<TopicPartition> wanted, Set<TopicPartition> added) {
        assignee.assign(wanted);
        return callback("onPartitionsAssigned", metrics::assignedCallback, () -> subscription.listener().onPartitionsAssigned(added));
    }

    /**
     * Runs an application callback on the thread that called {@code poll}, timed into {@code latency}
     * when the application gave a listener; its exception is logged and returned, except a wakeup or
     * interrupt, which go on up.
     */
    RuntimeException callback(String name, LongConsumer latency, Runnable call) {
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
            if (subscription.hasListener()) {
                latency.accept(clockMs.getAsLong() - startMs);
            }
        }
    }

    /** Raises the first of {@code errors} that is not null, as {@code KafkaConsumer} raises a callback's exception. */
    static void raise(RuntimeException... errors) {
        for (RuntimeException error : errors) {
            if (error != null) {
                throw error instanceof KafkaException kafka ? kafka : new KafkaException("User rebalance callback throws an error", error);
            }
        }
    }

    private static Set<TopicPartition> without(Collection<TopicPartition> from, Set<TopicPartition> removed) {
        Set<TopicPartition> rest = new HashSet<>(from);
        rest.removeAll(removed);
        return rest;
    }
}
