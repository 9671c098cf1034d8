package io.fastleader.clients.producer;

import java.util.List;
import java.util.function.Consumer;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.producer.BatchTimeline.Stretch;

/**
 * The slow-batch log ({@code fastleader.slow.batch.log.ms}): when a batch ends, acknowledged or
 * failed, more than the threshold after its creation, one INFO line on the logger
 * {@value #LOGGER_NAME} says where its time went, phase by phase ({@link BatchTimeline}):
 *
 * <pre>
 * Slow batch orders-0 (1 records) took 361 ms: in-flight node 0 epoch 5 12 ms NOT_LEADER_OR_FOLLOWER, backoff 100 ms, metadata 240 ms, in-flight node 1 epoch 6 9 ms NONE
 * </pre>
 *
 * Each phase reads {@code <phase>[ node <id>][ epoch <e>] <ms> ms[ <outcome>]}, in the order they
 * happened; the durations add up to the total. Benchmarks parse this line: its shape is a contract.
 */
public final class SlowBatchLog {

    /** The logger the lines go to, apart from the producer's other logs so it can be routed on its own. */
    public static final String LOGGER_NAME = "io.fastleader.clients.producer.SlowBatches";
    /** The threshold that turns the log off, the default. */
    public static final long OFF = -1;

    private final long thresholdMs;
    private final Consumer<String> lines;

    /**
     * Logs to {@value #LOGGER_NAME} at INFO.
     *
     * @param thresholdMs a batch that took longer is logged; 0 logs every batch; {@link #OFF} none
     */
    public SlowBatchLog(long thresholdMs) {
        this(thresholdMs, LoggerFactory.getLogger(LOGGER_NAME)::info);
    }

    /**
     * Hands each line to {@code lines} instead of a logger.
     *
     * @param thresholdMs as for {@link #SlowBatchLog(long)}
     */
    public SlowBatchLog(long thresholdMs, Consumer<String> lines) {
        this.thresholdMs = thresholdMs;
        this.lines = lines;
    }

    /** Whether it logs at all: when not, batches need keep no {@link BatchTimeline}. */
    boolean isOn() {
        return thresholdMs != OFF;
    }

    /** The batch ended at {@code nowMs}: closes its timeline and logs it if it was slow. Sender thread only. */
    void ended(ProducerBatch batch, long nowMs) {
        if (!isOn()) {
            return;
        }
        BatchTimeline timeline = batch.timeline();
        timeline.ended(nowMs);
        long tookMs = nowMs - batch.createdMs();
        // 0 means every batch, also one that took under a millisecond of the producer's clock.
        if (tookMs > thresholdMs || thresholdMs == 0) {
            lines.accept(line(batch.topicPartition(), batch.recordCount(), tookMs, timeline.stretches()));
        }
    }

    /** The line for a batch of {@code records} records of {@code partition} that ended {@code tookMs} after its creation. */
    static String line(TopicPartition partition, int records, long tookMs, List<Stretch> stretches) {
        StringBuilder line = new StringBuilder(64 + 48 * stretches.size()).append("Slow batch ").append(partition)
                .append(" (").append(records).append(" records) took ").append(tookMs).append(" ms:");
        String separator = " ";
        for (Stretch stretch : stretches) {
            line.append(separator).append(stretch.phase().label());
            if (stretch.node() != BatchTimeline.NO_NODE) {
                line.append(" node ").append(stretch.node());
            }
            if (stretch.leaderEpoch() != BatchTimeline.NO_EPOCH) {
                line.append(" epoch ").append(stretch.leaderEpoch());
            }
            line.append(' ').append(stretch.durationMs()).append(" ms");
            if (stretch.outcome() != null) {
                line.append(' ').append(stretch.outcome());
            }
            separator = ", ";
        }
        return line.toString();
    }
}
