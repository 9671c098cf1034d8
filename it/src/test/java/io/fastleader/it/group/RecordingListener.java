package io.fastleader.it.group;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * A rebalance listener that writes each callback into {@code events} as {@code "assigned [t-0, t-1]"},
 * {@code "revoked [...]"} or {@code "lost [...]"}, partitions sorted, so that two clients' callbacks
 * compare as strings. {@code onPartitionsLost} is recorded only when {@code recordLost}; otherwise
 * it goes to {@code onPartitionsRevoked} as the interface's default does.
 */
public final class RecordingListener implements ConsumerRebalanceListener {

    private static final String EMPTY_ASSIGNMENT = "assigned []";

    private final List<String> events;
    private final boolean recordLost;

    public RecordingListener(List<String> events, boolean recordLost) {
        this.events = events;
        this.recordLost = recordLost;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        events.add("revoked " + sorted(partitions));
    }

    /**
     * An empty assignment followed at once by the member's partitions is dropped: the coordinator may answer a join with an
     * empty assignment before the one it computed for the member, which is its timing, not the client's (either
     * client tells the listener of both). An empty assignment with nothing after it is kept.
     */
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty() && !events.isEmpty() && events.get(events.size() - 1).equals(EMPTY_ASSIGNMENT)) {
            events.remove(events.size() - 1);
        }
        events.add("assigned " + sorted(partitions));
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        if (recordLost) {
            events.add("lost " + sorted(partitions));
        } else {
            onPartitionsRevoked(partitions);
        }
    }

    private static TreeSet<String> sorted(Collection<TopicPartition> partitions) {
        return new TreeSet<>(partitions.stream().map(TopicPartition::toString).toList());
    }
}
