package io.fastleader.benchmarks.producer;

import java.util.ArrayList;
import java.util.List;

/**
 * One cell of the steady grid: the record size and the two producer settings the grid varies.
 * Every client gets the same cell; all its other settings stay at their defaults.
 *
 * @param recordBytes value size of every record
 * @param lingerMs    {@code linger.ms}
 * @param maxInFlight {@code max.in.flight.requests.per.connection}
 */
record SteadyCell(int recordBytes, int lingerMs, int maxInFlight) {

    /** Every combination, in the order given: record size outermost, then linger, then in flight. */
    static List<SteadyCell> grid(List<Integer> recordBytes, List<Integer> lingerMs, List<Integer> maxInFlight) {
        List<SteadyCell> cells = new ArrayList<>();
        for (int bytes : recordBytes) {
            for (int linger : lingerMs) {
                for (int inFlight : maxInFlight) {
                    cells.add(new SteadyCell(bytes, linger, inFlight));
                }
            }
        }
        return List.copyOf(cells);
    }

    /** The cell in topic names, client ids and file names, e.g. {@code 1024b-linger5-inflight5}. */
    String name() {
        return recordBytes + "b-linger" + lingerMs + "-inflight" + maxInFlight;
    }
}
