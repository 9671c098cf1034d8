package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's commits and committed-offset reads at its group's coordinator, timed into the
 * consumer's metrics. Entered on the application's thread (or on the state owner, for a call made
 * within another); the work runs on the state owner through {@link ApplicationCalls}, the
 * interceptors' {@code onCommit} and commit callbacks on the application's thread.
 */
final class Commits {

    // The consumer's logger: these lines were always the consumer's, and logging is configured by its name.
    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConsumer.class);

    private final ApplicationCalls calls;
    private final OptionalGroup group;
    private final ConsumerSettings settings;
    private final ConsumerMetrics consumerMetrics;
    private final ConsumerInterceptorChain<?, ?> interceptors;
    private final ConsumerThread stateOwner;
    private final LongSupplier clockMs;

    Commits(ApplicationCalls calls, OptionalGroup group, ConsumerSettings settings, ConsumerMetrics consumerMetrics,
            ConsumerInterceptorChain<?, ?> interceptors, ConsumerThread stateOwner, LongSupplier clockMs) {
        this.calls = calls;
        this.group = group;
        this.settings = settings;
        this.consumerMetrics = consumerMetrics;
        this.interceptors = interceptors;
        this.stateOwner = stateOwner;
        this.clockMs = clockMs;
    }

    /** {@code commitSync(offsets, timeout)}. */
    void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
        calls.runOwned(() -> {
            long startNanos = System.nanoTime();
            long deadlineMs = calls.deadline(timeout);
            try {
                calls.await(commitTimed(copy, deadlineMs), deadlineMs,
                        () -> "Timeout of " + timeout.toMillis() + "ms expired before successfully committing offsets " + copy);
            } finally {
                consumerMetrics.commitSyncTook(System.nanoTime() - startNanos);
            }
        });
        interceptors.onCommit(copy);
    }

    /** {@code commitAsync(offsets, callback)}; without a callback, failures are logged. */
    void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        calls.runOwned(() -> {
            Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
            OffsetCommitCallback effective = callback != null ? callback : this::logCommitFailure;
            commitTimed(copy, calls.deadline(settings.defaultApiTimeout()))
                    .whenComplete((ignored, failure) -> stateOwner.onApplicationThreadLater(() -> {
                        if (failure == null) {
                            interceptors.onCommit(copy);
                        }
                        effective.onComplete(copy, failure == null ? null : ApplicationCalls.unwrap(failure));
                    }));
        });
    }

    /** {@code committed(partitions, timeout)}: partitions without a committed offset map to null. */
    Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        return calls.callOwned(() -> {
            long startNanos = System.nanoTime();
            long deadlineMs = calls.deadline(timeout);
            try {
                Map<TopicPartition, OffsetAndMetadata> found = calls.await(
                        group.require().committed(Set.copyOf(partitions), settings.stableOffsets(), deadlineMs),
                        deadlineMs, () -> "Timeout of " + timeout.toMillis() + "ms expired before the last committed offset "
                                + "for partitions " + partitions + " could be determined. Try tuning default.api.timeout.ms larger to "
                                + "relax the threshold.");
                Map<TopicPartition, OffsetAndMetadata> result = new HashMap<>();
                partitions.forEach(partition -> result.put(partition, found.get(partition)));
                return result;
            } finally {
                consumerMetrics.committedTook(System.nanoTime() - startNanos);
            }
        });
    }

    /** Commits at the coordinator, each call timed into {@code commit-latency} as {@code KafkaConsumer} times its commits. */
    private CompletableFuture<Void> commitTimed(Map<TopicPartition, OffsetAndMetadata> offsets, long deadlineMs) {
        return group.require().commit(offsets, deadlineMs, clockMs);
    }

    private void logCommitFailure(Map<TopicPartition, OffsetAndMetadata> offsets, Exception failure) {
        if (failure != null) {
            LOG.error("Offset commit of {} failed", offsets, failure);
        }
    }
}
