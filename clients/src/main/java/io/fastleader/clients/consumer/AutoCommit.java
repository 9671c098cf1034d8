package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code enable.auto.commit}: the positions are committed every {@code auto.commit.interval.ms}
 * while polling, and before partitions go (a new assignment, a revocation, close), as
 * {@code KafkaConsumer} commits them. Runs on the state owner; a failure is logged, never raised.
 */
final class AutoCommit {

    // The consumer's logger: these lines were always the consumer's, and logging is configured by its name.
    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConsumer.class);

    private final ConsumerSettings settings;
    private final SubscriptionState subscriptions;
    private final Commits commits;
    private final LongSupplier clockMs;
    private long nextCommitMs;

    AutoCommit(ConsumerSettings settings, SubscriptionState subscriptions, Commits commits, LongSupplier clockMs) {
        this.settings = settings;
        this.subscriptions = subscriptions;
        this.commits = commits;
        this.clockMs = clockMs;
        this.nextCommitMs = clockMs.getAsLong() + settings.autoCommitIntervalMs();
    }

    /** On each turn of a poll: commits the positions, asynchronously, once the interval has passed. */
    void maybeCommit() {
        long nowMs = clockMs.getAsLong();
        if (settings.autoCommit() && nowMs >= nextCommitMs) {
            nextCommitMs = nowMs + settings.autoCommitIntervalMs();
            Map<TopicPartition, OffsetAndMetadata> offsets = subscriptions.positionsToCommit();
            if (!offsets.isEmpty()) {
                commits.commitAsync(offsets, this::logFailure);
            }
        }
    }

    /** When {@link #maybeCommit} next commits; {@code Long.MAX_VALUE} without auto-commit. */
    long nextCommitMs() {
        return settings.autoCommit() ? nextCommitMs : Long.MAX_VALUE;
    }

    /** Before {@code assign} replaces the assignment: the old one's positions, asynchronously. */
    void beforeAssigning() {
        if (settings.autoCommit() && !subscriptions.isEmpty()) {
            commits.commitAsync(subscriptions.positionsToCommit(), this::logFailure);
        }
    }

    /** Before the group revokes {@code partitions}: their positions, waiting until {@code deadlineMs} at the latest. */
    void beforeRevoking(Set<TopicPartition> partitions, long deadlineMs) {
        if (!settings.autoCommit()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(subscriptions.positionsToCommit());
        offsets.keySet().retainAll(partitions);
        try {
            commits.commitSync(offsets, Duration.ofMillis(Math.max(0, deadlineMs - clockMs.getAsLong())));
        } catch (RuntimeException e) {
            LOG.warn("Failed to commit the offsets of partitions {} before revoking them: {}", partitions, e.toString());
        }
    }

    /** On {@code close} outside a group: every position, within the close's timeout. */
    void onClose(Duration timeout) {
        if (!settings.autoCommit()) {
            return;
        }
        try {
            commits.commitSync(subscriptions.positionsToCommit(), timeout);
        } catch (RuntimeException e) {
            LOG.warn("Failed to commit offsets on close", e);
        }
    }

    private void logFailure(Map<TopicPartition, OffsetAndMetadata> offsets, Exception failure) {
        if (failure != null) {
            LOG.warn("Asynchronous auto-commit of offsets {} failed: {}", offsets, failure.getMessage());
        }
    }
}
