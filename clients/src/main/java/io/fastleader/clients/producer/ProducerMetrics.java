package io.fastleader.clients.producer;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.metrics.stats.WindowedCount;
import org.apache.kafka.common.metrics.stats.WindowedSum;

import io.fastleader.clients.metadata.LeaderMoveRecoveries;
import io.fastleader.clients.network.NetworkMetrics;

/**
 * The producer's metrics, under the names, groups, descriptions and units the Java client uses.
 * In {@value #KAFKA_GROUP}: {@code record-send-rate/-total} and {@code records-per-request-avg}
 * (every record of every Produce request, retries included), {@code record-retry-rate/-total},
 * {@code record-error-rate/-total}, {@code record-size-avg/-max} (per batch, its largest record),
 * {@code record-queue-time-avg/-max}, {@code batch-size-avg/-max}, {@code compression-rate-avg},
 * {@code batch-split-rate/-total}, {@code request-latency-avg/-max} (Produce round trips),
 * {@code produce-throttle-time-avg/-max}, {@code requests-in-flight}, {@code metadata-age},
 * {@code buffer-total-bytes}, {@code buffer-available-bytes}, {@code bufferpool-wait-ratio},
 * {@code bufferpool-wait-time-ns-total}, {@code buffer-exhausted-rate/-total}, {@code waiting-threads},
 * {@code flush-time-ns-total} and {@code metadata-wait-time-ns-total}; the network ones come from
 * {@link NetworkMetrics}. In {@value #TOPIC_GROUP}, tagged {@code topic}, from the topic's first
 * batch sent: {@code record-send-rate/-total}, {@code byte-rate/-total}, {@code compression-rate},
 * {@code record-retry-rate/-total}, {@code record-error-rate/-total}. And fastleader's own in
 * {@value #FASTLEADER_GROUP}: {@code retry-backoffs-skipped-total}, the retries sent at once
 * because the partition's leader epoch advanced (KIP-951), and what each leader move cost the
 * producer ({@link LeaderMoveRecoveries}).
 */
public final class ProducerMetrics {

    /** The Java client's producer metric group. */
    public static final String KAFKA_GROUP = "producer-metrics";
    /** The Java client's per-topic producer metric group. */
    public static final String TOPIC_GROUP = "producer-topic-metrics";
    /** The Java client's per-broker producer metric group. */
    public static final String NODE_GROUP = "producer-node-metrics";
    /** fastleader's producer metric group. */
    public static final String FASTLEADER_GROUP = "fastleader-producer";

    private final Metrics metrics;
    private final Sensor recordsPerRequest;
    private final Sensor recordsRetried;
    private final Sensor recordErrors;
    private final Sensor recordSize;
    private final Sensor queueTime;
    private final Sensor batchSize;
    private final Sensor compressionRate;
    private final Sensor batchSplits;
    private final Sensor requestLatency;
    private final Sensor throttleTime;
    private final Sensor bufferWaitTime;
    private final Sensor buffersExhausted;
    private final Sensor flushTime;
    private final Sensor metadataWaitTime;
    private final Sensor backoffsSkipped;
    /** Each topic's sensors, by topic. */
    private final Map<String, TopicSensors> topics = new ConcurrentHashMap<>();
    private final LeaderMoveRecoveries produceMoves;
    private final Map<TransactionalCall, Sensor> transactionalCallTimes = new EnumMap<>(TransactionalCall.class);

    /** The transactional calls whose total time {@code KafkaProducer} reports, as {@code txn-<name>-time-ns-total}. */
    enum TransactionalCall {
        INIT("init", "initTransactions"),
        BEGIN("begin", "beginTransaction"),
        SEND_OFFSETS("send-offsets", "sendOffsetsToTransaction"),
        COMMIT("commit", "commitTransaction"),
        ABORT("abort", "abortTransaction");

        private final String metric;
        private final String method;

        TransactionalCall(String metric, String method) {
            this.metric = metric;
            this.method = method;
        }
    }

    /** Registers the metrics in {@code metrics}. */
    public ProducerMetrics(Metrics metrics) {
        this.metrics = metrics;
        recordsPerRequest = sensor("records-per-request");
        recordsPerRequest.add(meter("record-send", KAFKA_GROUP, Map.of(), "records sent"));
        recordsPerRequest.add(metrics.metricName("records-per-request-avg", KAFKA_GROUP, "The average number of records per request."),
                new Avg());
        recordsRetried = meterSensor("record-retries", "record-retry", "retried record sends");
        recordErrors = meterSensor("errors", "record-error", "record sends that resulted in errors");
        recordSize = avgMax("record-size", "record-size", "record size", "");
        queueTime = avgMax("queue-time", "record-queue-time", "time in ms record batches spent in the send buffer", ".");
        batchSize = avgMax("batch-size", "batch-size", "number of bytes sent per partition per-request", ".");
        compressionRate = sensor("compression-rate");
        compressionRate.add(metrics.metricName("compression-rate-avg", KAFKA_GROUP, "The average compression rate of record "
                + "batches, defined as the average ratio of the compressed batch size over the uncompressed size."), new Avg());
        batchSplits = meterSensor("batch-split-rate", "batch-split", "batch splits");
        requestLatency = avgMax("request-time", "request-latency", "request latency in ms", "");
        throttleTime = avgMax("produce-throttle-time", "produce-throttle-time", "time in ms a request was throttled by a broker", "");
        bufferWaitTime = sensor("bufferpool-wait-time");
        bufferWaitTime.add(metrics.metricName("bufferpool-wait-ratio", KAFKA_GROUP,
                "The fraction of time an appender waits for space allocation."), new Rate(TimeUnit.NANOSECONDS));
        bufferWaitTime.add(metrics.metricName("bufferpool-wait-time-ns-total", KAFKA_GROUP,
                "The total time in nanoseconds an appender waits for space allocation."), new CumulativeSum());
        buffersExhausted = sensor("buffer-exhausted-records");
        buffersExhausted.add(new Meter(new WindowedCount(),
                metrics.metricName("buffer-exhausted-rate", KAFKA_GROUP,
                        "The average per-second number of record sends that are dropped due to buffer exhaustion"),
                metrics.metricName("buffer-exhausted-total", KAFKA_GROUP,
                        "The total number of record sends that are dropped due to buffer exhaustion")));
        flushTime = nanosTotal("flush-time-ns-total", "Total time producer has spent in flush in nanoseconds.");
        metadataWaitTime = nanosTotal("metadata-wait-time-ns-total",
                "Total time producer has spent waiting on topic metadata in nanoseconds.");
        for (TransactionalCall call : TransactionalCall.values()) {
            transactionalCallTimes.put(call, nanosTotal("txn-" + call.metric + "-time-ns-total",
                    "Total time producer has spent in " + call.method + " in nanoseconds."));
        }
        backoffsSkipped = sensor("retry-backoffs-skipped");
        backoffsSkipped.add(metrics.metricName("retry-backoffs-skipped-total", FASTLEADER_GROUP,
                "Retries sent without backoff because the partition's leader epoch advanced"), new CumulativeCount());
        produceMoves = new LeaderMoveRecoveries("produce", metrics, FASTLEADER_GROUP);
    }

    /** What leader moves cost Produce requests; used on the sender's thread only. */
    LeaderMoveRecoveries produceMoves() {
        return produceMoves;
    }

    /**
     * Registers the gauges that read the producer's state: {@code requests-in-flight} from
     * {@code requestsInFlight} and {@code metadata-age} from {@code metadataAgeMs}.
     */
    void watch(IntSupplier requestsInFlight, LongSupplier metadataAgeMs) {
        gauge("requests-in-flight", "The current number of in-flight requests awaiting a response.",
                requestsInFlight::getAsInt);
        gauge("metadata-age", "The age in seconds of the current producer metadata being used.",
                () -> metadataAgeMs.getAsLong() / 1000.0);
    }

    /** Registers the gauges of {@code buffer.memory}: {@code buffer-total-bytes}, {@code buffer-available-bytes}, {@code waiting-threads}. */
    void watchBuffer(MemoryBudget memory) {
        gauge("buffer-total-bytes", "The maximum amount of buffer memory the client can use (whether or not it is currently used).",
                memory::totalBytes);
        gauge("buffer-available-bytes", "The total amount of buffer memory that is not being used (either unallocated or in the "
                + "free list).", memory::availableBytes);
        gauge("waiting-threads", "The number of user threads blocked waiting for buffer memory to enqueue their records",
                memory::waitingThreads);
    }

    /** One Produce request is sent to {@code batches}' leader, {@code nowMs} by the clock their creation times come from. */
    void requestSent(List<ProducerBatch> batches, long nowMs) {
        // One reading of the metrics' clock for the request, and no quota to check: producer sensors have none.
        long metricsNowMs = System.currentTimeMillis();
        int records = 0;
        for (ProducerBatch batch : batches) {
            String topic = batch.topicPartition().topic();
            double ratio = batch.compressionRatio();
            int bytes = batch.estimatedSizeBytes();
            TopicSensors topicSensors = topicSensors(topic);
            topicSensors.records().record(batch.recordCount(), metricsNowMs, false);
            topicSensors.bytes().record(bytes, metricsNowMs, false);
            topicSensors.compressionRate().record(ratio, metricsNowMs, false);
            if (batch.recordsSentBefore()) {
                recordsRetried.record(batch.recordCount(), metricsNowMs, false);
                topicSensors.retries().record(batch.recordCount(), metricsNowMs, false);
            }
            batchSize.record(bytes, metricsNowMs, false);
            queueTime.record(nowMs - batch.createdMs(), metricsNowMs, false);
            compressionRate.record(ratio, metricsNowMs, false);
            recordSize.record(batch.maxRecordBytes(), metricsNowMs, false);
            records += batch.recordCount();
        }
        recordsPerRequest.record(records, metricsNowMs, false);
    }

    void batchFailed(ProducerBatch batch) {
        recordErrors.record(batch.recordCount());
        topicSensors(batch.topicPartition().topic()).errors().record(batch.recordCount());
    }

    void batchSplit() {
        batchSplits.record();
    }

    /** A Produce request to node {@code node} was answered after {@code latencyMs}, throttled for {@code throttleTimeMs}. */
    void requestAnswered(int node, long latencyMs, int throttleTimeMs) {
        long metricsNowMs = System.currentTimeMillis();
        requestLatency.record(latencyMs, metricsNowMs, false);
        throttleTime.record(throttleTimeMs, metricsNowMs, false);
        Sensor nodeLatency = metrics.getSensor(NetworkMetrics.latencySensorName(node));
        if (nodeLatency != null) {
            nodeLatency.record(latencyMs, metricsNowMs, false);
        }
    }

    void backoffSkipped() {
        backoffsSkipped.record();
    }

    /** An append waited {@code nanos} for buffer memory, whether or not it got it. */
    void bufferWaited(long nanos) {
        bufferWaitTime.record(nanos);
    }

    /** An append gave up waiting for buffer memory: its record was dropped. */
    void bufferExhausted() {
        buffersExhausted.record();
    }

    void flushed(long nanos) {
        flushTime.record(nanos);
    }

    /** A transactional call returned normally after {@code nanos}; as in {@code KafkaProducer}, one that threw is not counted. */
    void transactionalCallTook(TransactionalCall call, long nanos) {
        transactionalCallTimes.get(call).record(nanos);
    }

    void metadataWaited(long nanos) {
        metadataWaitTime.record(nanos);
    }

    /** The topic's sensor {@code what}, with every topic metric registered at the topic's first use, as the Java client does. */
    /** The topic's sensors, registered with its first batch sent or failed; looked up by name once, not per batch. */
    private TopicSensors topicSensors(String topic) {
        return topics.computeIfAbsent(topic, this::lookUpTopic);
    }

    private TopicSensors lookUpTopic(String topic) {
        String prefix = "topic." + topic + ".";
        if (metrics.getSensor(prefix + "records-per-batch") == null) {
            registerTopic(topic, prefix);
        }
        return new TopicSensors(metrics.getSensor(prefix + "records-per-batch"), metrics.getSensor(prefix + "bytes"),
                metrics.getSensor(prefix + "compression-rate"), metrics.getSensor(prefix + "record-retries"),
                metrics.getSensor(prefix + "record-errors"));
    }

    /** One topic's {@code producer-topic-metrics} sensors. */
    private record TopicSensors(Sensor records, Sensor bytes, Sensor compressionRate, Sensor retries, Sensor errors) {
    }

    private void registerTopic(String topic, String prefix) {
        Map<String, String> tags = Map.of("topic", topic);
        metrics.sensor(prefix + "records-per-batch").add(meter("record-send", TOPIC_GROUP, tags, "records sent for a topic"));
        metrics.sensor(prefix + "bytes").add(meter("byte", TOPIC_GROUP, tags, "bytes sent for a topic"));
        metrics.sensor(prefix + "compression-rate").add(metrics.metricName("compression-rate", TOPIC_GROUP, "The average "
                + "compression rate of record batches for a topic, defined as the average ratio of the compressed batch size "
                + "over the uncompressed size.", tags), new Avg());
        metrics.sensor(prefix + "record-retries").add(meter("record-retry", TOPIC_GROUP, tags, "retried record sends for a topic"));
        metrics.sensor(prefix + "record-errors").add(meter("record-error", TOPIC_GROUP, tags,
                "record sends that resulted in errors for a topic"));
    }

    private Sensor sensor(String name) {
        return metrics.sensor("fastleader-producer:" + name);
    }

    /** A sensor whose {@code prefix-rate} and {@code prefix-total} in {@value #KAFKA_GROUP} add up what it records. */
    private Sensor meterSensor(String name, String prefix, String what) {
        Sensor sensor = sensor(name);
        sensor.add(meter(prefix, KAFKA_GROUP, Map.of(), what));
        return sensor;
    }

    private Meter meter(String prefix, String group, Map<String, String> tags, String what) {
        MetricName rate = metrics.metricName(prefix + "-rate", group, "The average per-second number of " + what, tags);
        MetricName total = metrics.metricName(prefix + "-total", group, "The total number of " + what, tags);
        return new Meter(new WindowedSum(), rate, total);
    }

    /** A sensor with {@code prefix-avg} and {@code prefix-max} in {@value #KAFKA_GROUP}. */
    private Sensor avgMax(String name, String prefix, String what, String end) {
        Sensor sensor = sensor(name);
        sensor.add(metrics.metricName(prefix + "-avg", KAFKA_GROUP, "The average " + what + end), new Avg());
        sensor.add(metrics.metricName(prefix + "-max", KAFKA_GROUP, "The maximum " + what + end), new Max());
        return sensor;
    }

    private Sensor nanosTotal(String name, String description) {
        Sensor sensor = sensor(name);
        sensor.add(metrics.metricName(name, KAFKA_GROUP, description), new CumulativeSum());
        return sensor;
    }

    private void gauge(String name, String description, DoubleSupplier value) {
        metrics.addMetric(metrics.metricName(name, KAFKA_GROUP, description), (Measurable) (config, now) -> value.getAsDouble());
    }
}
