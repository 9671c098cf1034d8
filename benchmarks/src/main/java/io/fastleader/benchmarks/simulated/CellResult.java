package io.fastleader.benchmarks.simulated;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One cell's figures for one variant: the cluster's size, the scenario, and what the moves cost
 * the client and the simulated side.
 *
 * @param brokers              brokers in the cluster
 * @param partitions           partitions in the cluster (RF 3)
 * @param scenario             roll or reassign
 * @param variant              the client
 * @param moves                moves made
 * @param movedPartitions      partitions moved, over all moves: one record each
 * @param failed               records that failed or were not answered, left out of the percentiles
 * @param firstError           the first failure, or empty
 * @param recoveryMicros       per-partition recovery: from the write right after a move to its record's acknowledgement
 * @param slowestMoveMillis    the slowest move's time until its last record was acknowledged
 * @param clientCpuMillis      the client JVM's CPU time from the first move to the last acknowledgement
 * @param simulatedCpuMillis   the cluster's threads' CPU time over the same span, plus the moves themselves
 * @param wallMillis           that span's wall time, roll's down time included
 * @param requests             requests the client sent over that span, by API, from the cluster's request log
 * @param eachMove             each move, in order, with the partitions it moved and when the last was acknowledged
 */
record CellResult(int brokers, int partitions, String scenario, String variant, int moves, int movedPartitions, int failed,
                  String firstError, RecoverySummary recoveryMicros, double slowestMoveMillis, double clientCpuMillis,
                  double simulatedCpuMillis, long wallMillis, Map<String, Long> requests, List<String> eachMove) {

    /** The client's CPU time per moved partition, in microseconds. */
    @JsonProperty
    double clientCpuMicrosPerPartition() {
        return movedPartitions == 0 ? 0 : clientCpuMillis * 1000 / movedPartitions;
    }
}
