package io.fastleader.it.sim;

import java.nio.charset.StandardCharsets;

/**
 * One record as a simulated partition's log holds it: the offset the simulated leader assigned,
 * the leader epoch its batch was written under, and the key and value bytes ({@code null} when
 * absent).
 */
public record LoggedRecord(long offset, int leaderEpoch, byte[] key, byte[] value) {

    /** The key as UTF-8 text, or {@code null}. */
    public String keyString() {
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    /** The value as UTF-8 text, or {@code null}. */
    public String valueString() {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "LoggedRecord[offset=" + offset + ", leaderEpoch=" + leaderEpoch + ", key=" + keyString()
            + ", value=" + valueString() + "]";
    }
}
