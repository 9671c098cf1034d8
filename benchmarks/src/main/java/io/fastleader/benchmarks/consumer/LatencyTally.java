package io.fastleader.benchmarks.consumer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

import io.fastleader.benchmarks.common.Latency;
import org.HdrHistogram.Histogram;

/**
 * One consumer's latencies, record by record, into HdrHistograms per window and over all move
 * windows: end-to-end (CreateTime to poll, whole milliseconds, as CreateTime is) and
 * acknowledgement to poll (the producer's callback to poll, {@link System#nanoTime}; a record
 * polled before the producer's acknowledgement arrived counts as 0). Keeps the records that
 * waited longest from acknowledgement to poll.
 */
final class LatencyTally {

    static final String MOVES = "moves";
    private static final int SLOWEST = 5;

    private final List<MoveRunResult.Window> windows;
    private final List<Histogram> endToEnd = new ArrayList<>();
    private final List<Histogram> ackToPoll = new ArrayList<>();
    private final Histogram movesEndToEnd = new Histogram(3);
    private final Histogram movesAckToPoll = new Histogram(3);
    private final PriorityQueue<MoveRunResult.SlowRecord> slowest =
        new PriorityQueue<>(Comparator.comparingDouble(MoveRunResult.SlowRecord::ackToPollMs));
    private long polledBeforeAck;

    LatencyTally(List<MoveRunResult.Window> windows) {
        this.windows = windows;
        for (int w = 0; w < windows.size(); w++) {
            endToEnd.add(new Histogram(3));
            ackToPoll.add(new Histogram(3));
        }
    }

    /**
     * Adds record {@code n}, created in window {@code window} (0 is the quiet one).
     *
     * @param sinceAckNanos from the producer's acknowledgement to poll, null if it was not acknowledged
     */
    void add(int window, long n, String position, long createMillis, long pollMillis, Long sinceAckNanos) {
        long endToEndMicros = Math.max(0, pollMillis - createMillis) * 1000;
        endToEnd.get(window).recordValue(endToEndMicros);
        if (window > 0) {
            movesEndToEnd.recordValue(endToEndMicros);
        }
        if (sinceAckNanos == null) {
            return;
        }
        long sinceAckMicros = Math.max(0, TimeUnit.NANOSECONDS.toMicros(sinceAckNanos));
        ackToPoll.get(window).recordValue(sinceAckMicros);
        if (window > 0) {
            movesAckToPoll.recordValue(sinceAckMicros);
            if (sinceAckNanos < 0) {
                polledBeforeAck++;
            }
            MoveRunResult.Window in = windows.get(window);
            slowest.add(new MoveRunResult.SlowRecord(n, position, in.name(), createMillis - in.startEpochMillis(),
                pollMillis - createMillis, sinceAckMicros / 1000.0));
            if (slowest.size() > SLOWEST) {
                slowest.poll();
            }
        }
    }

    /** End-to-end latency: {@value #MOVES} (every move window), then each window by name. */
    Map<String, Latency> endToEnd() {
        return byWindow(movesEndToEnd, endToEnd);
    }

    /** Acknowledgement-to-poll latency, keyed as {@link #endToEnd()}. */
    Map<String, Latency> ackToPoll() {
        return byWindow(movesAckToPoll, ackToPoll);
    }

    /** Records of the move windows that poll returned before the producer had their acknowledgement. */
    long polledBeforeAck() {
        return polledBeforeAck;
    }

    /** The records of the move windows that waited longest from acknowledgement to poll, longest first. */
    List<MoveRunResult.SlowRecord> slowestAckToPoll() {
        List<MoveRunResult.SlowRecord> longestFirst = new ArrayList<>(slowest);
        longestFirst.sort(Comparator.comparingDouble(MoveRunResult.SlowRecord::ackToPollMs).reversed());
        return longestFirst;
    }

    private Map<String, Latency> byWindow(Histogram moves, List<Histogram> perWindow) {
        return byWindow(windows, moves, perWindow);
    }

    /** {@value #MOVES} from {@code moves}, then each window by name from {@code perWindow}. */
    static Map<String, Latency> byWindow(List<MoveRunResult.Window> windows, Histogram moves, List<Histogram> perWindow) {
        Map<String, Latency> latency = new LinkedHashMap<>();
        latency.put(MOVES, Latency.of(moves));
        for (int w = 0; w < windows.size(); w++) {
            latency.put(windows.get(w).name(), Latency.of(perWindow.get(w)));
        }
        return latency;
    }
}
