package io.fastleader.clients.metadata;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

import io.fastleader.clients.network.ExponentialBackoff;

/**
 * When something a partition's leader refused may be tried again: the KIP-951 retry rule, one for
 * the producer's batches, the consumer's fetched partitions and its offset lookups, as a pure
 * function of the clock and the leader epochs involved.
 *
 * <p>Each refused thing keeps the {@link State} this policy gives it at the refusal. Whether it may
 * go is asked when readiness is checked, against the leader epoch the cache holds then
 * ({@link State#isOver}), as Kafka's {@code RecordAccumulator} asks its {@code ProducerBatch}: no
 * listener has to end a backoff, and a hint or a Metadata refresh ends it alike.
 *
 * <ul>
 *   <li>After a refusal the thing backs off exponentially with jitter, from {@code retry.backoff.ms}
 *       to {@code retry.backoff.max.ms}, by its number of refusals at the leader epoch it was last
 *       sent at: a new leader starts the series again, so waits grown against the old one do not
 *       carry over. The wait is drawn once, at the refusal, so repeated checks see one deadline.</li>
 *   <li>A leader that refuses because it has not yet learned of its own election (its answer names
 *       an older epoch than the one the request was sent at: brokers learn of a move at different
 *       moments) is asked again one round trip of the refused attempt later, the wait doubling with
 *       each such refusal up to {@code retry.backoff.ms}: it is catching up, not failing.</li>
 *   <li>Once the partition's leader epoch has advanced past the epoch the thing was refused at, it
 *       may go at once: the new leader has not refused it yet. That attempt is sent at the new
 *       epoch, so a further refusal there backs off as usual.</li>
 *   <li>With leader hints disabled ({@code fastleader.leader.hints.enabled=false}) none of this
 *       applies, in either client: every retry backs off by its number of refusals in a row,
 *       whatever the epochs, as clients did before KIP-951.</li>
 * </ul>
 */
public final class EpochBackoff {

    private final ExponentialBackoff backoff;
    private final DoubleSupplier random;
    private final boolean followsLeaderEpochs;

    /**
     * @param backoff             {@code retry.backoff.ms} .. {@code retry.backoff.max.ms} with jitter
     * @param random              uniform in [0, 1), spreads each wait
     * @param followsLeaderEpochs {@code fastleader.leader.hints.enabled}
     */
    public EpochBackoff(ExponentialBackoff backoff, DoubleSupplier random, boolean followsLeaderEpochs) {
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.random = Objects.requireNonNull(random, "random");
        this.followsLeaderEpochs = followsLeaderEpochs;
    }

    /** The policy for a client's metadata settings: {@code retry.backoff.ms}, {@code retry.backoff.max.ms} and hints. */
    public static EpochBackoff of(MetadataConfig config) {
        return new EpochBackoff(config.refreshBackoff(), () -> ThreadLocalRandom.current().nextDouble(),
                config.leaderHintsEnabled());
    }

    /**
     * Where a thing stands after its refusals.
     *
     * @param failures         refusals in a row
     * @param failuresAtEpoch  how many of them came at {@code refusedAtEpoch}
     * @param refusedAtEpoch   the leader epoch the last refused attempt was sent at, -1 if unknown
     * @param untilMs          when the backoff ends without an epoch advance
     * @param endsOnNewerEpoch whether a leader epoch newer than {@code refusedAtEpoch} ends it at once
     */
    public record State(int failures, int failuresAtEpoch, int refusedAtEpoch, long untilMs, boolean endsOnNewerEpoch) {

        /** Never refused, or answered since: nothing to wait for. */
        public static final State NONE = new State(0, 0, -1, Long.MIN_VALUE, false);

        /**
         * Whether the backoff is over: its time has passed, or the partition's leader epoch, as
         * the client knows it now, advanced past the one the refusal came at.
         */
        public boolean isOver(int currentLeaderEpoch, long nowMs) {
            return nowMs >= untilMs || endsEarly(currentLeaderEpoch);
        }

        /** Whether the backoff is cut short: not yet over by time, but over by a newer epoch. */
        public boolean isCutShort(int currentLeaderEpoch, long nowMs) {
            return nowMs < untilMs && endsEarly(currentLeaderEpoch);
        }

        /** The same refusals, their wait over: for a thing that goes right behind another one. */
        public State waitOver() {
            return new State(failures, failuresAtEpoch, refusedAtEpoch, Long.MIN_VALUE, endsOnNewerEpoch);
        }

        private boolean endsEarly(int currentLeaderEpoch) {
            return endsOnNewerEpoch && refusedAtEpoch >= 0 && currentLeaderEpoch > refusedAtEpoch;
        }
    }

    /**
     * The state after a refusal.
     *
     * @param previous    the state before it, {@link State#NONE} for a first refusal
     * @param sentAtEpoch the leader epoch the refused attempt was sent at, -1 if unknown
     * @param refusal     what the refusing broker said of itself; {@link Refusal#NONE} for other failures
     * @param nowMs       when the refusal was learned
     */
    public State refused(State previous, int sentAtEpoch, Refusal refusal, long nowMs) {
        int failures = previous.failures() + 1;
        int failuresAtEpoch = previous.failures() > 0 && previous.refusedAtEpoch() == sentAtEpoch
                ? previous.failuresAtEpoch() + 1 : 1;
        return new State(failures, failuresAtEpoch, sentAtEpoch, nowMs + waitMs(failures, failuresAtEpoch, sentAtEpoch, refusal),
                followsLeaderEpochs);
    }

    /**
     * The state of a thing whose leader answered, but from behind the client: a new leader that has
     * not yet caught up with what its predecessor gave out. It sits out {@code retry.backoff.ms},
     * or until the epoch advances; not a failure, so the series does not grow.
     */
    public State leaderBehind(State previous, int answeredAtEpoch, long nowMs) {
        int failuresAtEpoch = previous.refusedAtEpoch() == answeredAtEpoch ? previous.failuresAtEpoch() : 0;
        return new State(previous.failures(), failuresAtEpoch, answeredAtEpoch, nowMs + backoff.millis(1, random.getAsDouble()),
                followsLeaderEpochs);
    }

    /** The end of the backoff after the {@code failures}-th failure in a row of something no leader refused (a producer id). */
    public long untilMs(int failures, long failedAtMs) {
        return failedAtMs + backoff.millis(failures, random.getAsDouble());
    }

    private long waitMs(int failures, int failuresAtEpoch, int sentAtEpoch, Refusal refusal) {
        if (!followsLeaderEpochs) {
            return backoff.millis(failures, random.getAsDouble());
        }
        boolean leaderCatchingUp = refusal.namedEpoch() >= 0 && refusal.namedEpoch() < sentAtEpoch;
        if (!leaderCatchingUp) {
            return backoff.millis(failuresAtEpoch, random.getAsDouble());
        }
        Duration roundTrip = Duration.ofMillis(Math.max(1, Math.min(refusal.roundTripMs(), backoff.base().toMillis())));
        return new ExponentialBackoff(roundTrip, backoff.base(), backoff.jitter()).millis(failuresAtEpoch, random.getAsDouble());
    }
}
