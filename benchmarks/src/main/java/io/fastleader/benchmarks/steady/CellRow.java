package io.fastleader.benchmarks.steady;

import java.util.List;
import java.util.function.ToDoubleFunction;

import io.fastleader.benchmarks.leadermove.Variant;

/**
 * One row of a table: both clients' means over their kept turns of one cell, and the ratios
 * fastleader ÷ kafka-clients (below 1: fastleader's CPU, GC or latency is lower; above 1: its
 * throughput is higher).
 *
 * @param cell         the cell
 * @param fastleader   fastleader's means
 * @param kafkaClients KafkaProducer (consume: KafkaConsumer) 4.3.1's means
 * @param ratios       fastleader ÷ kafka-clients
 */
record CellRow(Cell cell, Means fastleader, Means kafkaClients, Ratios ratios) {

    /**
     * One client's means over its kept turns of a cell; NaN where it has none.
     *
     * @param turns                     how many turns they are over
     * @param recordsPerSecond          records acknowledged (consume: consumed) per second
     * @param cpuMicrosPerRecord        client JVM CPU µs per record
     * @param gcMillis                  collectors' ms per window
     * @param gcMillisPerMillionRecords collectors' ms per million records
     * @param threads                   live threads at the end of the window
     * @param p50                       latency mode: median send-to-acknowledgement ms; else NaN
     * @param p99                       latency mode: its 99th percentile
     * @param p999                      latency mode: its 99.9th percentile
     */
    record Means(int turns, double recordsPerSecond, double cpuMicrosPerRecord, double gcMillis, double gcMillisPerMillionRecords,
                 double threads, double p50, double p99, double p999) {

        static Means of(List<Turn> turns) {
            boolean timed = turns.stream().allMatch(turn -> turn.figures().latency() != null);
            return new Means(turns.size(), mean(turns, f -> f.recordsPerSecond()), mean(turns, f -> f.cpuMicrosPerRecord()),
                mean(turns, f -> f.gcMillis()), mean(turns, f -> f.gcMillisPerMillionRecords()), mean(turns, f -> f.threads()),
                timed ? mean(turns, f -> f.latency().p50()) : Double.NaN, timed ? mean(turns, f -> f.latency().p99()) : Double.NaN,
                timed ? mean(turns, f -> f.latency().p999()) : Double.NaN);
        }

        private static double mean(List<Turn> turns, ToDoubleFunction<Turn.Figures> figure) {
            return turns.stream().mapToDouble(turn -> figure.applyAsDouble(turn.figures())).average().orElse(Double.NaN);
        }
    }

    /**
     * fastleader ÷ kafka-clients, figure by figure; null where a ratio has no meaning (a figure
     * missing, or kafka-clients' 0).
     */
    record Ratios(Double recordsPerSecond, Double cpuMicrosPerRecord, Double gcMillis, Double p50, Double p99) {
    }

    /** The row of {@code cell}, from those of {@code turns} that ran it. */
    static CellRow of(Cell cell, List<Turn> turns) {
        Means fastleader = Means.of(turnsOf(cell, Variant.FASTLEADER, turns));
        Means kafkaClients = Means.of(turnsOf(cell, Variant.KAFKA_CLIENTS_4_3_1, turns));
        return new CellRow(cell, fastleader, kafkaClients, new Ratios(
            ratio(fastleader.recordsPerSecond(), kafkaClients.recordsPerSecond()),
            ratio(fastleader.cpuMicrosPerRecord(), kafkaClients.cpuMicrosPerRecord()),
            ratio(fastleader.gcMillis(), kafkaClients.gcMillis()),
            ratio(fastleader.p50(), kafkaClients.p50()),
            ratio(fastleader.p99(), kafkaClients.p99())));
    }

    private static Double ratio(double mine, double theirs) {
        double ratio = mine / theirs;
        return Double.isFinite(ratio) ? ratio : null;
    }

    private static List<Turn> turnsOf(Cell cell, Variant client, List<Turn> turns) {
        return turns.stream().filter(turn -> turn.cell().equals(cell) && turn.client().equals(client.label())).toList();
    }
}
