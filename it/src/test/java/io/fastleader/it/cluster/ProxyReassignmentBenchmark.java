package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Produce latency through partition reassignments, kafka-clients 4.3.1's KafkaProducer as the
 * client, three ways side by side: Kafka 3.6.2 behind Kroxylicious with fastleader's leader-hint
 * filter, the same brokers behind the same proxy without it, and Kafka 4.3.1 brokers (which hint
 * themselves) with no proxy. All brokers are child JVMs, three per cluster.
 *
 * <p>Not part of the build's tests: it reports figures, it asserts only that every record was
 * acknowledged. Run it with
 * <pre>
 * mvn -B -pl it -am verify -Dtest=ProxyReassignmentBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dfastleader.benchmark=proxy
 * </pre>
 * ({@code -Dfastleader.benchmark.runs=N}, default 3). Each run of each setup produces
 * {@value #RECORDS_PER_SECOND} records/s to a new 12-partition topic (replication factor 3,
 * min ISR 2, acks=all, idempotent, one request in flight per connection, other settings at
 * their defaults), warms up, then rotates
 * every partition's replicas {@value #REASSIGNMENTS} times, so every partition gets a new leader
 * each time, and records each record's send-to-acknowledgement latency from the first rotation
 * to the end. The setups take turns run by run. Figures go to stdout and to
 * {@code it/target/proxy-reassignment-benchmark.txt}.
 */
@EnabledIfSystemProperty(named = "fastleader.benchmark", matches = "proxy")
class ProxyReassignmentBenchmark {

    private static final int RECORDS_PER_SECOND = 2000;
    private static final int RECORDS_PER_TICK = 10;
    private static final int REASSIGNMENTS = 3;
    private static final int PARTITIONS = 12;
    /** Records acknowledged before measuring, and between two rotations (one second's worth). */
    private static final int WARM_UP_RECORDS = 4 * RECORDS_PER_SECOND;
    private static final int RECORDS_BETWEEN_ROTATIONS = RECORDS_PER_SECOND;

    private record Setup(String name, KafkaTestCluster cluster, Disturbances disturbances, Map<String, Object> clientConfig) {
    }

    @Test
    void reassignmentLatencyWithAndWithoutTheFilterAndOnNativeBrokers() throws Exception {
        int runs = Integer.getInteger("fastleader.benchmark.runs", 3);
        try (KafkaTestCluster legacy = ClusterSpec.builder().release(KafkaRelease.LEGACY).start();
             Disturbances legacyDisturbances = new Disturbances(legacy);
             KroxyliciousProxy withFilter = KroxyliciousProxy.start(legacy, true);
             KroxyliciousProxy withoutFilter = KroxyliciousProxy.start(legacy, false);
             KafkaTestCluster current = ClusterSpec.builder().execution(Execution.CHILD_JVM).start();
             Disturbances currentDisturbances = new Disturbances(current)) {
            List<Setup> setups = List.of(
                new Setup("3.6.2 + proxy, filter on", legacy, legacyDisturbances, withFilter.clientConfig()),
                new Setup("3.6.2 + proxy, filter off", legacy, legacyDisturbances, withoutFilter.clientConfig()),
                new Setup("4.3.1 native, no proxy", current, currentDisturbances, current.clientConfig()));
            Map<String, List<Histogram>> results = new LinkedHashMap<>();
            for (int run = 1; run <= runs; run++) {
                for (int i = 0; i < setups.size(); i++) {
                    Setup setup = setups.get(i);
                    results.computeIfAbsent(setup.name(), name -> new ArrayList<>()).add(measure(setup, "bench-run" + run + "-setup" + i));
                }
            }
            report(results, runs);
        }
    }

    private static Histogram measure(Setup setup, String topic) throws Exception {
        setup.disturbances().createTopic(new NewTopic(topic, PARTITIONS, (short) 3).configs(Map.of("min.insync.replicas", "2")));
        Map<String, Object> config = new HashMap<>(setup.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // As in SteadyProducer: with five in flight, kafka-clients 4.3.1 was seen here (filter or
        // not) to retry a refused batch behind a later one and fail OUT_OF_ORDER_SEQUENCE until
        // the delivery timeout. One in flight keeps every setup measurable and comparable.
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        ConcurrentHistogram latencies = new ConcurrentHistogram(3);
        ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
        AtomicLong acked = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        // Records sent before this moment are warm-up and not measured.
        AtomicLong measureFrom = new AtomicLong(Long.MAX_VALUE);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "benchmark-producer"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            ticker.scheduleAtFixedRate(() -> {
                for (int i = 0; i < RECORDS_PER_TICK; i++) {
                    String value = Long.toString(sent.getAndIncrement());
                    long start = System.nanoTime();
                    producer.send(new ProducerRecord<>(topic, value, value), (metadata, exception) -> {
                        if (exception != null) {
                            failures.add(exception);
                            return;
                        }
                        if (start - measureFrom.get() >= 0) {
                            latencies.recordValue(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
                        }
                        acked.incrementAndGet();
                    });
                }
            }, 0, 1_000_000L * RECORDS_PER_TICK / RECORDS_PER_SECOND, TimeUnit.MICROSECONDS);
            awaitAcked(acked, WARM_UP_RECORDS);
            measureFrom.set(System.nanoTime());
            for (int i = 0; i < REASSIGNMENTS; i++) {
                setup.disturbances().rotateReplicas(topic);
                awaitAcked(acked, acked.get() + RECORDS_BETWEEN_ROTATIONS);
            }
            ticker.shutdown();
            assertThat(ticker.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            producer.flush();
        } finally {
            ticker.shutdownNow();
        }
        assertThat(failures).isEmpty();
        assertThat(acked.get()).isEqualTo(sent.get());
        return latencies;
    }

    private static void awaitAcked(AtomicLong acked, long target) {
        Await.until(target + " acknowledgements", Disturbances.TIMEOUT, () -> acked.get() >= target);
    }

    private static void report(Map<String, List<Histogram>> results, int runs) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append("Produce latency through ").append(REASSIGNMENTS).append(" reassignments of ").append(PARTITIONS)
            .append(" partitions, KafkaProducer 4.3.1, acks=all, max.in.flight 1, ").append(RECORDS_PER_SECOND).append(" records/s, ")
            .append(runs).append(" runs per setup (ms)\n");
        out.append(String.format("%-28s %4s %8s %8s %8s %8s %8s%n", "setup", "run", "records", "p50", "p99", "p99.9", "max"));
        Map<String, Histogram> merged = new LinkedHashMap<>();
        results.forEach((setup, histograms) -> {
            Histogram all = new Histogram(3);
            for (int run = 0; run < histograms.size(); run++) {
                Histogram histogram = histograms.get(run);
                all.add(histogram);
                out.append(row(setup, Integer.toString(run + 1), histogram));
            }
            merged.put(setup, all);
        });
        merged.forEach((setup, all) -> out.append(row(setup, "all", all)));
        List<String> names = new ArrayList<>(merged.keySet());
        double filterOn = p999(merged.get(names.get(0)));
        double filterOff = p999(merged.get(names.get(1)));
        double nativeBrokers = p999(merged.get(names.get(2)));
        out.append(String.format("p99.9 ratios (all runs): filter on / native = %.2f, filter off / native = %.2f, filter off / filter on = %.2f%n",
            filterOn / nativeBrokers, filterOff / nativeBrokers, filterOff / filterOn));
        System.out.print(out);
        Files.writeString(Path.of("target", "proxy-reassignment-benchmark.txt"), out);
    }

    private static String row(String setup, String run, Histogram histogram) {
        return String.format("%-28s %4s %8d %8.1f %8.1f %8.1f %8.1f%n", setup, run, histogram.getTotalCount(),
            histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
            p999(histogram), histogram.getMaxValue() / 1000.0);
    }

    private static double p999(Histogram histogram) {
        return histogram.getValueAtPercentile(99.9) / 1000.0;
    }
}
