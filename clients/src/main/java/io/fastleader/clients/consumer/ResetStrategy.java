package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Locale;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * {@code auto.offset.reset}: where a partition without a valid position starts. {@code earliest},
 * {@code latest}, {@code by_duration:<ISO-8601 duration>} (the first record no older than the
 * duration) or {@code none} (the application must seek; the consumer raises an
 * {@link org.apache.kafka.clients.consumer.InvalidOffsetException} instead).
 *
 * @param kind     which rule
 * @param duration the look-back of {@link Kind#BY_DURATION}, zero otherwise
 */
record ResetStrategy(Kind kind, Duration duration) {

    enum Kind { EARLIEST, LATEST, BY_DURATION, NONE }

    static final ResetStrategy EARLIEST = new ResetStrategy(Kind.EARLIEST, Duration.ZERO);
    static final ResetStrategy LATEST = new ResetStrategy(Kind.LATEST, Duration.ZERO);
    static final ResetStrategy NONE = new ResetStrategy(Kind.NONE, Duration.ZERO);

    private static final String BY_DURATION_PREFIX = "by_duration:";

    /**
     * Parses a value of {@code auto.offset.reset}.
     *
     * @throws ConfigException naming the key and the value
     */
    static ResetStrategy parse(String value) {
        String lower = value.trim().toLowerCase(Locale.ROOT);
        switch (lower) {
            case "earliest":
                return EARLIEST;
            case "latest":
                return LATEST;
            case "none":
                return NONE;
            default:
                break;
        }
        if (lower.startsWith(BY_DURATION_PREFIX)) {
            try {
                Duration duration = Duration.parse(value.trim().substring(BY_DURATION_PREFIX.length()));
                if (!duration.isNegative()) {
                    return new ResetStrategy(Kind.BY_DURATION, duration);
                }
            } catch (RuntimeException notADuration) {
                // reported below with the allowed values
            }
        }
        throw new ConfigException(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, value,
                "must be earliest, latest, none or by_duration:<non-negative ISO-8601 duration>");
    }

    /** Whether the consumer may reset positions by itself. */
    boolean resets() {
        return kind != Kind.NONE;
    }

    /** The ListOffsets target timestamp that finds the reset offset at {@code nowMs}. */
    long targetTimestamp(long wallClockMs) {
        return switch (kind) {
            case EARLIEST -> ListOffsetsRequest.EARLIEST_TIMESTAMP;
            case LATEST -> ListOffsetsRequest.LATEST_TIMESTAMP;
            case BY_DURATION -> wallClockMs - duration.toMillis();
            case NONE -> throw new IllegalStateException("auto.offset.reset=none never resets a position");
        };
    }
}
