package io.fastleader.clients.consumer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.Min;
import org.apache.kafka.common.metrics.stats.Value;
import org.apache.kafka.common.metrics.stats.WindowedCount;
import org.apache.kafka.common.metrics.stats.WindowedSum;
import org.apache.kafka.common.utils.Time;

import io.fastleader.clients.metadata.LeaderMoveRecoveries;
import io.fastleader.clients.network.NetworkMetrics;

/**
 * The consumer's metrics, under the names, groups, descriptions and units the Java client uses.
 * In {@value #KAFKA_GROUP}: {@code fetch-rate/-total}, {@code fetch-latency-avg/-max},
 * {@code fetch-throttle-time-avg/-max}; per Fetch response, once the application has taken or
 * dropped all of it, as {@code KafkaConsumer} counts them: {@code fetch-size-avg/-max},
 * {@code bytes-consumed-rate/-total} (record bytes as stored), {@code records-per-request-avg},
 * {@code records-consumed-rate/-total}, also per topic (tag {@code topic}: a dotted name is also
 * reported with underscores for dots, as kafka-clients 4.x does); whenever {@code poll}
 * hands out a partition's records: {@code records-lag-max} and {@code records-lead-min} over every
 * partition, and per partition (tags {@code topic}, {@code partition}) {@code records-lag},
 * {@code records-lag-avg}, {@code records-lag-max}, {@code records-lead}, {@code records-lead-avg},
 * {@code records-lead-min}; and per assigned partition {@code preferred-read-replica}, always -1
 * (every Fetch goes to the leader). In {@value #CLIENT_GROUP}: {@code last-poll-seconds-ago},
 * {@code time-between-poll-avg/-max}, {@code poll-idle-ratio-avg}, {@code commit-sync-time-ns-total},
 * {@code committed-time-ns-total}; the network ones come from {@link NetworkMetrics}. And
 * fastleader's own in {@value #FASTLEADER_GROUP}: {@code fetch-backoffs-skipped-total}
 * (partitions fetched again at once because their leader epoch advanced, KIP-951),
 * {@code fetch-ahead-of-leader-total} (partitions held back because their leader's high watermark
 * was behind the position), {@code truncations-detected-total}, {@code offset-validations-total} (OffsetsForLeaderEpoch
 * requests sent) and what each leader move cost the consumer's Fetches ({@link LeaderMoveRecoveries}).
 */
public final class ConsumerMetrics {

    /** The Java client's consumer-wide metric group, where its request counts are. */
    public static final String CLIENT_GROUP = "consumer-metrics";
    /** The Java client's per-broker consumer metric group. */
    public static final String NODE_GROUP = "consumer-node-metrics";
    /** The Java client's fetch metric group. */
    public static final String KAFKA_GROUP = "consumer-fetch-manager-metrics";
    /** fastleader's consumer metric group. */
    public static final String FASTLEADER_GROUP = "fastleader-consumer";

    /** No preferred read replica: every Fetch goes to the partition's leader. */
    private static final int READ_FROM_LEADER = -1;

    private final Metrics metrics;
    private final Time time;
    private final LeaderMoveRecoveries fetchMoves;
    private final Sensor fetches;
    private final Sensor fetchLatency;
    private final Sensor throttleTime;
    private final Sensor bytesFetched;
    private final Sensor recordsFetched;
    private final Sensor recordsLag;
    private final Sensor recordsLead;
    private final Sensor timeBetweenPolls;
    private final Sensor pollIdleRatio;
    private final Sensor commitSyncTime;
    private final Sensor committedTime;
    private final Sensor backoffsSkipped;
    private final Sensor aheadOfLeader;
    private final Sensor truncations;
    private final Sensor validations;
    private long lastPollStartMs = -1;
    private long lastPollStartNanos;
    private long timeBetweenPollsMs;

    /** Registers the metrics in {@code metrics}, which must keep time by {@code time}. */
    public ConsumerMetrics(Metrics metrics, Time time) {
        this.metrics = metrics;
        this.time = time;
        this.fetchMoves = new LeaderMoveRecoveries("fetch", metrics, FASTLEADER_GROUP);
        fetches = sensor("fetch");
        fetches.add(new Meter(new WindowedCount(), metrics.metricName("fetch-rate", KAFKA_GROUP, "The number of fetch requests per second."),
                metrics.metricName("fetch-total", KAFKA_GROUP, "The total number of fetch requests.")));
        fetchLatency = avgMax("fetch-latency", "fetch-latency", "The average time taken for a fetch request.",
                "The max time taken for any fetch request.");
        throttleTime = avgMax("fetch-throttle-time", "fetch-throttle-time", "The average throttle time in ms",
                "The maximum throttle time in ms");
        bytesFetched = bytesFetched(sensor("bytes-fetched"), Map.of());
        recordsFetched = recordsFetched(sensor("records-fetched"), Map.of());
        recordsLag = sensor("records-lag");
        recordsLag.add(metrics.metricName("records-lag-max", KAFKA_GROUP, "The maximum lag in terms of number of records for any "
                + "partition in this window. NOTE: This is based on current offset and not committed offset"), new Max());
        recordsLead = sensor("records-lead");
        recordsLead.add(metrics.metricName("records-lead-min", KAFKA_GROUP,
                "The minimum lead in terms of number of records for any partition in this window"), new Min());
        timeBetweenPolls = sensor("time-between-poll");
        timeBetweenPolls.add(metrics.metricName("time-between-poll-avg", CLIENT_GROUP,
                "The average delay between invocations of poll() in milliseconds."), new Avg());
        timeBetweenPolls.add(metrics.metricName("time-between-poll-max", CLIENT_GROUP,
                "The max delay between invocations of poll() in milliseconds."), new Max());
        pollIdleRatio = sensor("poll-idle-ratio");
        pollIdleRatio.add(metrics.metricName("poll-idle-ratio-avg", CLIENT_GROUP, "The average fraction of time the consumer's "
                + "poll() is idle as opposed to waiting for the user code to process records."), new Avg());
        metrics.addMetric(metrics.metricName("last-poll-seconds-ago", CLIENT_GROUP, "The number of seconds since the last poll() "
                + "invocation."), (Measurable) (config, nowMs) -> lastPollStartMs < 0 ? -1
                        : TimeUnit.MILLISECONDS.toSeconds(nowMs - lastPollStartMs));
        commitSyncTime = nanosTotal("commit-sync-time-ns-total", "The total time the consumer has spent in commitSync in nanoseconds");
        committedTime = nanosTotal("committed-time-ns-total", "The total time the consumer has spent in committed in nanoseconds");
        backoffsSkipped = counter("fetch-backoffs-skipped-total",
                "Partitions fetched again without backoff because their leader epoch advanced");
        aheadOfLeader = counter("fetch-ahead-of-leader-total",
                "Partitions held back from the next Fetch because their leader's high watermark was behind the position");
        truncations = counter("truncations-detected-total", "Positions found ahead of a truncated log");
        validations = counter("offset-validations-total", "OffsetsForLeaderEpoch requests sent to validate positions");
    }

    void fetchSent() {
        fetches.record();
    }

    /** A Fetch to node {@code node} was answered, or failed, after {@code latencyMs}. */
    void fetchAnswered(int node, long latencyMs) {
        fetchLatency.record(latencyMs);
        Sensor nodeLatency = metrics.getSensor(NetworkMetrics.latencySensorName(node));
        if (nodeLatency != null) {
            nodeLatency.record(latencyMs);
        }
    }

    void fetchThrottled(int throttleTimeMs) {
        throttleTime.record(throttleTimeMs);
    }

    /** The application has taken or dropped all of one Fetch response: {@code bytes} in {@code records} records of {@code topic}. */
    void topicFetched(String topic, long bytes, int records) {
        topicSensor(topic, "bytes-fetched", this::bytesFetched).record(bytes);
        topicSensor(topic, "records-fetched", this::recordsFetched).record(records);
    }

    /** The topic's sensor {@code name}, its metrics registered by {@code register} under each of the topic's tags at first use. */
    private Sensor topicSensor(String topic, String name, BiConsumer<Sensor, Map<String, String>> register) {
        String sensorName = "topic." + topic + "." + name;
        Sensor sensor = metrics.getSensor(sensorName);
        if (sensor == null) {
            sensor = metrics.sensor(sensorName);
            for (Map<String, String> tags : topicTags(topic)) {
                register.accept(sensor, tags);
            }
        }
        return sensor;
    }

    /** The totals of one Fetch response once the application has taken or dropped all of it. */
    void responseFetched(long bytes, int records) {
        bytesFetched.record(bytes);
        recordsFetched.record(records);
    }

    /** {@code poll} handed out records of {@code partition}, which now lags its high watermark (or last stable offset) by {@code lag}. */
    void lag(TopicPartition partition, long lag) {
        recordsLag.record(lag);
        partitionSensor(partition, "records-lag", "lag", true).record(lag);
    }

    /** {@code poll} handed out records of {@code partition}, whose position is now {@code lead} records past the log start. */
    void lead(TopicPartition partition, long lead) {
        recordsLead.record(lead);
        partitionSensor(partition, "records-lead", "lead", false).record(lead);
    }

    /** What leader moves cost Fetches; used on the consumer's thread only. */
    LeaderMoveRecoveries fetchMoves() {
        return fetchMoves;
    }

    /** The partition was assigned: its {@code preferred-read-replica} appears. */
    void assigned(TopicPartition partition) {
        for (Map<String, String> tags : partitionTags(partition)) {
            metrics.addMetricIfAbsent(preferredReadReplica(tags), null, (Measurable) (config, nowMs) -> READ_FROM_LEADER);
        }
    }

    /** The partition was unassigned: its metrics go, and a move it was refused for is no longer waited out. */
    void unassigned(TopicPartition partition) {
        fetchMoves.forget(partition);
        metrics.removeSensor(partition + ".records-lag");
        metrics.removeSensor(partition + ".records-lead");
        for (Map<String, String> tags : partitionTags(partition)) {
            metrics.removeMetric(preferredReadReplica(tags));
        }
    }

    /** {@code poll} was called; as in {@code KafkaConsumer}, the time since the previous call is measured from its start. */
    void pollStarted() {
        long nowMs = time.milliseconds();
        timeBetweenPollsMs = lastPollStartMs < 0 ? 0 : nowMs - lastPollStartMs;
        timeBetweenPolls.record(timeBetweenPollsMs);
        lastPollStartMs = nowMs;
        lastPollStartNanos = time.nanoseconds();
    }

    /** {@code poll} returns: the share of the time since the previous poll began that this one spent inside. */
    void pollEnded() {
        double pollMs = (time.nanoseconds() - lastPollStartNanos) / 1_000_000.0;
        pollIdleRatio.record(pollMs + timeBetweenPollsMs == 0 ? 1.0 : pollMs / (pollMs + timeBetweenPollsMs));
    }

    void commitSyncTook(long nanos) {
        commitSyncTime.record(nanos);
    }

    void committedTook(long nanos) {
        committedTime.record(nanos);
    }

    void backoffSkipped() {
        backoffsSkipped.record();
    }

    void aheadOfLeader() {
        aheadOfLeader.record();
    }

    void truncationDetected() {
        truncations.record();
    }

    void validationSent() {
        validations.record();
    }

    private Sensor bytesFetched(Sensor sensor, Map<String, String> tags) {
        if (taken("fetch-size-avg", tags)) {
            return sensor;
        }
        sensor.add(metrics.metricName("fetch-size-avg", KAFKA_GROUP, "The average number of bytes fetched per request", tags), new Avg());
        sensor.add(metrics.metricName("fetch-size-max", KAFKA_GROUP, "The maximum number of bytes fetched per request", tags), new Max());
        sensor.add(meter("bytes-consumed", tags, "bytes consumed"));
        return sensor;
    }

    private Sensor recordsFetched(Sensor sensor, Map<String, String> tags) {
        if (taken("records-per-request-avg", tags)) {
            return sensor;
        }
        sensor.add(metrics.metricName("records-per-request-avg", KAFKA_GROUP, "The average number of records in each request", tags),
                new Avg());
        sensor.add(meter("records-consumed", tags, "records consumed"));
        return sensor;
    }

    /** The partition's lag or lead sensor, made at its first record: the latest value, the average, and the max (lag) or min (lead). */
    private Sensor partitionSensor(TopicPartition partition, String name, String what, boolean worstIsMax) {
        String sensorName = partition + "." + name;
        Sensor sensor = metrics.getSensor(sensorName);
        if (sensor == null) {
            sensor = metrics.sensor(sensorName);
            for (Map<String, String> tags : partitionTags(partition)) {
                if (taken(name, tags)) {
                    continue;
                }
                sensor.add(metrics.metricName(name, KAFKA_GROUP, "The latest " + what + " of the partition", tags), new Value());
                sensor.add(metrics.metricName(name + "-avg", KAFKA_GROUP, "The average " + what + " of the partition", tags), new Avg());
                if (worstIsMax) {
                    sensor.add(metrics.metricName(name + "-max", KAFKA_GROUP, "The max " + what + " of the partition", tags), new Max());
                } else {
                    sensor.add(metrics.metricName(name + "-min", KAFKA_GROUP, "The min " + what + " of the partition", tags), new Min());
                }
            }
        }
        return sensor;
    }

    private MetricName preferredReadReplica(Map<String, String> tags) {
        return metrics.metricName("preferred-read-replica", KAFKA_GROUP,
                "The current read replica for the partition, or -1 if reading from leader", tags);
    }

    /**
     * The tags of a topic's metrics: its name, and for a name with dots, the name with its dots as
     * underscores too, as kafka-clients 4.x reports them (3.x: the underscores only), so dashboards
     * written for either release find them.
     */
    private static List<Map<String, String>> topicTags(String topic) {
        return topicNames(topic).stream().map(name -> Map.of("topic", name)).toList();
    }

    /** {@link #topicTags} with the partition, in kafka-clients' order, topic first: JMX names keep it, and exporters' rules match on it. */
    private static List<Map<String, String>> partitionTags(TopicPartition partition) {
        return topicNames(partition.topic()).stream().map(name -> {
            Map<String, String> tags = new LinkedHashMap<>();
            tags.put("topic", name);
            tags.put("partition", String.valueOf(partition.partition()));
            return tags;
        }).toList();
    }

    private static List<String> topicNames(String topic) {
        return topic.indexOf('.') < 0 ? List.of(topic) : List.of(topic, topic.replace('.', '_'));
    }

    /**
     * Whether the metric is registered already: the underscored tag of {@code a.b} is also the tag of
     * a topic named {@code a_b}, whose own metrics keep it.
     */
    private boolean taken(String name, Map<String, String> tags) {
        return metrics.metric(metrics.metricName(name, KAFKA_GROUP, tags)) != null;
    }

    private Sensor sensor(String name) {
        return metrics.sensor("fastleader-consumer:" + name);
    }

    private Sensor avgMax(String name, String prefix, String avgDescription, String maxDescription) {
        Sensor sensor = sensor(name);
        sensor.add(metrics.metricName(prefix + "-avg", KAFKA_GROUP, avgDescription), new Avg());
        sensor.add(metrics.metricName(prefix + "-max", KAFKA_GROUP, maxDescription), new Max());
        return sensor;
    }

    private Meter meter(String prefix, Map<String, String> tags, String what) {
        MetricName rate = metrics.metricName(prefix + "-rate", KAFKA_GROUP, "The average number of " + what + " per second", tags);
        MetricName total = metrics.metricName(prefix + "-total", KAFKA_GROUP, "The total number of " + what, tags);
        return new Meter(new WindowedSum(), rate, total);
    }

    private Sensor nanosTotal(String name, String description) {
        Sensor sensor = sensor(name);
        sensor.add(metrics.metricName(name, CLIENT_GROUP, description), new CumulativeSum());
        return sensor;
    }

    private Sensor counter(String name, String description) {
        Sensor sensor = sensor(name);
        sensor.add(metrics.metricName(name, FASTLEADER_GROUP, description), new CumulativeCount());
        return sensor;
    }
}
