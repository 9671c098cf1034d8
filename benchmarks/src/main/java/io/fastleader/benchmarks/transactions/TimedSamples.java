package io.fastleader.benchmarks.transactions;

import java.util.Arrays;

import org.HdrHistogram.Histogram;

import io.fastleader.benchmarks.common.Latency;

/**
 * Latencies kept with the wall-clock time each belongs to (when the commit began, when the input
 * record was sent), so that the figures of any window, the whole run or the roll's, can be taken
 * once the window's bounds are known. Thread-safe: one thread adds, another reads.
 */
final class TimedSamples {

    private long[] atMs = new long[4096];
    private long[] micros = new long[4096];
    private int size;

    /** One latency of {@code latencyMicros} that belongs to {@code atMs}. */
    synchronized void add(long atMs, long latencyMicros) {
        if (size == this.atMs.length) {
            this.atMs = Arrays.copyOf(this.atMs, size * 2);
            micros = Arrays.copyOf(micros, size * 2);
        }
        this.atMs[size] = atMs;
        micros[size] = Math.max(0, latencyMicros);
        size++;
    }

    /** Latencies added so far. */
    synchronized int size() {
        return size;
    }

    /** The latencies that belong to {@code fromMs} up to and including {@code toMs}, as a histogram of microseconds. */
    synchronized Histogram histogram(long fromMs, long toMs) {
        Histogram histogram = new Histogram(3);
        for (int i = 0; i < size; i++) {
            if (atMs[i] >= fromMs && atMs[i] <= toMs) {
                histogram.recordValue(micros[i]);
            }
        }
        return histogram;
    }

    /** {@link #histogram} summed up in ms, as the tables print it. */
    Latency latency(long fromMs, long toMs) {
        return Latency.of(histogram(fromMs, toMs));
    }
}
