package io.fastleader.benchmarks.group;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * How a group's consumption of a topic goes on, from the records its members hand out: when every
 * partition is consumed again after an event (a partition has recovered once some member handed out
 * a record of it produced at or after the event), and the longest wall-clock gap between two
 * records of one partition, whichever members handed them out. Members report each record from
 * their polling threads. Thread-safe.
 */
final class RecoveryWatch {

    private static final long NOT_YET = -1;

    private final long[] recoveredAtMs;
    private final long[] lastConsumedMs;
    private final long[] longestGapMs;
    private long eventMs = Long.MAX_VALUE;

    RecoveryWatch(int partitions) {
        this.recoveredAtMs = new long[partitions];
        this.lastConsumedMs = new long[partitions];
        this.longestGapMs = new long[partitions];
        Arrays.fill(recoveredAtMs, NOT_YET);
        Arrays.fill(lastConsumedMs, NOT_YET);
    }

    /** An event happened at {@code atMs} (wall clock, as records' produce times are): every partition must recover from it. */
    synchronized void eventAt(long atMs) {
        eventMs = atMs;
        Arrays.fill(recoveredAtMs, NOT_YET);
    }

    /** A member handed out a record of {@code partition} produced at {@code producedAtMs}, at {@code nowMs}. */
    synchronized void consumed(int partition, long producedAtMs, long nowMs) {
        if (producedAtMs >= eventMs && recoveredAtMs[partition] == NOT_YET) {
            recoveredAtMs[partition] = nowMs;
        }
        if (lastConsumedMs[partition] != NOT_YET) {
            longestGapMs[partition] = Math.max(longestGapMs[partition], nowMs - lastConsumedMs[partition]);
        }
        lastConsumedMs[partition] = nowMs;
    }

    /** Starts measuring gaps afresh. */
    synchronized void resetGaps() {
        Arrays.fill(longestGapMs, 0);
    }

    /** The longest gap between two records of one partition since {@link #resetGaps}. */
    synchronized long longestGapMs() {
        return Arrays.stream(longestGapMs).max().orElse(0);
    }

    /** Milliseconds from the event until the last partition recovered; empty while one has not. */
    synchronized OptionalLong recoveryMs() {
        long last = 0;
        for (long at : recoveredAtMs) {
            if (at == NOT_YET) {
                return OptionalLong.empty();
            }
            last = Math.max(last, at);
        }
        return OptionalLong.of(Math.max(0, last - eventMs));
    }
}
