package io.fastleader.clients.metadata;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;

/**
 * The counts that show which path leader discovery took, registered in the client's
 * {@link Metrics} under the group {@value #GROUP}:
 * <ul>
 *   <li>{@code leader-hints-accepted-total};</li>
 *   <li>{@code leader-hints-rejected-total}, one per {@code reason} ({@link HintVerdict});</li>
 *   <li>{@code metadata-refreshes-total}, one per {@code cause} ({@link RefreshCause}); a refresh sent
 *       for several causes counts once under each;</li>
 *   <li>{@code metadata-requests-total}: every Metadata request sent, once whatever its causes, the
 *       refreshes and the requests of {@code listTopics} alike;</li>
 *   <li>{@code metadata-refresh-failures-total};</li>
 *   <li>{@code leader-moves-total}, one per {@code source} ({@code hint}, {@code metadata}): the
 *       partitions whose leader changed, counted once, under the source the client learned it from
 *       first (a Metadata response confirming a hint counts nothing).</li>
 * </ul>
 */
public final class MetadataMetrics {

    /** The metric group of every count here. */
    public static final String GROUP = "fastleader-metadata";

    private final Map<HintVerdict, Sensor> hints = new EnumMap<>(HintVerdict.class);
    private final Map<RefreshCause, Sensor> refreshes = new EnumMap<>(RefreshCause.class);
    private final Sensor refreshFailures;
    private final Sensor requests;
    private final Sensor movesFromHints;
    private final Sensor movesFromMetadata;

    /** Registers the counts in {@code metrics}. */
    public MetadataMetrics(Metrics metrics) {
        for (HintVerdict verdict : HintVerdict.values()) {
            MetricName name = verdict.isAccepted()
                    ? metrics.metricName("leader-hints-accepted-total", GROUP,
                            "Leader hints that advanced a partition's epoch")
                    : metrics.metricName("leader-hints-rejected-total", GROUP,
                            "Leader hints that could not be used, by reason", "reason", verdict.metricTag());
            hints.put(verdict, counter(metrics, name));
        }
        for (RefreshCause cause : RefreshCause.values()) {
            refreshes.put(cause, counter(metrics, metrics.metricName("metadata-refreshes-total", GROUP,
                    "Metadata requests sent, by cause", "cause", cause.metricTag())));
        }
        refreshFailures = counter(metrics, metrics.metricName("metadata-refresh-failures-total", GROUP,
                "Metadata requests that failed or went unanswered"));
        requests = counter(metrics, metrics.metricName("metadata-requests-total", GROUP,
                "Metadata requests sent, each counted once whatever its causes"));
        movesFromHints = counter(metrics, leaderMoves(metrics, "hint"));
        movesFromMetadata = counter(metrics, leaderMoves(metrics, "metadata"));
    }

    private static MetricName leaderMoves(Metrics metrics, String source) {
        return metrics.metricName("leader-moves-total", GROUP, "Partitions whose leader changed, by the source the client "
                + "learned it from first", "source", source);
    }

    /** Counts a response's verdicts, one record per verdict kind rather than per hint. */
    void record(Collection<HintVerdict> verdicts) {
        int[] counts = new int[HintVerdict.values().length];
        for (HintVerdict verdict : verdicts) {
            counts[verdict.ordinal()]++;
        }
        for (HintVerdict verdict : HintVerdict.values()) {
            if (counts[verdict.ordinal()] > 0) {
                hints.get(verdict).record(counts[verdict.ordinal()]);
            }
        }
    }

    void recordRefresh(RefreshCause cause) {
        refreshes.get(cause).record(1);
    }

    void recordRequest() {
        requests.record(1);
    }

    /** A partition's leader changed, learned from a hint or from Metadata. */
    void recordMove(boolean fromHint) {
        (fromHint ? movesFromHints : movesFromMetadata).record(1);
    }

    void recordRefreshFailure() {
        refreshFailures.record(1);
    }

    /** A total that each {@code record(n)} raises by n. */
    private static Sensor counter(Metrics metrics, MetricName name) {
        Sensor sensor = metrics.sensor(name.group() + ":" + name.name() + ":" + name.tags());
        sensor.add(name, new CumulativeSum());
        return sensor;
    }
}
