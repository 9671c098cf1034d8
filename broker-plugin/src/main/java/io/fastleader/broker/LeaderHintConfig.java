package io.fastleader.broker;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The filter's settings, as the {@code config} of its entry in Kroxylicious's
 * {@code filterDefinitions}. Every setting is optional.
 *
 * @param metadataMaxAgeMs how long a leader the proxy learnt from Metadata counts as fresh
 *                         (default {@value #DEFAULT_METADATA_MAX_AGE_MS} ms); older, and a refused
 *                         response waits for a Metadata refresh before it is hinted
 * @param refreshTimeoutMs how long a refused response waits for that refresh before it goes to
 *                         the client without a hint (default {@value #DEFAULT_REFRESH_TIMEOUT_MS} ms)
 */
public record LeaderHintConfig(@JsonProperty("metadataMaxAgeMs") Long metadataMaxAgeMs,
                               @JsonProperty("refreshTimeoutMs") Long refreshTimeoutMs) {

    /** Default of {@link #metadataMaxAgeMs()}: short, because leaders move in well under a second during a roll. */
    public static final long DEFAULT_METADATA_MAX_AGE_MS = 1000;
    /**
     * Default of {@link #refreshTimeoutMs()}: long enough for a Metadata round trip to a busy
     * broker, far below Kroxylicious's 20 s limit on deferred work, past which it closes the
     * connection.
     */
    public static final long DEFAULT_REFRESH_TIMEOUT_MS = 2000;

    public LeaderHintConfig {
        requirePositive("metadataMaxAgeMs", metadataMaxAgeMs);
        requirePositive("refreshTimeoutMs", refreshTimeoutMs);
    }

    /** Every setting at its default, as when the filter definition has no {@code config}. */
    public static LeaderHintConfig defaults() {
        return new LeaderHintConfig(null, null);
    }

    /** {@link #metadataMaxAgeMs()} with its default applied. */
    public Duration metadataMaxAge() {
        return Duration.ofMillis(metadataMaxAgeMs == null ? DEFAULT_METADATA_MAX_AGE_MS : metadataMaxAgeMs);
    }

    /** {@link #refreshTimeoutMs()} with its default applied. */
    public Duration refreshTimeout() {
        return Duration.ofMillis(refreshTimeoutMs == null ? DEFAULT_REFRESH_TIMEOUT_MS : refreshTimeoutMs);
    }

    private static void requirePositive(String key, Long value) {
        if (value != null && value <= 0) {
            throw new IllegalArgumentException("invalid value " + value + " for " + key + ": must be a positive number of milliseconds");
        }
    }
}
