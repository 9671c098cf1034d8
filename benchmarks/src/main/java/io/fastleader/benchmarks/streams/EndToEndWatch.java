package io.fastleader.benchmarks.streams;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.HdrHistogram.Histogram;

/**
 * One application's end-to-end figures, phase by phase: for every count update read from its
 * output, the latency from the send time of the input record it reflects to the moment the
 * benchmark's reader handed the update out, and per output partition the longest wall-clock gap
 * between two updates; beside them, the feed's own latency (send to acknowledgement) for the
 * application's input. Thread-safe: the reader and the feed's callbacks report from their threads.
 *
 * <p>A phase runs from {@link #beginPhase} to {@link #endPhase}. A gap is measured from the phase's
 * start to a partition's first update, between updates, and from its last update to the phase's end,
 * so a partition that stalls across the whole phase shows the whole phase.
 */
final class EndToEndWatch {

    /** An update at most this old is fresh: the application has caught up on its partition. */
    static final long FRESH_MS = 1_000;

    private final int partitions;
    private final long[] lastFreshMs;
    private Phase phase;

    EndToEndWatch(int partitions, long nowMs) {
        this.partitions = partitions;
        this.lastFreshMs = new long[partitions];
        Arrays.fill(lastFreshMs, Long.MIN_VALUE);
        this.phase = new Phase(partitions, nowMs);
    }

    /** Ends the phase under way, unreported, and starts a new one at {@code nowMs}. */
    synchronized void beginPhase(long nowMs) {
        phase = new Phase(partitions, nowMs);
    }

    /**
     * The reader handed out, at {@code nowMs}, an update of output {@code partition} that reflects
     * input sent at {@code inputSentMs} (the output record's timestamp).
     */
    synchronized void counted(int partition, long inputSentMs, long nowMs) {
        long latency = Math.max(0, nowMs - inputSentMs);
        phase.latency.recordValue(latency);
        phase.gapTo(partition, nowMs);
        if (latency <= FRESH_MS) {
            lastFreshMs[partition] = Math.max(lastFreshMs[partition], nowMs);
        }
    }

    /** The feed had an input record of this application acknowledged {@code ackLatencyMs} after sending it. */
    synchronized void fed(long ackLatencyMs) {
        phase.feed.recordValue(Math.max(0, ackLatencyMs));
    }

    /** Whether every output partition has had a {@linkplain #FRESH_MS fresh} update at or after {@code sinceMs}. */
    synchronized boolean freshEverywhereSince(long sinceMs) {
        return Arrays.stream(lastFreshMs).allMatch(at -> at >= sinceMs);
    }

    /** Ends the phase under way at {@code nowMs} and returns its figures; a new phase starts at once. */
    synchronized Figures endPhase(long nowMs) {
        Phase ended = phase;
        for (int partition = 0; partition < partitions; partition++) {
            ended.gapTo(partition, nowMs);
        }
        phase = new Phase(partitions, nowMs);
        Histogram latency = ended.latency;
        Histogram feed = ended.feed;
        return new Figures(nowMs - ended.startMs, latency.getTotalCount(),
                latency.getValueAtPercentile(50), latency.getValueAtPercentile(99), latency.getMaxValue(),
                Arrays.stream(ended.longestGapMs).max().orElse(0), feed.getValueAtPercentile(99), feed.getMaxValue());
    }

    /**
     * A phase's figures, in ms.
     *
     * @param durationMs      how long the phase ran
     * @param updates         count updates read
     * @param p50Ms           median end-to-end latency (input sent to count update read)
     * @param p99Ms           its 99th percentile
     * @param maxMs           its maximum
     * @param longestGapMs    the longest gap between two updates of one output partition
     * @param feedP99Ms       99th percentile of the feed's send-to-acknowledgement latency for this application's input
     * @param feedMaxMs       its maximum
     */
    record Figures(long durationMs, long updates, long p50Ms, long p99Ms, long maxMs, long longestGapMs,
                   long feedP99Ms, long feedMaxMs) {

        Map<String, Object> json() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("durationMs", durationMs);
            json.put("updates", updates);
            json.put("latencyP50Ms", p50Ms);
            json.put("latencyP99Ms", p99Ms);
            json.put("latencyMaxMs", maxMs);
            json.put("longestGapMs", longestGapMs);
            json.put("feedAckP99Ms", feedP99Ms);
            json.put("feedAckMaxMs", feedMaxMs);
            return json;
        }
    }

    private static final class Phase {
        final long startMs;
        final Histogram latency = new Histogram(3);
        final Histogram feed = new Histogram(3);
        final long[] lastUpdateMs;
        final long[] longestGapMs;

        Phase(int partitions, long startMs) {
            this.startMs = startMs;
            this.lastUpdateMs = new long[partitions];
            this.longestGapMs = new long[partitions];
            Arrays.fill(lastUpdateMs, startMs);
        }

        void gapTo(int partition, long nowMs) {
            longestGapMs[partition] = Math.max(longestGapMs[partition], nowMs - lastUpdateMs[partition]);
            lastUpdateMs[partition] = Math.max(lastUpdateMs[partition], nowMs);
        }
    }
}
