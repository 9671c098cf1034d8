package io.fastleader.clients.network;

import java.time.Duration;

/**
 * Kafka's exponential backoff: the base wait doubles with each earlier failure up to a maximum, then
 * is spread by a random factor so that clients which failed together do not retry together. A
 * maximum below the base leaves every wait at the base, as Kafka does.
 *
 * @param base   the wait after the first failure ({@code reconnect.backoff.ms}, {@code retry.backoff.ms})
 * @param max    the cap ({@code reconnect.backoff.max.ms}, {@code retry.backoff.max.ms})
 * @param jitter the spread: each wait is multiplied by a factor in [1 - jitter, 1 + jitter)
 */
public record ExponentialBackoff(Duration base, Duration max, double jitter) {

    /** Kafka's spread for both reconnect and retry backoff. */
    public static final double KAFKA_JITTER = 0.2;

    public ExponentialBackoff {
        if (base.isNegative() || max.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative: base " + base + ", max " + max);
        }
        if (jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("jitter must be in [0, 1), not " + jitter);
        }
    }

    /**
     * The wait in milliseconds after {@code failures} consecutive failures.
     *
     * @param failures at least 1
     * @param random   uniform in [0, 1), from the caller's source so tests can fix it
     */
    public long millis(int failures, double random) {
        long baseMs = base.toMillis();
        long maxMs = Math.max(baseMs, max.toMillis());
        double term = Math.min(baseMs * Math.pow(2, Math.max(0, failures - 1)), maxMs);
        return (long) (term * (1 + jitter * (2 * random - 1)));
    }
}
