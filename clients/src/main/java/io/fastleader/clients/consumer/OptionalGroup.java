package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.consumer.group.LeaveOperation;

/**
 * The consumer's group, present with a {@code group.id}: the one answer to whether the consumer
 * is in its group ({@link #isSubscribed}), and the group for what needs a {@code group.id}
 * ({@link #require}). Used on the state owner.
 */
final class OptionalGroup {

    // The consumer's logger: these lines were always the consumer's, and logging is configured by its name.
    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConsumer.class);

    private final Optional<ConsumerGroup> group;
    private final ApplicationCalls calls;

    OptionalGroup(Optional<ConsumerGroup> group, ApplicationCalls calls) {
        this.group = group;
        this.calls = calls;
    }

    /** Whether the consumer subscribed, and so is (or is joining) a member of its group. */
    boolean isSubscribed() {
        return group.isPresent() && group.get().isSubscribed();
    }

    /** Whether the consumer's group is in a rebalance that refuses commits (a classic member joining). */
    boolean isRebalancing() {
        return group.isPresent() && group.get().isRebalancing();
    }

    /** The group, for the calls that need a {@code group.id}. @throws InvalidGroupIdException without one */
    ConsumerGroup require() {
        return group.orElseThrow(() -> new InvalidGroupIdException(
                "To use the group management or offset commit APIs, you must provide a valid group.id in the consumer configuration."));
    }

    void ifPresent(Consumer<ConsumerGroup> action) {
        group.ifPresent(action);
    }

    /** The subscription as {@code KafkaConsumer} reports it: empty without a group. */
    Set<String> subscription() {
        return group.map(joined -> Collections.unmodifiableSet(joined.subscription())).orElse(Set.of());
    }

    /** When the group next has timed work for a poll; {@code Long.MAX_VALUE} for never. */
    long nextTimerMs() {
        return group.isPresent() ? group.get().nextTimerMs() : Long.MAX_VALUE;
    }

    /**
     * Leaves the group as {@code operation} says, waiting for the coordinator's answer until the
     * timeout; a late answer is logged, not raised.
     */
    void leave(LeaveOperation operation, Duration timeout) {
        ConsumerGroup joined = require();
        long deadlineMs = calls.deadline(timeout);
        CompletableFuture<Void> left = joined.leave(operation, deadlineMs);
        try {
            calls.await(left, deadlineMs, () -> "Timeout of " + timeout.toMillis() + "ms expired before leaving group "
                    + joined.groupId());
        } catch (TimeoutException e) {
            LOG.warn("{}; the coordinator will drop the member after its session timeout", e.getMessage());
        }
    }

    /** {@link #leave}, as {@code close} does: a failure is logged, and the consumer closes anyway. */
    void leaveOnClose(LeaveOperation operation, Duration timeout) {
        try {
            leave(operation, timeout);
        } catch (RuntimeException e) {
            LOG.warn("Failed to leave group {} cleanly on close", require().groupId(), e);
        }
    }
}
