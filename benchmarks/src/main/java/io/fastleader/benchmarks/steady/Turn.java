package io.fastleader.benchmarks.steady;

import io.fastleader.benchmarks.common.Latency;

/**
 * One client's turn on one cell, in a client JVM of its own.
 *
 * @param cell       what it sent or read with
 * @param client     the client's label
 * @param repetition which repetition of its cell, from 1; 0 for the warm-up round
 * @param order      its place in that round, from 1
 * @param seconds    the turn from its topic's creation (a consume turn's: from its client JVM's start) to its client JVM's end
 * @param figures    what the client JVM measured over its window
 */
record Turn(Cell cell, String client, int repetition, int order, double seconds, Figures figures) {

    /**
     * What a {@code SteadyDriver} or {@code ConsumeDriver} measured over its window, as its
     * {@code RESULT} line says.
     *
     * @param label                     the client's label
     * @param records                   records acknowledged in the window (consume: returned by poll)
     * @param seconds                   length of the window
     * @param recordsPerSecond          {@code records / seconds}
     * @param cpuMicrosPerRecord        the client JVM's CPU time in the window (every thread), per record
     * @param gcMillis                  the collectors' time in the window, every collector summed
     * @param gcCount                   collections in the window
     * @param gcMillisPerMillionRecords {@code gcMillis} per million records
     * @param jitMillis                 the JIT compilers' time in the window: well above 0, the warm-up was short
     * @param threads                   live threads of the client JVM at the end of the window
     * @param errors                    records that failed (consume: values of the wrong size, failed polls), in the whole turn
     * @param firstError                the first failure, or null
     * @param latency                   latency mode: send to acknowledgement of the records sent in the window; else null
     */
    record Figures(String label, long records, double seconds, double recordsPerSecond, Double cpuMicrosPerRecord, long gcMillis,
                   long gcCount, Double gcMillisPerMillionRecords, long jitMillis, int threads, long errors, String firstError, Latency latency) {
    }

    /**
     * A turn that gave no figures: its client JVM failed, no record was counted in its window, or
     * (consume) its backlog could not be filled.
     *
     * @param cell       what it was to send or read with
     * @param client     the client's label
     * @param repetition which repetition of its cell
     * @param problem    what went wrong
     */
    record Failed(Cell cell, String client, int repetition, String problem) {
    }
}
