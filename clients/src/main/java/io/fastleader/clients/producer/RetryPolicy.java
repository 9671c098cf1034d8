package io.fastleader.clients.producer;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

import io.fastleader.clients.network.ExponentialBackoff;

/**
 * When a batch that failed with a retriable error may be sent again: the KIP-951 rule as a pure
 * function of the clock and the leader epochs involved.
 *
 * <ul>
 *   <li>After a failure the batch backs off exponentially with jitter, from {@code retry.backoff.ms}
 *       to {@code retry.backoff.max.ms}, by its number of attempts at the leader epoch it was last
 *       sent at: a new leader starts the series again, so waits grown against the old one do not
 *       carry over. The wait is drawn once, at the failure, so repeated readiness checks see the
 *       same deadline.</li>
 *   <li>A leader that refuses because it has not yet learned of its own election (its answer names
 *       an older epoch than the batch was sent at: brokers learn of a move at different moments)
 *       is asked again one round trip of the refused attempt later, the wait doubling with each
 *       such refusal up to {@code retry.backoff.ms}: it is catching up, usually within moments,
 *       not failing.</li>
 *   <li>If the partition's leader epoch has advanced past the epoch the batch was last sent at
 *       (learned from a hint or from a Metadata refresh, it does not matter which), the next attempt
 *       may go at once: the new leader has not refused it yet. That attempt is sent at the new
 *       epoch, so a further failure there backs off as usual.</li>
 *   <li>With leader hints disabled ({@code fastleader.leader.hints.enabled=false}) all of this is
 *       off: every retry backs off by its number of attempts, as clients did before KIP-951.</li>
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
     * The end of the backoff after the {@code failures}-th failure in a row of something other than
     * a batch (asking for a producer id).
     */
    public long backoffUntilMs(int failures, long failedAtMs) {
        return failedAtMs + backoff.millis(failures, random.getAsDouble());
    }

    /**
     * The end of a batch's backoff after a failed attempt.
     *
     * @param batch      the batch, its failed attempt counted
     * @param refusal    what the refusing broker said of itself; {@link Refusal#NONE} for other failures
     * @param failedAtMs when the failure was learned
     */
    public long backoffUntilMs(ProducerBatch batch, Refusal refusal, long failedAtMs) {
        if (!skipBackoffOnEpochAdvance) {
            return backoffUntilMs(batch.attempts(), failedAtMs);
        }
        boolean leaderCatchingUp = refusal.namedEpoch() >= 0 && refusal.namedEpoch() < batch.lastSentLeaderEpoch();
        if (!leaderCatchingUp) {
            return backoffUntilMs(batch.attemptsAtLastEpoch(), failedAtMs);
        }
        Duration roundTrip = Duration.ofMillis(Math.max(1, Math.min(refusal.roundTripMs(), backoff.base().toMillis())));
        ExponentialBackoff catchUp = new ExponentialBackoff(roundTrip, backoff.base(), backoff.jitter());
        return failedAtMs + catchUp.millis(batch.attemptsAtLastEpoch(), random.getAsDouble());
    }

    /** Whether the backoff is skipped: the leader epoch advanced since the batch was last sent. */
    public boolean skipsBackoff(int epochAtLastAttempt, int currentLeaderEpoch) {
        return skipBackoffOnEpochAdvance && epochAtLastAttempt >= 0 && currentLeaderEpoch > epochAtLastAttempt;
    }
}
