package io.fastleader.benchmarks.driver;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The driver's counts and latencies: records sent, acknowledged, consumed, duplicated and failed;
 * send-to-acknowledgement and end-to-end latency in microseconds, as each wall-clock second's
 * maximum, for charts that line up across variants, and as histograms of the records sent once
 * {@link #startMeasuring} was called, so that start-up (class loading, JIT, first connections)
 * stays out of the percentiles.
 */
final class Tally {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Histogram produce = new ConcurrentHistogram(HIGHEST_MICROS, 3);
    private final Histogram endToEnd = new ConcurrentHistogram(HIGHEST_MICROS, 3);
    private final Map<Long, Long> produceMaxBySecond = new ConcurrentHashMap<>();
    private final Map<Long, Long> endToEndMaxBySecond = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final BitSet acked = new BitSet();
    private final BitSet consumed = new BitSet();
    private long duplicates;
    private volatile String firstError = "";
    private volatile long measureFromNanos = Long.MAX_VALUE;
    private volatile long measureFromCpuNanos;

    /** Records sent from now on count in the histograms, and the JVM's CPU time from now on is reported. */
    void startMeasuring() {
        measureFromCpuNanos = processCpuNanos();
        measureFromNanos = System.nanoTime();
    }

    void sent() {
        sent.incrementAndGet();
    }

    /**
     * Record {@code sequence}, sent at {@code sentNanos}, was acknowledged now.
     *
     * @return whether its latency counts in the percentiles: it was sent after {@link #startMeasuring}
     */
    boolean acked(long sequence, long sentNanos) {
        boolean measured = record(produce, produceMaxBySecond, sentNanos);
        synchronized (this) {
            acked.set((int) sequence);
        }
        return measured;
    }

    /** Record {@code sequence}, sent at {@code sentNanos}, was consumed now. */
    void consumed(long sequence, long sentNanos) {
        record(endToEnd, endToEndMaxBySecond, sentNanos);
        synchronized (this) {
            if (consumed.get((int) sequence)) {
                duplicates++;
            }
            consumed.set((int) sequence);
            notifyAll();
        }
    }

    void failed(Exception e) {
        if (errors.getAndIncrement() == 0) {
            firstError = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Waits until every acknowledged record was consumed, or {@code timeout} passed. */
    synchronized void awaitConsumedAllAcked(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (lost() > 0 && System.nanoTime() < deadline) {
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    private synchronized long lost() {
        BitSet missing = (BitSet) acked.clone();
        missing.andNot(consumed);
        return missing.cardinality();
    }

    synchronized String progress() {
        return String.format("sent=%d acked=%d consumed=%d errors=%d produce-p99-ms=%.1f e2e-p99-ms=%.1f e2e-max-ms=%.1f",
            sent.get(), acked.cardinality(), consumed.cardinality(), errors.get(),
            produce.getValueAtPercentile(99) / 1000.0, endToEnd.getValueAtPercentile(99) / 1000.0, endToEnd.getMaxValue() / 1000.0);
    }

    /** Everything, as one line of JSON, with the client's metrics and the lines of its slowest batches, if it reports them. */
    synchronized String toJson(String label, Map<String, Double> metrics, List<String> slowBatches) {
        return "{\"variant\":" + quote(label)
            + ",\"sent\":" + sent.get()
            + ",\"acked\":" + acked.cardinality()
            + ",\"measured\":" + produce.getTotalCount()
            + ",\"consumed\":" + consumed.cardinality()
            + ",\"duplicates\":" + duplicates
            + ",\"lost\":" + lost()
            + ",\"errors\":" + errors.get()
            + ",\"firstError\":" + quote(firstError)
            + ",\"produceHistogram\":" + quote(encode(produce))
            + ",\"endToEndHistogram\":" + quote(encode(endToEnd))
            + ",\"produceMaxMicrosBySecond\":" + object(produceMaxBySecond)
            + ",\"endToEndMaxMicrosBySecond\":" + object(endToEndMaxBySecond)
            + ",\"metrics\":" + object(metrics)
            + ",\"slowBatches\":" + slowBatches.stream().map(Tally::quote).collect(Collectors.joining(",", "[", "]"))
            + ",\"measuredSeconds\":" + sinceMeasuring(System.nanoTime(), measureFromNanos)
            + ",\"measuredCpuSeconds\":" + sinceMeasuring(processCpuNanos(), measureFromCpuNanos)
            + "}";
    }

    /** Counts the latency of a record sent at {@code sentNanos}, and says whether it went into {@code histogram}. */
    private boolean record(Histogram histogram, Map<Long, Long> maxBySecond, long sentNanos) {
        long micros = Math.min(HIGHEST_MICROS, Math.max(0, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sentNanos)));
        boolean measured = sentNanos - measureFromNanos >= 0;
        if (measured) {
            histogram.recordValue(micros);
        }
        maxBySecond.merge(System.currentTimeMillis() / 1000, micros, Math::max);
        return measured;
    }

    /** Seconds from {@code fromNanos} to {@code nowNanos} on one clock, or 0 before {@link #startMeasuring}. */
    private double sinceMeasuring(long nowNanos, long fromNanos) {
        return measureFromNanos == Long.MAX_VALUE ? 0 : (nowNanos - fromNanos) / 1e9;
    }

    /** CPU time of the whole driver JVM: the variant's clients, and the driver's own sending and counting, alike in every variant. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        histogram.encodeIntoCompressedByteBuffer(buffer);
        buffer.flip();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** {@code values} as a JSON object, keys in order. */
    static String object(Map<?, ? extends Number> values) {
        return new TreeMap<>(values).entrySet().stream()
            .map(e -> quote(String.valueOf(e.getKey())) + ":" + e.getValue())
            .collect(Collectors.joining(",", "{", "}"));
    }

    /** {@code text} as a JSON string. */
    static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
