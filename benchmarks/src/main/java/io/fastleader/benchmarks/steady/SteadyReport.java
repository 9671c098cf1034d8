package io.fastleader.benchmarks.steady;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import io.fastleader.benchmarks.common.Latency;

/**
 * The tables, one per mode, and every figure for the JSON file. Ratios are always fastleader ÷
 * kafka-clients.
 */
final class SteadyReport {

    private final Map<String, Object> json = new LinkedHashMap<>();

    /** A report of a run with {@code options}; {@code environment} describes the machine and load. */
    SteadyReport(SteadyOptions options, Map<String, Object> environment) {
        json.put("environment", environment);
        json.put("options", options.figures());
    }

    /**
     * A latency cell's client that acknowledged less than this share of the rate could not keep
     * up: its percentiles measure a queue, not a client below saturation.
     */
    static final double KEPT_UP = 0.95;

    /** One turn's figures in one line, as the run prints them. */
    static String describe(Turn turn) {
        Turn.Figures f = turn.figures();
        String line = String.format(Locale.ROOT,
            "%,.0f records/s, %.2f µs CPU/record, GC %d ms in %d collection(s), %.1f ms per million records, JIT %d ms, %d threads",
            f.recordsPerSecond(), f.cpuMicrosPerRecord(), f.gcMillis(), f.gcCount(), f.gcMillisPerMillionRecords(), f.jitMillis(), f.threads());
        Latency l = f.latency();
        if (l != null) {
            line += String.format(Locale.ROOT, ", latency ms p50 %.2f p99 %.2f p99.9 %.2f max %.2f", l.p50(), l.p99(), l.p999(), l.max());
            if (f.recordsPerSecond() < KEPT_UP * turn.cell().rate()) {
                line += ", BELOW THE RATE (saturated)";
            }
        }
        if (f.errors() > 0) {
            line += ", " + f.errors() + " errors, first: " + f.firstError();
        }
        return line + String.format(Locale.ROOT, "; turn %.1f s", turn.seconds());
    }

    /** Prints a table per mode of {@code cells} to {@code out}, and keeps every figure for the JSON file. */
    void print(List<Cell> cells, SteadyRun.Outcome outcome, PrintStream out) {
        Map<String, List<CellRow>> byMode = new LinkedHashMap<>();
        for (Cell.Mode mode : Cell.Mode.values()) {
            List<CellRow> rows = cells.stream().filter(cell -> cell.mode() == mode).map(cell -> CellRow.of(cell, outcome.turns())).toList();
            if (rows.isEmpty()) {
                continue;
            }
            byMode.put(mode.label(), rows);
            out.println();
            switch (mode) {
                case THROUGHPUT -> throughput(rows, out);
                case LATENCY -> latency(rows, out);
                case CONSUME -> consume(rows, out);
            }
        }
        if (!outcome.failed().isEmpty()) {
            out.println();
            out.println(outcome.failed().size() + " turns failed and are left out of the means:");
            outcome.failed().forEach(f -> out.printf("  %s %s repetition %d: %s%n", f.client(), f.cell().name(), f.repetition(), f.problem()));
        }
        json.put("turns", outcome.turns());
        json.put("failedTurns", outcome.failed());
        json.put("cells", byMode);
    }

    private static void throughput(List<CellRow> rows, PrintStream out) {
        out.println("throughput: means per cell; whole client JVM: CPU µs per record acknowledged, GC ms per window (and per million records),"
            + " live threads; ÷ = fastleader ÷ kafka-clients");
        rates(rows, out, String.format("%6s %6s %9s %6s", "bytes", "linger", "in-flight", "codec"),
            cell -> String.format(Locale.ROOT, "%6d %6d %9d %6s", cell.recordBytes(), cell.lingerMs(), cell.maxInFlight(), cell.compression()));
    }

    private static void consume(List<CellRow> rows, PrintStream out) {
        out.println("consume: means per cell; whole client JVM: CPU µs per record consumed, GC ms per window (and per million records),"
            + " live threads; ÷ = fastleader ÷ kafka-clients");
        rates(rows, out, String.format("%6s %9s %9s", "bytes", "fetch.min", "max.poll"),
            cell -> String.format(Locale.ROOT, "%6d %9d %9d", cell.recordBytes(), cell.fetchMinBytes(), cell.maxPollRecords()));
    }

    /**
     * A table of records/s, CPU per record, GC and threads, a row per cell: the throughput and
     * consume tables, whose cells have different columns, {@code cellHeader} and {@code cellColumns}.
     */
    private static void rates(List<CellRow> rows, PrintStream out, String cellHeader, Function<Cell, String> cellColumns) {
        out.printf("%s | %12s %12s %5s | %7s %7s %5s | %7s %7s %5s | %7s %7s | %4s %4s%n", cellHeader, "fastleader/s", "kafka/s", "÷",
            "fl CPU", "kafka", "÷", "fl GC", "kafka", "÷", "fl GC/M", "kafka", "fl T", "kf T");
        for (CellRow r : rows) {
            out.printf(Locale.ROOT, "%s | %,12.0f %,12.0f %5s | %7.2f %7.2f %5s | %7.0f %7.0f %5s | %7.1f %7.1f | %4.0f %4.0f%n",
                cellColumns.apply(r.cell()),
                r.fastleader().recordsPerSecond(), r.kafkaClients().recordsPerSecond(), ratio(r.ratios().recordsPerSecond()),
                r.fastleader().cpuMicrosPerRecord(), r.kafkaClients().cpuMicrosPerRecord(), ratio(r.ratios().cpuMicrosPerRecord()),
                r.fastleader().gcMillis(), r.kafkaClients().gcMillis(), ratio(r.ratios().gcMillis()),
                r.fastleader().gcMillisPerMillionRecords(), r.kafkaClients().gcMillisPerMillionRecords(),
                r.fastleader().threads(), r.kafkaClients().threads());
        }
    }

    private static void latency(List<CellRow> rows, PrintStream out) {
        out.println("latency: means per cell; send-to-acknowledgement ms of the records sent in the window; whole client JVM: CPU µs per"
            + " record, GC ms per window; ÷ = fastleader ÷ kafka-clients");
        out.printf("%6s %6s %9s %7s | %7s %7s %5s | %7s %7s %5s | %7s %7s | %7s %7s %5s | %6s %6s %5s | %9s %9s%n", "bytes", "linger",
            "in-flight", "rate/s", "fl p50", "kafka", "÷", "fl p99", "kafka", "÷", "fl p99.9", "kafka", "fl CPU", "kafka", "÷", "fl GC", "kafka",
            "÷", "fl rec/s", "kafka");
        for (CellRow r : rows) {
            out.printf(Locale.ROOT, "%6d %6d %9d %7d | %7.2f %7.2f %5s | %7.2f %7.2f %5s | %7.2f %7.2f | %7.2f %7.2f %5s | %6.0f %6.0f %5s | %,9.0f %,9.0f%n",
                r.cell().recordBytes(), r.cell().lingerMs(), r.cell().maxInFlight(), r.cell().rate(),
                r.fastleader().p50(), r.kafkaClients().p50(), ratio(r.ratios().p50()),
                r.fastleader().p99(), r.kafkaClients().p99(), ratio(r.ratios().p99()),
                r.fastleader().p999(), r.kafkaClients().p999(),
                r.fastleader().cpuMicrosPerRecord(), r.kafkaClients().cpuMicrosPerRecord(), ratio(r.ratios().cpuMicrosPerRecord()),
                r.fastleader().gcMillis(), r.kafkaClients().gcMillis(), ratio(r.ratios().gcMillis()),
                r.fastleader().recordsPerSecond(), r.kafkaClients().recordsPerSecond());
        }
    }

    private static String ratio(Double ratio) {
        return ratio == null ? "-" : String.format(Locale.ROOT, "%.2f", ratio);
    }

    /** Every figure kept, for the JSON file. */
    Map<String, Object> figures() {
        return json;
    }
}
