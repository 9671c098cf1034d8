package io.fastleader.benchmarks.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.MetricTotals;
import io.fastleader.benchmarks.common.Payload;
import io.fastleader.benchmarks.driver.NetworkClientRequestLog;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * One consumer variant: assigned every partition of the topic from its end, polling on a thread
 * of its own, noting for every record number when poll first returned it and how often, and
 * counting the requests it sends ({@link #counters()}).
 */
final class ConsumerRun {

    /** The request counts every variant reports, by API. */
    static final String FETCH = "Fetch";
    static final String METADATA = "Metadata";
    static final String OFFSETS_FOR_LEADER_EPOCH = "OffsetsForLeaderEpoch";
    static final List<String> REQUESTS = List.of(FETCH, METADATA, OFFSETS_FOR_LEADER_EPOCH);
    /** kafka-clients: every request its log showed, and every request its {@code request-total} metric counted. */
    static final String ALL_LOGGED = "requests sent: all APIs";
    static final String ALL_METRIC = "request-total (metric: all APIs)";

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration POSITION_TIMEOUT = Duration.ofSeconds(60);

    private final ClientVariant variant;
    private final String clientId;
    private final Consumer<byte[], byte[]> consumer;
    private final NetworkClientRequestLog requestLog;
    private final Thread thread;
    private volatile boolean stopping;
    /** Per record number: times poll returned it; when it first did (wall clock ms, and nanoTime); its CreateTime. */
    private final LongColumn receipts = new LongColumn();
    private final LongColumn firstPollMillis = new LongColumn();
    private final LongColumn firstPollNanos = new LongColumn();
    private final LongColumn createMillis = new LongColumn();
    private final AtomicLong consumed = new AtomicLong();
    private final AtomicLong distinct = new AtomicLong();
    private final AtomicLong foreign = new AtomicLong();
    private final AtomicLong slowestSinceAsked = new AtomicLong();
    private final AtomicLong pollErrors = new AtomicLong();
    private final AtomicReference<String> firstPollError = new AtomicReference<>();

    /**
     * Creates the consumer, assigns it every partition of {@code topic} and resolves each position
     * to the partition's end, so it reads exactly what is produced from now on.
     *
     * @param extraConfig consumer settings on top of the benchmark's own ({@code --consumer-config})
     * @param requestLog  counts kafka-clients' requests; unused for fastleader, which has metrics for them
     */
    ConsumerRun(ClientVariant variant, Map<String, Object> clusterConfig, Map<String, String> extraConfig, String topic, int partitions,
                NetworkClientRequestLog requestLog) {
        this.variant = variant;
        this.clientId = clientId(variant);
        this.requestLog = requestLog;
        Map<String, Object> config = new HashMap<>(clusterConfig);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        config.putAll(extraConfig);
        this.consumer = variant.consumer(config);
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assigned.add(new TopicPartition(topic, p));
        }
        consumer.assign(assigned);
        consumer.seekToEnd(assigned);
        assigned.forEach(partition -> consumer.position(partition, POSITION_TIMEOUT));
        this.thread = new Thread(this::pollUntilStopped, "benchmark-consumer-" + variant.label());
        if (requestLog.counts(clientId)) {
            // Without a group, KafkaConsumer sends every request from the thread that polls.
            requestLog.watch(thread);
        }
    }

    /** The {@code client.id} of {@code variant}'s consumer. */
    static String clientId(ClientVariant variant) {
        return "consumer-benchmark-" + variant.label();
    }

    ClientVariant variant() {
        return variant;
    }

    String clientId() {
        return clientId;
    }

    /** Starts polling. */
    void start() {
        thread.start();
    }

    private void pollUntilStopped() {
        while (!stopping) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                records = consumer.poll(POLL_TIMEOUT);
            } catch (WakeupException e) {
                continue;
            } catch (RuntimeException e) {
                pollErrors.incrementAndGet();
                if (firstPollError.compareAndSet(null, e.toString())) {
                    System.out.println(variant.label() + ": poll failed: " + e);
                }
                pause();
                continue;
            }
            long nowMillis = System.currentTimeMillis();
            long nowNanos = System.nanoTime();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                received(record, nowMillis, nowNanos);
            }
        }
    }

    private void received(ConsumerRecord<byte[], byte[]> record, long nowMillis, long nowNanos) {
        consumed.incrementAndGet();
        if (record.key() == null || record.key().length != Long.BYTES) {
            foreign.incrementAndGet();
            return;
        }
        long n = Payload.number(record.key());
        if (receipts.increment(n) == 0) {
            firstPollMillis.set(n, nowMillis);
            firstPollNanos.set(n, nowNanos);
            createMillis.set(n, record.timestamp());
            distinct.incrementAndGet();
            slowestSinceAsked.accumulateAndGet(nowMillis - record.timestamp(), Math::max);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Records poll returned, duplicates included. */
    long consumed() {
        return consumed.get();
    }

    /** Distinct record numbers poll returned. */
    long distinct() {
        return distinct.get();
    }

    /** Records without a record number for a key (none are produced). */
    long foreign() {
        return foreign.get();
    }

    /** The longest end-to-end latency (ms) of a record first returned since the last call. */
    long slowestSinceAsked() {
        return slowestSinceAsked.getAndSet(0);
    }

    /** Times poll returned record {@code n} (0 if never). */
    long receipts(long n) {
        long count = receipts.get(n);
        return count == LongColumn.NONE ? 0 : count;
    }

    /** When poll first returned record {@code n}, wall clock ms; {@link LongColumn#NONE} if never. */
    long firstPollMillis(long n) {
        return firstPollMillis.get(n);
    }

    /** When poll first returned record {@code n}, {@link System#nanoTime}; {@link LongColumn#NONE} if never. */
    long firstPollNanos(long n) {
        return firstPollNanos.get(n);
    }

    /** The CreateTime of record {@code n} as consumed; {@link LongColumn#NONE} if never consumed. */
    long createMillis(long n) {
        return createMillis.get(n);
    }

    long pollErrors() {
        return pollErrors.get();
    }

    String firstPollError() {
        return firstPollError.get();
    }

    /**
     * The request counts so far ({@link #REQUESTS}) and the client's leader-change counters, by
     * name. fastleader: its metrics ({@code fetch-total}, {@code metadata-requests-total},
     * {@code offset-validations-total}, and for reference {@code metadata-refreshes-total} summed
     * over its causes, {@code leader-hints-accepted-total}, {@code fetch-backoffs-skipped-total}).
     * kafka-clients: every request NetworkClient sent under this client id, by API and in all, from
     * its DEBUG log, and to check those against, its own {@code request-total} (every request
     * written, all APIs) and {@code fetch-total} (Fetch responses) metrics. Safe from any thread.
     */
    Map<String, Double> counters() {
        Map<MetricName, ? extends Metric> metrics = consumer.metrics();
        Map<String, Double> counters = new LinkedHashMap<>();
        if (variant.isFastLeader()) {
            put(counters, FETCH, MetricTotals.sum(metrics, "consumer-fetch-manager-metrics", "fetch-total"));
            put(counters, METADATA, MetricTotals.sum(metrics, "fastleader-metadata", "metadata-requests-total"));
            put(counters, OFFSETS_FOR_LEADER_EPOCH, MetricTotals.sum(metrics, "fastleader-consumer", "offset-validations-total"));
            put(counters, "metadata-refreshes-total (sum over causes)", MetricTotals.sum(metrics, "fastleader-metadata", "metadata-refreshes-total"));
            put(counters, "leader-hints-accepted-total", MetricTotals.sum(metrics, "fastleader-metadata", "leader-hints-accepted-total"));
            put(counters, "fetch-backoffs-skipped-total", MetricTotals.sum(metrics, "fastleader-consumer", "fetch-backoffs-skipped-total"));
        } else {
            // Read back to back, so that the check of the log against request-total compares one moment.
            Map<String, Long> sent = requestLog.counts(clientId) ? requestLog.sent(clientId) : null;
            Metric written = metrics.get(new MetricName("request-total", "consumer-metrics", "", Map.of("client-id", clientId)));
            Double requestTotal = written == null ? null : ((Number) written.metricValue()).doubleValue();
            if (sent != null) {
                counters.put(FETCH, (double) sent.getOrDefault("Fetch", 0L));
                counters.put(METADATA, (double) sent.getOrDefault("Metadata", 0L));
                counters.put(OFFSETS_FOR_LEADER_EPOCH, (double) sent.getOrDefault("OffsetForLeaderEpoch", 0L));
                sent.forEach((api, count) -> counters.put("requests sent: " + api, (double) count));
                counters.put(ALL_LOGGED, (double) sent.values().stream().mapToLong(Long::longValue).sum());
            }
            // kafka-clients' own totals, to check the log's counts against: every request written (all APIs), every Fetch answered.
            put(counters, ALL_METRIC, requestTotal);
            put(counters, "fetch-total (metric: Fetch responses)", MetricTotals.sum(metrics, "consumer-fetch-manager-metrics", "fetch-total"));
        }
        return counters;
    }

    private static void put(Map<String, Double> counters, String name, Double value) {
        if (value != null) {
            counters.put(name, value);
        }
    }

    /** Stops polling and waits for the polling thread to end; the consumer stays open for its metrics. */
    void stop() throws InterruptedException {
        stopping = true;
        consumer.wakeup();
        thread.join(Duration.ofSeconds(60).toMillis());
        if (thread.isAlive()) {
            throw new IllegalStateException(variant.label() + "'s polling thread did not stop within 60 s");
        }
    }

    /** Stops polling if it still is, and closes the consumer. */
    void close() throws InterruptedException {
        if (thread.isAlive()) {
            stop();
        }
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
    }
}
