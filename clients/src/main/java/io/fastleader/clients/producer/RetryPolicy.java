package io.fastleader.clients.producer;

import java.util.Objects;
import java.util.function.DoubleSupplier;

import io.fastleader.clients.network.ExponentialBackoff;

/**
 * When a batch that failed with a retriable error may be sent again: the KIP-951 rule as a pure
 * function of the clock and the leader epochs involved.
 *
 * <ul>
 *   <li>After a failure the batch backs off exponentially with jitter, from {@code retry.backoff.ms}
 *       to {@code retry.backoff.max.ms}, by its number of attempts so far. The wait is drawn once,
 *       at the failure, so repeated readiness checks see the same deadline.</li>
 *   <li>If the partition's leader epoch has advanced past the epoch the batch was last sent at
 *       (learned from a hint or from a Metadata refresh, it does not matter which), the next attempt
 *       may go at once: the new leader has not refused it yet. That attempt is sent at the new
 *       epoch, so a further failure there backs off as usual.</li>
 *   <li>With leader hints disabled ({@code fastleader.leader.hints.enabled=false}) the skip is off
 *       too: every retry backs off, as clients did before KIP-951.</li>
 * </ul>
 */
public final class RetryPolicy {

    private final ExponentialBackoff backoff;
    private final DoubleSupplier random;
    private final boolean skipBackoffOnEpochAdvance;

    /**
     * @param backoff                   {@code retry.backoff.ms} .. {@code retry.backoff.max.ms} with jitter
     * @param random                    uniform in [0, 1), spreads each wait
     * @param skipBackoffOnEpochAdvance {@code fastleader.leader.hints.enabled}
     */
    public RetryPolicy(ExponentialBackoff backoff, DoubleSupplier random, boolean skipBackoffOnEpochAdvance) {
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.random = Objects.requireNonNull(random, "random");
        this.skipBackoffOnEpochAdvance = skipBackoffOnEpochAdvance;
    }

    /**
     * The end of the backoff after a failed attempt.
     *
     * @param attempts how many times the batch has been sent, the failed attempt included (at least 1)
     * @param failedAtMs when the failure was learned
     */
    public long backoffUntilMs(int attempts, long failedAtMs) {
        return failedAtMs + backoff.millis(attempts, random.getAsDouble());
    }

    /** Whether the backoff is skipped: the leader epoch advanced since the batch was last sent. */
    public boolean skipsBackoff(int epochAtLastAttempt, int currentLeaderEpoch) {
        return skipBackoffOnEpochAdvance && epochAtLastAttempt >= 0 && currentLeaderEpoch > epochAtLastAttempt;
    }
}
