package io.fastleader.it.soak;

import java.time.Duration;

/**
 * How long a soak runs and from which seed: {@code -Dfastleader.soak.minutes} (2 by default, what
 * {@code mvn verify} runs) and {@code -Dfastleader.soak.seed} (a fixed seed by default, so CI
 * replays the same schedule of faults).
 */
record SoakSettings(long seed, Duration duration) {

    static final long DEFAULT_SEED = 43;
    static final double DEFAULT_MINUTES = 2;

    static SoakSettings fromSystemProperties() {
        long seed = Long.parseLong(System.getProperty("fastleader.soak.seed", Long.toString(DEFAULT_SEED)));
        double minutes = Double.parseDouble(System.getProperty("fastleader.soak.minutes", Double.toString(DEFAULT_MINUTES)));
        if (minutes <= 0) {
            throw new IllegalArgumentException("fastleader.soak.minutes must be positive, not " + minutes);
        }
        return new SoakSettings(seed, Duration.ofSeconds(Math.round(minutes * 60)));
    }

    /** The command that runs this soak again. */
    String replayCommand() {
        return "bin/chaos-soak --seed " + seed + " --minutes " + duration.toSeconds() / 60.0;
    }
}
