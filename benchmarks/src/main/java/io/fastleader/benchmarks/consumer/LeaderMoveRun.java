package io.fastleader.benchmarks.consumer;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.sun.management.OperatingSystemMXBean;
import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.Latency;
import io.fastleader.benchmarks.driver.NetworkClientRequestLog;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * One run: the topic, the producer, every consumer variant at once, then the warm-up, the quiet
 * window and the move windows, then the drain and the figures.
 *
 * <p>Timeline. Consumers start at the topic's end before the producer sends its first record, so
 * each must return every acknowledged record exactly once. After {@code --warmup-s}, the measured
 * time is cut into windows of {@link ConsumerBenchmarkOptions#window()} each: the first is quiet;
 * each of the next starts by rotating every partition's replica list
 * ({@link Disturbances#rotateReplicas}, which returns once every partition is led by its new first
 * replica) and lasts at least until {@code --settle-s} after that. Then the producer stops, and the
 * consumers get up to {@code --drain-s} to catch up, plus 2 s in which a late duplicate would show.
 *
 * <p>Counts. Every consumer's counters ({@link ConsumerRun#counters()}) are read at every window
 * boundary and once more inside each window, so a span's requests are the difference of two
 * readings. A move's requests are those of its counted span (from its start until half its
 * window has passed, and at least 2 s after its rotation completed) less those of as long a quiet
 * span just before it (the end of the window before, after the previous move's counted span):
 * the background Fetch traffic is then measured next to the move, under the same load. A record
 * belongs to the window its CreateTime falls in.
 */
final class LeaderMoveRun {

    static final String TOPIC = "consumer-benchmark";
    private static final long PROGRESS_SECONDS = 5;
    private static final long LATE_DUPLICATE_MILLIS = 2_000;
    private static final int EXAMPLES = 10;
    /** A move's requests are counted until half its window has passed, and at least this long after its rotation completed. */
    private static final Duration COUNTED_AFTER_ROTATION = Duration.ofSeconds(2);

    private final KafkaTestCluster cluster;
    private final Disturbances disturbances;
    private final ConsumerBenchmarkOptions options;
    private final long startNanos = System.nanoTime();
    private volatile String phase = "starting";

    LeaderMoveRun(KafkaTestCluster cluster, Disturbances disturbances, ConsumerBenchmarkOptions options) {
        this.cluster = cluster;
        this.disturbances = disturbances;
        this.options = options;
    }

    /** Runs every variant through the moves and returns the figures. */
    MoveRunResult run() throws Exception {
        disturbances.createTopic(new NewTopic(TOPIC, options.partitions(), (short) 3).configs(Map.of("min.insync.replicas", "2")));
        Set<String> kafkaClientIds = options.countKafkaRequests()
            ? options.variants().stream().filter(v -> !v.isFastLeader()).map(ConsumerRun::clientId).collect(Collectors.toSet())
            : Set.of();
        List<ConsumerRun> consumers = new ArrayList<>();
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(task -> new Thread(task, "benchmark-progress"));
        try (NetworkClientRequestLog requestLog = NetworkClientRequestLog.install(kafkaClientIds);
             StreamProducer producer = new StreamProducer(cluster.clientConfig(), TOPIC, options)) {
            try {
                for (ClientVariant variant : options.variants()) {
                    consumers.add(new ConsumerRun(variant, cluster.clientConfig(), options.consumerConfig(), TOPIC, options.partitions(), requestLog));
                }
                consumers.forEach(ConsumerRun::start);
                producer.start();
                progress.scheduleAtFixedRate(() -> printProgress(producer, consumers), PROGRESS_SECONDS, PROGRESS_SECONDS, TimeUnit.SECONDS);
                phase = "warm-up";
                // A first reading, not kept: the first one runs cold code, and a slow reading skews the request count check.
                Mark.take(consumers);
                Thread.sleep(options.warmUp().toMillis());
                List<Mark> marks = new ArrayList<>();
                List<Long> rotations = new ArrayList<>();
                List<MoveSpans> spans = new ArrayList<>();
                marks.add(Mark.take(consumers));
                phase = "quiet window";
                long halfWindow = options.window().toNanos() / 2;
                sleepUntil(marks.get(0).nanos + halfWindow);
                Mark quietFrom = Mark.take(consumers);
                sleepUntil(marks.get(0).nanos + options.window().toNanos());
                for (int move = 1; move <= options.moves(); move++) {
                    Mark start = Mark.take(consumers);
                    marks.add(start);
                    phase = "move " + move + " of " + options.moves() + " (rotating)";
                    disturbances.rotateReplicas(TOPIC);
                    long rotated = System.nanoTime();
                    rotations.add(TimeUnit.NANOSECONDS.toMillis(rotated - start.nanos));
                    System.out.printf("move %d of %d: every partition has its new leader after %d ms%n", move, options.moves(),
                        rotations.get(move - 1));
                    phase = "move " + move + " of " + options.moves() + " (settling)";
                    sleepUntil(Math.max(start.nanos + halfWindow, rotated + COUNTED_AFTER_ROTATION.toNanos()));
                    Mark counted = Mark.take(consumers);
                    spans.add(new MoveSpans(quietFrom, start, counted));
                    quietFrom = counted;
                    sleepUntil(Math.max(start.nanos + options.window().toNanos(), rotated + options.settle().toNanos()));
                }
                marks.add(Mark.take(consumers));
                phase = "draining";
                producer.stop();
                drain(producer, consumers);
                for (ConsumerRun consumer : consumers) {
                    consumer.stop();
                }
                progress.shutdownNow();
                return result(marks, rotations, spans, producer, consumers);
            } finally {
                progress.shutdownNow();
                for (ConsumerRun consumer : consumers) {
                    consumer.close();
                }
            }
        }
    }

    /** Waits until every consumer has returned every acknowledged record, or {@code --drain-s} has passed. */
    private void drain(StreamProducer producer, List<ConsumerRun> consumers) throws InterruptedException {
        long deadline = System.nanoTime() + options.drain().toNanos();
        while (consumers.stream().anyMatch(c -> missing(producer, c) > 0) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        for (ConsumerRun consumer : consumers) {
            long missing = missing(producer, consumer);
            if (missing > 0) {
                System.out.printf("%s: %d acknowledged records still not consumed after %d s of drain%n",
                    consumer.variant().label(), missing, options.drain().toSeconds());
            }
        }
        Thread.sleep(LATE_DUPLICATE_MILLIS);
    }

    private static long missing(StreamProducer producer, ConsumerRun consumer) {
        long missing = 0;
        for (long n = 0; n < producer.counts().sent(); n++) {
            if (producer.ackNanos(n) != LongColumn.NONE && consumer.receipts(n) == 0) {
                missing++;
            }
        }
        return missing;
    }

    private void printProgress(StreamProducer producer, List<ConsumerRun> consumers) {
        StringBuilder line = new StringBuilder(String.format("[%4d s] %-26s sent %,8d acked %,8d",
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos), phase, producer.counts().sent(), producer.counts().acked()));
        for (ConsumerRun consumer : consumers) {
            line.append(String.format(" | %s %,d (slowest %,d ms)", consumer.variant().label(), consumer.distinct(),
                consumer.slowestSinceAsked()));
        }
        System.out.println(line);
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private MoveRunResult result(List<Mark> marks, List<Long> rotations, List<MoveSpans> spans, StreamProducer producer,
                                 List<ConsumerRun> consumers) {
        List<MoveRunResult.Window> windows = new ArrayList<>();
        for (int w = 0; w + 1 < marks.size(); w++) {
            Mark start = marks.get(w);
            Mark end = marks.get(w + 1);
            double cores = (double) (end.processCpuNanos - start.processCpuNanos) / (end.nanos - start.nanos);
            windows.add(new MoveRunResult.Window(w == 0 ? "quiet" : "move " + w, start.epochMillis,
                TimeUnit.NANOSECONDS.toMillis(end.nanos - start.nanos), w == 0 ? null : rotations.get(w - 1), cores));
        }
        List<MoveRunResult.VariantResult> variants = new ArrayList<>();
        for (ConsumerRun consumer : consumers) {
            variants.add(variantResult(consumer, marks, spans, windows, producer));
        }
        return new MoveRunResult(windows, new MoveRunResult.ProducerFigures(producer.counts().sent(), producer.counts().acked(),
            producer.counts().failed(), producer.counts().firstError(), sendToAck(producer, marks, windows)), variants);
    }

    private static MoveRunResult.VariantResult variantResult(ConsumerRun consumer, List<Mark> marks, List<MoveSpans> spans,
                                                             List<MoveRunResult.Window> windows, StreamProducer producer) {
        LatencyTally latencies = new LatencyTally(windows);
        long missing = 0;
        long duplicated = 0;
        long unacknowledged = 0;
        List<String> missingExamples = new ArrayList<>();
        List<String> duplicatedExamples = new ArrayList<>();
        for (long n = 0; n < producer.counts().sent(); n++) {
            long receipts = consumer.receipts(n);
            long ackNanos = producer.ackNanos(n);
            if (ackNanos != LongColumn.NONE && receipts == 0) {
                missing++;
                example(missingExamples, n + " " + producer.position(n));
            }
            if (receipts > 1) {
                duplicated += receipts - 1;
                example(duplicatedExamples, n + " " + producer.position(n) + " ×" + receipts);
            }
            if (receipts > 0 && ackNanos == LongColumn.NONE) {
                unacknowledged++;
            }
            int window = receipts == 0 ? -1 : windowOf(consumer.createMillis(n), marks);
            if (window >= 0) {
                latencies.add(window, n, producer.position(n), consumer.createMillis(n), consumer.firstPollMillis(n),
                    ackNanos == LongColumn.NONE ? null : consumer.firstPollNanos(n) - ackNanos);
            }
        }
        MoveRunResult.RecordCheck records = new MoveRunResult.RecordCheck(producer.counts().acked(), consumer.consumed(), missing, duplicated,
            unacknowledged, consumer.foreign(), missingExamples, duplicatedExamples);
        return new MoveRunResult.VariantResult(consumer.variant().label(), consumer.clientId(), records, latencies.endToEnd(),
            latencies.ackToPoll(), latencies.polledBeforeAck(), latencies.slowestAckToPoll(), requests(consumer.variant(), marks, spans),
            consumer.counters(), consumer.pollErrors(), consumer.firstPollError());
    }

    /** The producer's send-to-acknowledgement latency, by the window each record was sent in. */
    private static Map<String, Latency> sendToAck(StreamProducer producer, List<Mark> marks, List<MoveRunResult.Window> windows) {
        List<Histogram> perWindow = new ArrayList<>();
        windows.forEach(w -> perWindow.add(new Histogram(3)));
        Histogram moves = new Histogram(3);
        for (long n = 0; n < producer.counts().sent(); n++) {
            int window = windowOf(producer.sendMillis(n), marks);
            if (window < 0 || producer.ackNanos(n) == LongColumn.NONE) {
                continue;
            }
            long micros = TimeUnit.NANOSECONDS.toMicros(producer.ackNanos(n) - producer.sendNanos(n));
            perWindow.get(window).recordValue(micros);
            if (window > 0) {
                moves.recordValue(micros);
            }
        }
        return LatencyTally.byWindow(windows, moves, perWindow);
    }

    private static void example(List<String> examples, String example) {
        if (examples.size() < EXAMPLES) {
            examples.add(example);
        }
    }

    /** The window a record created at {@code createMillis} belongs to: -1 before the first, the last one from its start on. */
    private static int windowOf(long createMillis, List<Mark> marks) {
        int window = -1;
        for (int w = 0; w + 1 < marks.size() && marks.get(w).epochMillis <= createMillis; w++) {
            window = w;
        }
        return window;
    }

    /**
     * Requests per window, and per move: sent in the move's counted span less what was sent in its
     * quiet span, scaled by the spans' lengths when they differ.
     */
    private static MoveRunResult.Requests requests(ClientVariant variant, List<Mark> marks, List<MoveSpans> spans) {
        List<Map<String, Double>> perWindow = new ArrayList<>();
        for (int w = 0; w + 1 < marks.size(); w++) {
            perWindow.add(grown(variant, marks.get(w), marks.get(w + 1)));
        }
        List<MoveRunResult.MoveRequests> perMove = new ArrayList<>();
        Map<String, Double> meanExcess = new LinkedHashMap<>();
        for (MoveSpans span : spans) {
            Map<String, Double> quiet = grown(variant, span.quietFrom, span.start);
            Map<String, Double> sent = grown(variant, span.start, span.counted);
            long quietMillis = TimeUnit.NANOSECONDS.toMillis(span.start.nanos - span.quietFrom.nanos);
            long countedMillis = TimeUnit.NANOSECONDS.toMillis(span.counted.nanos - span.start.nanos);
            double scale = (double) countedMillis / quietMillis;
            Map<String, Double> excess = new LinkedHashMap<>();
            sent.forEach((name, count) -> excess.put(name, count - quiet.getOrDefault(name, 0.0) * scale));
            excess.forEach((name, count) -> meanExcess.merge(name, count / spans.size(), Double::sum));
            perMove.add(new MoveRunResult.MoveRequests(quietMillis, countedMillis, quiet, sent, excess));
        }
        return new MoveRunResult.Requests(perWindow, perMove, meanExcess);
    }

    /** Every counter's growth from {@code before} to {@code after} for {@code variant}. */
    private static Map<String, Double> grown(ClientVariant variant, Mark before, Mark after) {
        Map<String, Double> then = before.counters.get(variant);
        Map<String, Double> grown = new LinkedHashMap<>();
        after.counters.get(variant).forEach((name, count) -> grown.put(name, count - then.getOrDefault(name, 0.0)));
        return grown;
    }

    /**
     * The spans a move's requests are counted over: {@code quietFrom} to {@code start} is quiet
     * (the second half of the window before, after the previous move's counted span); {@code start}
     * to {@code counted} holds the move.
     */
    private record MoveSpans(Mark quietFrom, Mark start, Mark counted) {
    }

    /** A window boundary: when, the JVM's CPU time (brokers included), and every consumer's counters then. */
    private record Mark(long epochMillis, long nanos, long processCpuNanos, Map<ClientVariant, Map<String, Double>> counters) {

        private static final OperatingSystemMXBean PROCESS = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);

        static Mark take(List<ConsumerRun> consumers) {
            long epochMillis = System.currentTimeMillis();
            long nanos = System.nanoTime();
            long cpu = PROCESS.getProcessCpuTime();
            Map<ClientVariant, Map<String, Double>> counters = new LinkedHashMap<>();
            consumers.forEach(consumer -> counters.put(consumer.variant(), consumer.counters()));
            return new Mark(epochMillis, nanos, cpu, counters);
        }
    }
}
