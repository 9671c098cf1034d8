package io.fastleader.benchmarks.leadermove;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps the books of a scenario's disturbances: when each began and ended, and how many requests
 * of each API every variant had sent at the marks around it.
 *
 * <p>A disturbance's counted span runs from its start to {@link #counted}, which the scenario calls
 * half way through the pause after it, once the clients have had time to react. The quiet span
 * before it runs from the previous disturbance's counted mark (the first one's from
 * {@link #quietFrom}, in the warm-up) to its start. What a variant sent in the counted span beyond
 * its quiet rate is what the move cost it; see {@link MoveRequests}.
 */
final class MoveLedger {

    private final List<DriverProcess> drivers;
    private final List<Scenario.Disturbance> done = new ArrayList<>();
    private final List<MoveRequests.Marks> moves = new ArrayList<>();
    private MoveRequests.Mark quietFrom;
    private MoveRequests.Mark start;
    private String what;

    MoveLedger(List<DriverProcess> drivers) {
        this.drivers = drivers;
    }

    /** The quiet span before the first disturbance starts now. */
    void quietFrom() throws IOException, InterruptedException {
        quietFrom = mark();
    }

    /** Disturbance {@code what} starts now. */
    void begin(String what) throws IOException, InterruptedException {
        this.what = what;
        start = mark();
    }

    /** The disturbance begun last is over. */
    void end() {
        done.add(new Scenario.Disturbance(what, start.epochMillis(), System.currentTimeMillis()));
    }

    /** The counted span of the disturbance begun last ends now, and the next one's quiet span starts. */
    void counted() throws IOException, InterruptedException {
        MoveRequests.Mark counted = mark();
        moves.add(new MoveRequests.Marks(what, quietFrom, start, counted));
        quietFrom = counted;
    }

    /** The disturbances so far, in order. */
    List<Scenario.Disturbance> done() {
        return done;
    }

    /** Each disturbance's window, from its start to the end of its counted span, in order. */
    List<Scenario.Window> windows() {
        return moves.stream().map(move -> new Scenario.Window(move.what(), move.start().epochMillis(), move.counted().epochMillis()))
            .toList();
    }

    /** What each move cost each variant, by label. */
    Map<String, MoveRequests> requests() {
        Map<String, MoveRequests> byVariant = new LinkedHashMap<>();
        drivers.forEach(driver -> byVariant.put(driver.variant().label(), MoveRequests.of(driver.variant().label(), moves)));
        return byVariant;
    }

    private MoveRequests.Mark mark() throws IOException, InterruptedException {
        Map<String, Map<String, Long>> sent = new LinkedHashMap<>();
        long epochMillis = System.currentTimeMillis();
        for (DriverProcess driver : drivers) {
            sent.put(driver.variant().label(), driver.requests());
        }
        return new MoveRequests.Mark(epochMillis, sent);
    }
}
