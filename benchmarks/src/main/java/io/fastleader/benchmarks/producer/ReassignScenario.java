package io.fastleader.benchmarks.producer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.FixedRate;
import io.fastleader.benchmarks.common.Latency;
import io.fastleader.benchmarks.common.MetricTotals;
import io.fastleader.benchmarks.common.Payload;
import io.fastleader.benchmarks.common.SendCounts;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The {@code reassign} scenario, KIP-951's producer micro-benchmark scaled to one machine: every
 * client sends keyed records at a fixed rate (acks=all, linger.ms=0, {@code max.in.flight.requests.per.connection}
 * from the options, the rest at defaults) to its
 * own topic (replication factor 3, min.insync.replicas=2). After a warm-up, every partition's
 * replica list is rotated on every topic at once, which moves every partition's leader; this
 * repeats after a settle interval. Send-to-callback latency of each record sent after the warm-up
 * goes into the client's histogram.
 *
 * <p>The clients run at the same time, not one after another, so they meet the same leader moves
 * at the same moment on the same brokers under the same load; one after another, each would get
 * its own rotations, whose timing on a shared 2-core machine varies more than the clients differ.
 * Each has its own topic so that one client's retries cannot stall another's partitions.
 *
 * @param cluster      the brokers
 * @param disturbances creates the topics (and, for reassign, moves their leaders)
 * @param options      sizes and durations
 */
record ReassignScenario(KafkaTestCluster cluster, Disturbances disturbances, BenchmarkOptions options) {

    static final List<ClientVariant> CLIENTS = List.of(ClientVariant.FASTLEADER, ClientVariant.FASTLEADER_NO_HINTS, ClientVariant.KAFKA_CLIENTS);
    /** Metrics read after a run, by name, with their group; a client reports those it has. */
    private static final Map<String, String> REPORTED_METRICS = Map.of(
        "leader-hints-accepted-total", "fastleader-metadata",
        "retry-backoffs-skipped-total", "fastleader-producer",
        "record-retry-total", "producer-metrics",
        "record-error-total", "producer-metrics");

    /** Runs every client through the rotations. */
    ReassignResult run() throws Exception {
        List<ClientRun> runs = new ArrayList<>();
        List<Long> rotationMillis = new ArrayList<>();
        ExecutorService rotators = Executors.newFixedThreadPool(CLIENTS.size(), task -> new Thread(task, "benchmark-rotator"));
        try {
            for (ClientVariant client : CLIENTS) {
                String topic = "reassign-" + client.label();
                disturbances.createTopic(new NewTopic(topic, options.partitions(), (short) 3).configs(Map.of("min.insync.replicas", "2")));
                runs.add(new ClientRun(client, topic));
            }
            runs.forEach(ClientRun::start);
            Thread.sleep(options.reassignWarmUp().toMillis());
            long measureFrom = System.nanoTime();
            runs.forEach(run -> run.measureFrom.set(measureFrom));
            for (int rotation = 1; rotation <= options.rotations(); rotation++) {
                long start = System.nanoTime();
                List<Future<?>> done = new ArrayList<>();
                for (ClientRun run : runs) {
                    done.add(rotators.submit(() -> disturbances.rotateReplicas(run.topic)));
                }
                for (Future<?> future : done) {
                    future.get();
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                rotationMillis.add(millis);
                System.out.printf("reassign rotation %d of %d: every partition of %d topics has its new leader after %d ms%n",
                    rotation, options.rotations(), runs.size(), millis);
                Thread.sleep(options.settle().toMillis());
            }
            List<ReassignResult.ClientResult> results = new ArrayList<>();
            for (ClientRun run : runs) {
                results.add(run.finish());
            }
            return new ReassignResult(rotationMillis, results);
        } finally {
            rotators.shutdownNow();
            for (ClientRun run : runs) {
                run.close();
            }
        }
    }

    /** One client's producer, its sending thread and its figures. */
    private final class ClientRun implements AutoCloseable {

        private final ClientVariant client;
        private final String topic;
        private final Producer<byte[], byte[]> producer;
        private FixedRate ticker;
        private final ConcurrentHistogram latencyMicros = new ConcurrentHistogram(3);
        private final SendCounts counts = new SendCounts();
        /** Records sent before this {@code System.nanoTime()} are warm-up and not measured. */
        private final AtomicLong measureFrom = new AtomicLong(Long.MAX_VALUE);

        ClientRun(ClientVariant client, String topic) {
            this.client = client;
            this.topic = topic;
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, options.reassignInFlight());
            config.put(ProducerConfig.CLIENT_ID_CONFIG, "reassign-" + client.label());
            this.producer = client.producer(config);
        }

        void start() {
            byte[] value = Payload.value(options.reassignRecordBytes());
            ticker = FixedRate.start("benchmark-reassign-" + client.label(), options.rate(), () -> send(value));
        }

        private void send(byte[] value) {
            long start = System.nanoTime();
            counts.send(producer, new ProducerRecord<>(topic, Payload.key(counts.sent()), value), metadata -> {
                if (start - measureFrom.get() >= 0) {
                    latencyMicros.recordValue(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
                }
            });
        }

        /** Stops sending, waits for every record's answer and reads the figures. */
        ReassignResult.ClientResult finish() throws InterruptedException {
            ticker.stop();
            producer.flush();
            Histogram latencies = latencyMicros.copy();
            return new ReassignResult.ClientResult(client.label(), counts.sent(), counts.acked(), counts.failed(), counts.firstError(),
                Latency.of(latencies), reportedMetrics(producer));
        }

        @Override
        public void close() {
            if (ticker != null) {
                ticker.close();
            }
            producer.close();
        }
    }

    /**
     * The counters of {@link #REPORTED_METRICS} that {@code producer} has, by name: fastleader's
     * hint and backoff-skip counters, and the retry and error totals both clients keep.
     */
    static Map<String, Double> reportedMetrics(Producer<?, ?> producer) {
        Map<String, Double> values = new LinkedHashMap<>();
        REPORTED_METRICS.forEach((name, group) -> {
            Double total = MetricTotals.sum(producer.metrics(), group, name, tags -> tags.keySet().equals(Set.of("client-id")));
            if (total != null) {
                values.put(name, total);
            }
        });
        return values;
    }
}
