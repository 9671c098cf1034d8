package io.fastleader.clients.metadata;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Percentile;
import org.apache.kafka.common.metrics.stats.Percentiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each leader move cost one kind of request (Produce or Fetch), measured for operators: from
 * the first refusal of a partition (a leadership error, or a request to its leader that went
 * unanswered) to the first answer without error from its new leadership (another broker, or the
 * same one at a newer leader epoch). A refusal followed by success at the very leadership refused
 * was no move, and costs nothing here.
 *
 * <p>Each recovery is recorded in the client's fastleader group as
 * {@code leader-move-recoveries-total}, {@code leader-move-recovery-time-ms-total} (both
 * cumulative, for rates and a long-run mean), and {@code leader-move-recovery-time-ms-avg/-max/-p50/-p99}
 * (over the client's metric sample window), and logged at INFO with the partition, the old and new
 * leader and epoch, how the move was followed (a KIP-951 hint or Metadata) and the recovery time.
 * During a roll hundreds of partitions move at once: at most {@value #LINES_PER_WINDOW} lines are
 * logged per {@value #WINDOW_MS} ms, and the next line logged says how many were left out.
 *
 * <p>Pure and clock-driven; owned by the one thread that handles the answers of its kind of request
 * (the producer's sender, the consumer's state owner).
 */
public final class LeaderMoveRecoveries {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderMoveRecoveries.class);
    static final int LINES_PER_WINDOW = 10;
    static final long WINDOW_MS = 10_000;
    /** Recoveries beyond this are recorded at this in the percentiles (they still count in max and total). */
    private static final double PERCENTILES_MAX_MS = 60_000;
    private static final int PERCENTILES_BYTES = 4_000;

    private final String requests;
    private final Sensor recoveries;
    private final Consumer<String> log;
    private final Map<TopicPartition, Refused> refused = new HashMap<>();
    private long windowEndMs = Long.MIN_VALUE;
    private int linesInWindow;
    private int linesLeftOut;

    /**
     * @param requests the kind of request measured, as log lines name it: {@code produce}, {@code fetch}
     * @param group    the client's fastleader metric group
     */
    public LeaderMoveRecoveries(String requests, Metrics metrics, String group) {
        this(requests, metrics, group, LOG::info);
    }

    LeaderMoveRecoveries(String requests, Metrics metrics, String group, Consumer<String> log) {
        this.requests = requests;
        this.log = log;
        String what = "from a partition's first refused " + requests + " to its first " + requests
                + " answered without error by its new leader";
        recoveries = metrics.sensor(group + ":leader-move-recovery-time");
        recoveries.add(metrics.metricName("leader-move-recoveries-total", group, "Leader moves recovered from, each timed "
                + what), new CumulativeCount());
        recoveries.add(metrics.metricName("leader-move-recovery-time-ms-total", group, "The total time in ms " + what),
                new CumulativeSum());
        recoveries.add(metrics.metricName("leader-move-recovery-time-ms-avg", group, "The average time in ms " + what),
                new Avg());
        recoveries.add(metrics.metricName("leader-move-recovery-time-ms-max", group, "The max time in ms " + what), new Max());
        recoveries.add(new Percentiles(PERCENTILES_BYTES, PERCENTILES_MAX_MS, Percentiles.BucketSizing.LINEAR,
                new Percentile(metrics.metricName("leader-move-recovery-time-ms-p50", group, "The median time in ms " + what), 50),
                new Percentile(metrics.metricName("leader-move-recovery-time-ms-p99", group, "The 99th percentile of the time in ms "
                        + what), 99)));
    }

    /**
     * The partition's request to {@code node}, sent at {@code leaderEpoch}, was refused for a
     * leadership reason or went unanswered. The first refusal starts the clock; a later one only
     * notes whether the move was followed from a hint.
     *
     * @param hinted whether the refusal named a new leader the client accepted (KIP-951)
     */
    public void refused(TopicPartition partition, int node, int leaderEpoch, boolean hinted, long nowMs) {
        Refused first = refused.get(partition);
        if (first == null) {
            refused.put(partition, new Refused(node, leaderEpoch, hinted, nowMs));
        } else if (hinted && !first.hinted) {
            refused.put(partition, new Refused(first.node, first.leaderEpoch, true, first.sinceMs));
        }
    }

    /** The partition's request to {@code node}, sent at {@code leaderEpoch}, was answered without error. */
    public void answered(TopicPartition partition, int node, int leaderEpoch, long nowMs) {
        if (refused.isEmpty()) {
            return;
        }
        Refused first = refused.remove(partition);
        if (first == null || (node == first.node && leaderEpoch <= first.leaderEpoch)) {
            return;
        }
        long recoveryMs = nowMs - first.sinceMs;
        // Timed by the client's monotonic clock, sampled by the metrics' own (wall) clock.
        recoveries.record(recoveryMs);
        logMove(partition, first, node, leaderEpoch, recoveryMs, nowMs);
    }

    /** Forgets a partition the client stopped using (unassigned, or its topic no longer produced to). */
    public void forget(TopicPartition partition) {
        refused.remove(partition);
    }

    private void logMove(TopicPartition partition, Refused first, int node, int leaderEpoch, long recoveryMs, long nowMs) {
        if (nowMs >= windowEndMs) {
            windowEndMs = nowMs + WINDOW_MS;
            linesInWindow = 0;
        }
        if (linesInWindow == LINES_PER_WINDOW) {
            linesLeftOut++;
            return;
        }
        linesInWindow++;
        String leftOut = linesLeftOut == 0 ? "" : " (" + linesLeftOut + " earlier leader moves not logged: at most "
                + LINES_PER_WINDOW + " lines per " + WINDOW_MS / 1000 + " s)";
        linesLeftOut = 0;
        log.accept("Leader of " + partition + " moved from broker " + first.node + " to " + node + " (leader epoch "
                + first.leaderEpoch + " to " + leaderEpoch + "), followed from " + (first.hinted ? "a KIP-951 hint" : "Metadata")
                + ": " + requests + " recovered in " + recoveryMs + " ms" + leftOut);
    }

    /** The first refusal of a move not yet recovered from. */
    private record Refused(int node, int leaderEpoch, boolean hinted, long sinceMs) {
    }
}
