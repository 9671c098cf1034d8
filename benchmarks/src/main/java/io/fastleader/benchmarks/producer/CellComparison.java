package io.fastleader.benchmarks.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.ClusterBenchmark;

/**
 * One row of the steady grid: both clients' means over the kept turns of one cell, the ratios
 * fastleader ÷ kafka-clients, and the verdict on issue 34's goal for that cell: at least
 * {@value #THROUGHPUT_GOAL}x KafkaProducer's records/s with at most {@value #CLIENT_CPU_GOAL}x its
 * client CPU per record.
 *
 * @param cell              the cell
 * @param fastleader        fastleader's means
 * @param kafkaClients      KafkaProducer 4.3.1's means
 * @param throughputRatio   records/s, fastleader ÷ kafka-clients
 * @param clientCpuRatio    client CPU per record, fastleader ÷ kafka-clients
 * @param processCpuRatio   process CPU per record, fastleader ÷ kafka-clients
 * @param throughputVerdict "met" if {@code throughputRatio} is at least {@value #THROUGHPUT_GOAL}, else "missed"
 * @param clientCpuVerdict  "met" if {@code clientCpuRatio} is at most {@value #CLIENT_CPU_GOAL}, else "missed"
 * @param verdict           "met" if both are, else "missed" and which
 */
record CellComparison(SteadyCell cell, Means fastleader, Means kafkaClients,
                      double throughputRatio, double clientCpuRatio, double processCpuRatio,
                      String throughputVerdict, String clientCpuVerdict, String verdict) {

    /** Issue 34: records/s at least this times KafkaProducer's. */
    static final double THROUGHPUT_GOAL = 1.2;
    /** Issue 34: client CPU per record at most this times KafkaProducer's. */
    static final double CLIENT_CPU_GOAL = 0.5;

    /**
     * One client's means over its kept turns of a cell.
     *
     * @param turns                     how many turns they are over
     * @param recordsPerSecond          mean records/s
     * @param clientCpuMicrosPerRecord  mean client CPU µs per record
     * @param processCpuMicrosPerRecord mean process CPU µs per record
     */
    record Means(int turns, double recordsPerSecond, double clientCpuMicrosPerRecord, double processCpuMicrosPerRecord) {

        static Means of(List<SteadyScenario.SteadyResult> turns) {
            return new Means(turns.size(), mean(turns, SteadyScenario.SteadyResult::recordsPerSecond),
                mean(turns, SteadyScenario.SteadyResult::clientCpuMicrosPerRecord),
                mean(turns, SteadyScenario.SteadyResult::processCpuMicrosPerRecord));
        }

        private static double mean(List<SteadyScenario.SteadyResult> turns, ToDoubleFunction<SteadyScenario.SteadyResult> figure) {
            return turns.stream().mapToDouble(figure).average().orElse(Double.NaN);
        }
    }

    /** The row of {@code cell}, from those of {@code turns} that ran it. */
    static CellComparison of(SteadyCell cell, List<SteadyScenario.SteadyResult> turns) {
        Means fastleader = Means.of(turnsOf(cell, ClientVariant.FASTLEADER, turns));
        Means kafkaClients = Means.of(turnsOf(cell, ClientVariant.KAFKA_CLIENTS, turns));
        double throughput = fastleader.recordsPerSecond() / kafkaClients.recordsPerSecond();
        double clientCpu = fastleader.clientCpuMicrosPerRecord() / kafkaClients.clientCpuMicrosPerRecord();
        double processCpu = fastleader.processCpuMicrosPerRecord() / kafkaClients.processCpuMicrosPerRecord();
        boolean throughputMet = throughput >= THROUGHPUT_GOAL;
        boolean clientCpuMet = clientCpu <= CLIENT_CPU_GOAL;
        List<String> missed = new ArrayList<>();
        if (!throughputMet) {
            missed.add("throughput");
        }
        if (!clientCpuMet) {
            missed.add("client CPU");
        }
        String verdict = missed.isEmpty() ? ClusterBenchmark.verdict(true)
            : ClusterBenchmark.verdict(false) + ": " + String.join(", ", missed);
        return new CellComparison(cell, fastleader, kafkaClients, throughput, clientCpu, processCpu,
            ClusterBenchmark.verdict(throughputMet), ClusterBenchmark.verdict(clientCpuMet), verdict);
    }

    private static List<SteadyScenario.SteadyResult> turnsOf(SteadyCell cell, ClientVariant client, List<SteadyScenario.SteadyResult> turns) {
        return turns.stream().filter(turn -> turn.cell().equals(cell) && turn.client().equals(client.label())).toList();
    }
}
