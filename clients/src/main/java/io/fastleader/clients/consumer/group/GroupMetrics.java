package io.fastleader.clients.consumer.group;

import java.util.concurrent.TimeUnit;

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
import org.apache.kafka.common.utils.Time;

import io.fastleader.protocol.ErrorCode;

/**
 * A consumer's group metrics, in {@value #GROUP} under the names, descriptions and units
 * {@code KafkaConsumer} 4.3 uses for a member of a consumer-protocol group: {@code assigned-partitions};
 * {@code commit-latency-avg/-max}, {@code commit-rate/-total} (per commit call: sync, async and
 * automatic); {@code heartbeat-rate/-total}, {@code heartbeat-response-time-max},
 * {@code last-heartbeat-seconds-ago}; {@code rebalance-latency-avg/-max/-total},
 * {@code rebalance-total}, {@code rebalance-rate-per-hour}, {@code last-rebalance-seconds-ago}
 * (a rebalance runs from a new target assignment to its reconciliation),
 * {@code failed-rebalance-total}, {@code failed-rebalance-rate-per-hour} (partitions lost to fencing
 * or an expired poll timer; a classic member counts instead every JoinGroup and SyncGroup that
 * failed, as {@code KafkaConsumer}'s classic coordinator does, the first join's MEMBER_ID_REQUIRED
 * included); {@code partition-revoked/-assigned/-lost-latency-avg/-max} (the
 * application's listener callbacks, recorded only when it gave a listener). Registered whenever a
 * {@code group.id} is configured, as {@code KafkaConsumer} does; a classic member adds
 * {@link ClassicExchanges}' metrics. Thread-safe.
 */
final class GroupMetrics {

    /** The Java client's group metric group. */
    static final String GROUP = "consumer-coordinator-metrics";
    private static final long NEVER = -1;

    private final Metrics metrics;
    private final Time time;
    private final Sensor commits;
    private final Sensor heartbeats;
    private final Sensor rebalances;
    private final Sensor failedRebalances;
    private final Sensor revokedCallbacks;
    private final Sensor assignedCallbacks;
    private final Sensor lostCallbacks;
    private volatile int assignedPartitions;
    private volatile long lastHeartbeatMs = NEVER;
    private volatile long lastRebalanceMs = NEVER;

    /** Registers the metrics in {@code metrics}, which must keep time by {@code time}. */
    GroupMetrics(Metrics metrics, Time time) {
        this.metrics = metrics;
        this.time = time;
        metrics.addMetric(metrics.metricName("assigned-partitions", GROUP, "The number of partitions currently assigned to this consumer"),
                (Measurable) (config, nowMs) -> assignedPartitions);
        commits = metrics.sensor("commit-latency");
        commits.add(metrics.metricName("commit-latency-avg", GROUP, "The average time taken for a commit request"), new Avg());
        commits.add(metrics.metricName("commit-latency-max", GROUP, "The max time taken for a commit request"), new Max());
        commits.add(new Meter(new WindowedCount(), metrics.metricName("commit-rate", GROUP, "The number of commit calls per second"),
                metrics.metricName("commit-total", GROUP, "The total number of commit calls")));
        heartbeats = metrics.sensor("heartbeat-latency");
        heartbeats.add(metrics.metricName("heartbeat-response-time-max", GROUP,
                "The max time taken to receive a response to a heartbeat request"), new Max());
        heartbeats.add(new Meter(new WindowedCount(), metrics.metricName("heartbeat-rate", GROUP, "The number of heartbeats per second"),
                metrics.metricName("heartbeat-total", GROUP, "The total number of heartbeats")));
        metrics.addMetric(metrics.metricName("last-heartbeat-seconds-ago", GROUP,
                "The number of seconds since the last coordinator heartbeat was sent"), secondsSince(() -> lastHeartbeatMs));
        rebalances = metrics.sensor("rebalance-latency");
        rebalances.add(metrics.metricName("rebalance-latency-avg", GROUP, "The average time in ms taken for a group to complete a rebalance"),
                new Avg());
        rebalances.add(metrics.metricName("rebalance-latency-max", GROUP, "The max time in ms taken for a group to complete a rebalance"),
                new Max());
        rebalances.add(metrics.metricName("rebalance-latency-total", GROUP, "The total number of milliseconds spent in rebalances"),
                new CumulativeSum());
        rebalances.add(metrics.metricName("rebalance-total", GROUP, "The total number of rebalance events"), new CumulativeCount());
        rebalances.add(metrics.metricName("rebalance-rate-per-hour", GROUP, "The number of rebalance events per hour"),
                new Rate(TimeUnit.HOURS, new WindowedCount()));
        metrics.addMetric(metrics.metricName("last-rebalance-seconds-ago", GROUP, "The number of seconds since the last rebalance event"),
                secondsSince(() -> lastRebalanceMs));
        failedRebalances = metrics.sensor("failed-rebalance");
        failedRebalances.add(metrics.metricName("failed-rebalance-total", GROUP, "The total number of failed rebalance events"),
                new CumulativeCount());
        failedRebalances.add(metrics.metricName("failed-rebalance-rate-per-hour", GROUP, "The number of failed rebalance events per hour"),
                new Rate(TimeUnit.HOURS, new WindowedCount()));
        revokedCallbacks = callbackLatency("partition-revoked");
        assignedCallbacks = callbackLatency("partition-assigned");
        lostCallbacks = callbackLatency("partition-lost");
    }

    /**
     * Registers the metrics of a classic member's JoinGroup and SyncGroup, which
     * {@code KafkaConsumer} reports under the classic protocol only: {@code join-time-avg/-max},
     * {@code join-rate/-total}, {@code sync-time-avg/-max}, {@code sync-rate/-total}. Called once,
     * by the classic member.
     */
    ClassicExchanges classicExchanges() {
        return new ClassicExchanges(exchangeLatency("join", "group rejoin", "group joins"),
                exchangeLatency("sync", "group sync", "group syncs"), failedRebalances);
    }

    private Sensor exchangeLatency(String metric, String one, String many) {
        Sensor sensor = metrics.sensor(metric + "-latency");
        sensor.add(metrics.metricName(metric + "-time-avg", GROUP, "The average time taken for a " + one), new Avg());
        sensor.add(metrics.metricName(metric + "-time-max", GROUP, "The max time taken for a " + one), new Max());
        sensor.add(new Meter(new WindowedCount(), metrics.metricName(metric + "-rate", GROUP, "The number of " + many + " per second"),
                metrics.metricName(metric + "-total", GROUP, "The total number of " + many)));
        return sensor;
    }

    /**
     * A classic member's JoinGroup and SyncGroup, counted as {@code KafkaConsumer}'s classic
     * coordinator counts them: the round trip of each answered without error, a failed rebalance
     * for each answered with an error or not answered.
     */
    static final class ClassicExchanges {

        private final Sensor joins;
        private final Sensor syncs;
        private final Sensor failedRebalances;

        private ClassicExchanges(Sensor joins, Sensor syncs, Sensor failedRebalances) {
            this.joins = joins;
            this.syncs = syncs;
            this.failedRebalances = failedRebalances;
        }

        void joinAnswered(short errorCode, long latencyMs) {
            answered(joins, errorCode, latencyMs);
        }

        void syncAnswered(short errorCode, long latencyMs) {
            answered(syncs, errorCode, latencyMs);
        }

        void unanswered() {
            failedRebalances.record();
        }

        private void answered(Sensor roundTrips, short errorCode, long latencyMs) {
            if (errorCode == ErrorCode.NONE.code()) {
                roundTrips.record(latencyMs);
            } else {
                failedRebalances.record();
            }
        }
    }

    private Sensor callbackLatency(String callback) {
        Sensor sensor = metrics.sensor(callback + "-latency");
        sensor.add(metrics.metricName(callback + "-latency-avg", GROUP, "The average time taken for a " + callback
                + " rebalance listener callback"), new Avg());
        sensor.add(metrics.metricName(callback + "-latency-max", GROUP, "The max time taken for a " + callback
                + " rebalance listener callback"), new Max());
        return sensor;
    }

    private static Measurable secondsSince(java.util.function.LongSupplier lastMs) {
        return (config, nowMs) -> {
            long last = lastMs.getAsLong();
            return last == NEVER ? NEVER : TimeUnit.MILLISECONDS.toSeconds(nowMs - last);
        };
    }

    void assignedPartitions(int count) {
        assignedPartitions = count;
    }

    void commitAnswered(long latencyMs) {
        commits.record(latencyMs);
    }

    void heartbeatSent() {
        lastHeartbeatMs = time.milliseconds();
    }

    void heartbeatAnswered(long latencyMs) {
        heartbeats.record(latencyMs);
    }

    /** A rebalance ended: the assignment that arrived {@code latencyMs} ago is reconciled. */
    void rebalanced(long latencyMs) {
        rebalances.record(latencyMs);
        lastRebalanceMs = time.milliseconds();
    }

    /** The member lost its partitions: fenced, or left for an expired poll timer. */
    void rebalanceFailed() {
        failedRebalances.record();
    }

    void revokedCallback(long latencyMs) {
        revokedCallbacks.record(latencyMs);
    }

    void assignedCallback(long latencyMs) {
        assignedCallbacks.record(latencyMs);
    }

    void lostCallback(long latencyMs) {
        lostCallbacks.record(latencyMs);
    }
}
