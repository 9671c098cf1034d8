package io.fastleader.benchmarks.driver;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One producer turn of the steady benchmark ({@code steady.SteadyBenchmark}), in a JVM of its own,
 * so that what it measures is a whole process, as a user's container sees it. The producer is
 * built by class name ({@code --producer-class}) and used through the kafka-clients API, so the
 * driver runs on any variant's classpath: client id {@code --label}, acks=all, idempotence at its
 * default (on), the turn's {@code linger.ms}, in-flight limit and compression, and
 * {@code --client-config} on top.
 *
 * <p>One thread sends unkeyed records of random bytes ({@link RecordValues}) to {@code --topic}:
 * with {@code --rate 0} as fast as it can call {@code send} (held back only by
 * {@code buffer.memory} and {@code max.block.ms}, as the client does), otherwise at that rate,
 * timing every record from just before {@code send} to its callback. After {@code --warmup-s}, a
 * window of {@code --window-s} is measured, and only that window ({@link MeasuredWindow}): records
 * acknowledged in it, the process's CPU time, the collectors' and the JIT compilers' time in it,
 * the live threads at its end, and (at a rate) the latency of the records sent in it, each
 * awaited. The driver then closes the producer, prints {@code RESULT} and the figures as one JSON
 * object, and ends. It ends at once, too, if its standard input ends ({@link InputWatch}): the
 * benchmark that started it is gone.
 */
public final class SteadyDriver {

    /** At a rate, the sender sends what is due, then sleeps this long. */
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);
    private static final Duration SENDER_STOP = Duration.ofSeconds(30);
    private static final Duration CLOSE = Duration.ofSeconds(10);
    /**
     * The producer's batching and how often its network thread turned, as both clients report them
     * under kafka-clients' names: why CPU per record differs.
     */
    private static final List<String> BATCHING_METRICS = List.of("records-per-request-avg", "batch-size-avg", "request-rate",
        "request-latency-avg", "select-rate", "io-ratio", "io-wait-ratio");

    private final SteadyDriverOptions options;
    private final Producer<byte[], byte[]> producer;
    private final byte[][] values;
    private final AtomicLong acked = new AtomicLong();
    private final Errors errors = new Errors();
    private final Callback counting = (metadata, exception) -> {
        if (exception == null) {
            acked.incrementAndGet();
        } else {
            failed(exception);
        }
    };
    private volatile boolean sending = true;
    /**
     * The records whose latency is kept: first a rehearsal over the first half of the warm-up,
     * whose figures are dropped, then the window. A callback that began timing records only at
     * the window would take a branch there that the JIT had never seen, and the recompilation of
     * the client's code it was inlined into would land in the window (it did, for both clients).
     */
    private volatile TimedSpan timed;
    private int nextValue;

    private SteadyDriver(SteadyDriverOptions options, Producer<byte[], byte[]> producer) {
        this.options = options;
        this.producer = producer;
        this.values = RecordValues.of(options.recordBytes());
    }

    /** Runs one turn; see the class comment. */
    public static void main(String[] args) throws Exception {
        SteadyDriverOptions options = SteadyDriverOptions.parse(args);
        InputWatch.start();
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, options.label());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, options.lingerMs());
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, options.maxInFlight());
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, options.compression());
        config.putAll(options.clientConfig());
        Serializer<byte[]> serializer = new ByteArraySerializer();
        @SuppressWarnings("unchecked")
        Producer<byte[], byte[]> producer = (Producer<byte[], byte[]>) Class.forName(options.producerClass())
            .getConstructor(Map.class, Serializer.class, Serializer.class).newInstance(config, serializer, serializer);
        new SteadyDriver(options, producer).run();
    }

    private void run() throws InterruptedException {
        long startNanos = System.nanoTime();
        timed = new TimedSpan(startNanos, startNanos + options.warmUp().toNanos() / 2);
        Thread sender = new Thread(options.rate() == 0 ? this::sendFlatOut : this::sendAtRate, "steady-sender");
        sender.start();
        MeasuredWindow window = MeasuredWindow.measure(options.warmUp(), options.window(), acked::get,
            windowStartNanos -> timed = new TimedSpan(windowStartNanos, Long.MAX_VALUE));
        timed.endNanos = window.endNanos();
        sending = false;
        sender.join(SENDER_STOP.toMillis());
        // Every record sent in the window is awaited, so the slow ones count in the percentiles too.
        producer.flush();
        String result = window.result(options.label(), errors, latency());
        System.err.println("batching " + Metrics.named(producer.metrics(), "producer-metrics", BATCHING_METRICS));
        producer.close(CLOSE);
        System.out.println("RESULT " + result);
        System.out.flush();
    }

    private void sendFlatOut() {
        while (sending) {
            try {
                producer.send(new ProducerRecord<>(options.topic(), nextValue()), counting);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    /** Sends what the rate has made due since the start, every {@link #TICK_NANOS}: a late tick catches up. */
    private void sendAtRate() {
        long startNanos = System.nanoTime();
        long sent = 0;
        while (sending) {
            long due = (System.nanoTime() - startNanos) * options.rate() / TimeUnit.SECONDS.toNanos(1);
            for (; sent < due && sending; sent++) {
                sendTimed();
            }
            LockSupport.parkNanos(TICK_NANOS);
        }
    }

    private void sendTimed() {
        long sentNanos = System.nanoTime();
        try {
            producer.send(new ProducerRecord<>(options.topic(), nextValue()), (metadata, exception) -> {
                if (exception != null) {
                    failed(exception);
                    return;
                }
                long ackedNanos = System.nanoTime();
                acked.incrementAndGet();
                timed.record(sentNanos, ackedNanos);
            });
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** Only the sending thread calls it. */
    private byte[] nextValue() {
        byte[] value = values[nextValue];
        nextValue = (nextValue + 1) % values.length;
        return value;
    }

    private void failed(Exception e) {
        errors.add(e.toString());
    }

    /** The latency of the records sent in the window as a JSON object, or {@code null} when sending flat out, untimed. */
    private String latency() {
        if (options.rate() == 0) {
            return "null";
        }
        Histogram latencyMicros = timed.latencyMicros;
        return "{\"records\":" + latencyMicros.getTotalCount()
            + ",\"p50\":" + millis(latencyMicros.getValueAtPercentile(50))
            + ",\"p99\":" + millis(latencyMicros.getValueAtPercentile(99))
            + ",\"p999\":" + millis(latencyMicros.getValueAtPercentile(99.9))
            + ",\"max\":" + millis(latencyMicros.getMaxValue()) + "}";
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /** The records sent from {@code startNanos} ({@link System#nanoTime()}) until before {@code endNanos}, and their latency. */
    private static final class TimedSpan {
        final Histogram latencyMicros = new ConcurrentHistogram(HIGHEST_MICROS, 3);
        final long startNanos;
        /** Set once the window has ended, when its end is known. */
        volatile long endNanos;

        TimedSpan(long startNanos, long endNanos) {
            this.startNanos = startNanos;
            this.endNanos = endNanos;
        }

        void record(long sentNanos, long ackedNanos) {
            if (sentNanos >= startNanos && sentNanos < endNanos) {
                latencyMicros.recordValue(TimeUnit.NANOSECONDS.toMicros(ackedNanos - sentNanos));
            }
        }
    }
}
