package io.fastleader.benchmarks.driver;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The measured window of a steady benchmark turn ({@link SteadyDriver}, {@link ConsumeDriver}), the
 * one that follows its warm-up: what the whole process spent in it, the records the driver counted
 * in it and the live threads at its end; and from them, the {@code RESULT} the benchmark reads.
 *
 * @param startNanos {@link System#nanoTime()} as the window opened
 * @param used       what the process spent in the window, and the window's length
 * @param records    records counted in the window: acknowledged to a producer, or returned by a consumer's poll
 * @param threads    live threads of the process at the end of the window
 */
record MeasuredWindow(long startNanos, ProcessReading used, long records, int threads) {

    /**
     * Waits out {@code warmUp}, then measures a window of {@code window}, while other threads work.
     *
     * @param counted the driver's count of records so far
     * @param opened  told {@link System#nanoTime()} as the window opens
     */
    static MeasuredWindow measure(Duration warmUp, Duration window, LongSupplier counted, LongConsumer opened) throws InterruptedException {
        Thread.sleep(warmUp.toMillis());
        ProcessReading start = ProcessReading.now();
        long countedAtStart = counted.getAsLong();
        opened.accept(start.nanos());
        Thread.sleep(window.toMillis());
        ProcessReading used = ProcessReading.now().since(start);
        long records = counted.getAsLong() - countedAtStart;
        return new MeasuredWindow(start.nanos(), used, records, ManagementFactory.getThreadMXBean().getThreadCount());
    }

    /** {@link System#nanoTime()} as the window closed. */
    long endNanos() {
        return startNanos + used.nanos();
    }

    /**
     * The window's figures as one JSON object, the shape the benchmark's {@code Turn.Figures} reads;
     * figures per record are null when no record was counted.
     *
     * @param label   the client's label
     * @param errors  the turn's errors
     * @param latency the latency object as JSON, or {@code "null"} where the turn timed no record
     */
    String result(String label, Errors errors, String latency) {
        double seconds = used.nanos() / 1e9;
        return new StringBuilder("{\"label\":").append(Tally.quote(label))
            .append(",\"records\":").append(records)
            .append(",\"seconds\":").append(seconds)
            .append(",\"recordsPerSecond\":").append(records / seconds)
            .append(",\"cpuMicrosPerRecord\":").append(perRecord(used.cpuNanos() / 1e3))
            .append(",\"gcMillis\":").append(used.gcMillis())
            .append(",\"gcCount\":").append(used.gcCount())
            .append(",\"gcMillisPerMillionRecords\":").append(perRecord(used.gcMillis() * 1e6))
            .append(",\"jitMillis\":").append(used.jitMillis())
            .append(",\"threads\":").append(threads)
            .append(",\"errors\":").append(errors.count())
            .append(",\"firstError\":").append(errors.first() == null ? "null" : Tally.quote(errors.first()))
            .append(",\"latency\":").append(latency)
            .append('}').toString();
    }

    private String perRecord(double total) {
        return records == 0 ? "null" : String.valueOf(total / records);
    }
}
