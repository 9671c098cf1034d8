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
 *       to {@code retry.backoff.max.ms}, by its number of attempts at the leader epoch it was last
 *       sent at: a new leader starts the series again, so waits grown against the old one do not
 *       carry over. The wait is drawn once, at the failure, so repeated readiness checks see the
 *       same deadline.</li>
 *   <li>A leader that refuses because it has not yet learned of its own election (its answer names
 *       an older epoch than the batch was sent at: brokers learn of a move at different moments)
 *       is asked again after {@code retry.backoff.ms} each time, without growing the wait: it is
 *       catching up, not failing.</li>
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
     * @param batch           the batch, its failed attempt counted
     * @param refusingEpoch   the leader epoch the refusing broker named in its answer ({@code CurrentLeader}),
     *                        -1 when it named none or the attempt failed otherwise
     * @param failedAtMs      when the failure was learned
     */
    public long backoffUntilMs(ProducerBatch batch, int refusingEpoch, long failedAtMs) {
        return backoffUntilMs(backoffStep(batch, refusingEpoch), failedAtMs);
    }

    /** Which wait of the exponential series the failed attempt earns: 1 is {@code retry.backoff.ms}. */
    private int backoffStep(ProducerBatch batch, int refusingEpoch) {
        if (!skipBackoffOnEpochAdvance) {
            return batch.attempts();
        }
        boolean leaderCatchingUp = refusingEpoch >= 0 && refusingEpoch < batch.lastSentLeaderEpoch();
        return leaderCatchingUp ? 1 : batch.attemptsAtLastEpoch();
    }

    /** Whether the backoff is skipped: the leader epoch advanced since the batch was last sent. */
    public boolean skipsBackoff(int epochAtLastAttempt, int currentLeaderEpoch) {
        return skipBackoffOnEpochAdvance && epochAtLastAttempt >= 0 && currentLeaderEpoch > epochAtLastAttempt;
    }
}
