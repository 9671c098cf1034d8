package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The requests one variant spent per leader move, by API: in each move's counted span, less what
 * it sent at its quiet rate just before the move, scaled to the counted span's length. A client
 * that keeps producing and fetching through a move sends its Produce and Fetch requests in both
 * spans, so what is left is the move's own cost: Metadata refreshes, retries, OffsetForLeaderEpoch
 * validations, fetches of partitions that were backing off, handshakes with restarted brokers. It
 * can be negative, when a client sent less during the move (a broker down, requests waiting).
 *
 * @param perMove    each move, in order
 * @param meanExcess the mean over the moves of what each API cost beyond the quiet rate, {@code all} summed
 */
record MoveRequests(List<Move> perMove, Map<String, Double> meanExcess) {

    /** The key of the sum over every API. */
    static final String ALL = "all";

    /**
     * One move's accounts.
     *
     * @param what          which disturbance
     * @param quietSeconds  length of the quiet span before it
     * @param countedSeconds length of its counted span
     * @param quiet         sent in the quiet span, by API
     * @param counted       sent in the counted span, by API
     * @param excess        {@code counted} less {@code quiet} scaled by the spans' lengths, by API
     */
    record Move(String what, double quietSeconds, double countedSeconds, Map<String, Long> quiet, Map<String, Long> counted,
                Map<String, Double> excess) {
    }

    /** What every variant had sent by {@code epochMillis}: by variant label, by API. */
    record Mark(long epochMillis, Map<String, Map<String, Long>> sent) {
    }

    /** The three marks around one move. */
    record Marks(String what, Mark quietFrom, Mark start, Mark counted) {
    }

    /** {@code variant}'s accounts of {@code moves}. */
    static MoveRequests of(String variant, List<Marks> moves) {
        List<Move> perMove = new ArrayList<>();
        Map<String, Double> excessSum = new TreeMap<>();
        for (Marks marks : moves) {
            Map<String, Long> quiet = sentBetween(variant, marks.quietFrom(), marks.start());
            Map<String, Long> counted = sentBetween(variant, marks.start(), marks.counted());
            double quietSeconds = seconds(marks.quietFrom(), marks.start());
            double countedSeconds = seconds(marks.start(), marks.counted());
            Set<String> apis = new TreeSet<>(quiet.keySet());
            apis.addAll(counted.keySet());
            Map<String, Double> excess = new TreeMap<>();
            for (String api : apis) {
                double atQuietRate = quietSeconds > 0 ? quiet.getOrDefault(api, 0L) * countedSeconds / quietSeconds : 0;
                excess.put(api, counted.getOrDefault(api, 0L) - atQuietRate);
            }
            excess.put(ALL, excess.values().stream().mapToDouble(Double::doubleValue).sum());
            excess.forEach((api, value) -> excessSum.merge(api, value, Double::sum));
            perMove.add(new Move(marks.what(), quietSeconds, countedSeconds, quiet, counted, excess));
        }
        Map<String, Double> meanExcess = new LinkedHashMap<>();
        excessSum.forEach((api, sum) -> meanExcess.put(api, sum / moves.size()));
        return new MoveRequests(perMove, meanExcess);
    }

    private static Map<String, Long> sentBetween(String variant, Mark from, Mark to) {
        Map<String, Long> before = from.sent().getOrDefault(variant, Map.of());
        Map<String, Long> sent = new TreeMap<>();
        to.sent().getOrDefault(variant, Map.of()).forEach((api, count) -> {
            long between = count - before.getOrDefault(api, 0L);
            if (between != 0) {
                sent.put(api, between);
            }
        });
        return sent;
    }

    private static double seconds(Mark from, Mark to) {
        return (to.epochMillis() - from.epochMillis()) / 1000.0;
    }
}
