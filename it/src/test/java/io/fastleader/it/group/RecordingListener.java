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

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
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
