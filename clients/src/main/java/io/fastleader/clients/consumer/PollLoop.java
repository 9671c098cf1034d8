package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

import io.fastleader.clients.consumer.group.ConsumerGroup;

/**
 * The loops in which a call waits on the state owner for what it came for: {@code poll} for
 * records (and {@code poll(long)} for its assignment first), {@code position} for a position.
 * A turn of {@code poll} first does the group's and auto-commit's work that is due; every wait
 * runs answers and timers until the deadline or the next timer of the consumer's own. Runs on the
 * state owner.
 */
final class PollLoop<K, V> {

    private final ApplicationCalls calls;
    private final OptionalGroup group;
    private final AutoCommit autoCommit;
    private final SubscriptionState subscriptions;
    private final Fetcher<K, V> fetcher;
    private final PositionResolver positions;
    private final PendingErrors errors;
    private final ConsumerMetrics consumerMetrics;
    private final int maxPollRecords;
    private final LongSupplier clockMs;

    PollLoop(ApplicationCalls calls, OptionalGroup group, AutoCommit autoCommit, SubscriptionState subscriptions,
             Fetcher<K, V> fetcher, PositionResolver positions, PollThread thread) {
        this.calls = calls;
        this.group = group;
        this.autoCommit = autoCommit;
        this.subscriptions = subscriptions;
        this.fetcher = fetcher;
        this.positions = positions;
        this.errors = thread.errors();
        this.consumerMetrics = thread.metrics();
        this.maxPollRecords = thread.settings().maxPollRecords();
        this.clockMs = thread.clockMs();
    }

    /**
     * {@code poll}: the records buffered, or those that come within {@code timeout}. Like
     * {@code KafkaConsumer}'s, it also returns, with no records, once a position moved over batches
     * the application never sees (transaction markers, aborted transactions), so that the
     * records' {@code nextOffsets()} carry the new position.
     *
     * @param awaitAssignment whether to wait, without limit, for the assignment and committed offsets
     *                        first ({@code poll(long)})
     * @return empty if the timeout passed with neither
     */
    Optional<ConsumerRecords<K, V>> poll(Duration timeout, boolean awaitAssignment) {
        consumerMetrics.pollStarted();
        try {
            if (subscriptions.isEmpty() && !group.isSubscribed()) {
                throw new IllegalStateException("Consumer is not subscribed to any topics or assigned any partitions");
            }
            long deadlineMs = calls.deadline(timeout);
            calls.applyPending(0);
            if (awaitAssignment) {
                awaitAssignment();
            }
            while (true) {
                startPollTurn();
                Optional<ConsumerRecords<K, V>> records = fetcher.collect(maxPollRecords);
                // Sent before returning, so brokers gather the next records while the application works.
                fetcher.sendFetches();
                // After the fetches: building them can find positions to validate.
                positions.resolve();
                if (records.isPresent()) {
                    return records;
                }
                if (!awaitNextTurn(deadlineMs)) {
                    return Optional.empty();
                }
            }
        } finally {
            consumerMetrics.pollEnded();
        }
    }

    /**
     * {@code position}: looks the partition's position up first when it has none yet.
     *
     * @throws TimeoutException if it cannot be determined within {@code timeout}
     */
    long position(TopicPartition partition, Duration timeout) {
        PartitionState state = subscriptions.assigned(partition);
        long deadlineMs = calls.deadline(timeout);
        while (state.phase() != PartitionState.Phase.FETCHING) {
            errors.throwOldest();
            positions.resolve();
            if (!awaitNextTurn(deadlineMs)) {
                throw new TimeoutException("Timeout of " + timeout.toMillis() + "ms expired before the position for partition "
                        + partition + " could be determined");
            }
        }
        return state.position().offset();
    }

    /**
     * What every turn of a poll does first: reconcile the group, auto-commit when due (once a
     * classic member's join is over, as {@code KafkaConsumer}'s), raise an error found meanwhile.
     */
    private void startPollTurn() {
        group.ifPresent(ConsumerGroup::onPoll);
        if (!group.isRebalancing()) {
            autoCommit.maybeCommit();
        }
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
            boolean joined = !group.isSubscribed() || group.require().hasJoined();
            if (joined && subscriptions.states().stream().noneMatch(state -> state.phase() == PartitionState.Phase.INITIALIZING)) {
                return;
            }
            calls.applyPending(nextTimerMs() - clockMs.getAsLong());
        }
    }

    /** Runs answers and timers until the next timer or {@code deadlineMs}; false, without waiting, once the deadline has passed. */
    private boolean awaitNextTurn(long deadlineMs) {
        long nowMs = clockMs.getAsLong();
        if (nowMs >= deadlineMs) {
            return false;
        }
        calls.applyPending(Math.min(deadlineMs, nextTimerMs()) - nowMs);
        return true;
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
        if (!group.isRebalancing()) {
            // During a classic join the commit waits for its end, which an answer (waking this loop) brings.
            next = Math.min(next, autoCommit.nextCommitMs());
        }
        return Math.min(next, group.nextTimerMs());
    }
}
