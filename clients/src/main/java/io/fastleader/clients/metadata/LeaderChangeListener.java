package io.fastleader.clients.metadata;

import org.apache.kafka.common.TopicPartition;

/**
 * Learns of every leader or leader-epoch change the {@link LeaderCache} makes, for work a change
 * calls for beyond a readiness check ({@link ReplicaPrewarm} connects to the new leader). Told on
 * the executor it was registered with ({@link LeaderCache#addListener}), after the new value is
 * visible to readers, never on the thread that wrote it.
 */
@FunctionalInterface
public interface LeaderChangeListener {

    /**
     * @param partition the partition whose leadership changed
     * @param previous  what the cache held before, null if the partition was new to it
     * @param current   what it holds now
     */
    void onLeaderChange(TopicPartition partition, PartitionLeadership previous, PartitionLeadership current);
}
