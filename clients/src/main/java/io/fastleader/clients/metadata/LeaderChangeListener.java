package io.fastleader.clients.metadata;

import org.apache.kafka.common.TopicPartition;

/**
 * Learns of every leader or leader-epoch change the {@link LeaderCache} makes, for work a change
 * calls for beyond a readiness check ({@link ReplicaPrewarm} connects to the partition's brokers).
 * Told on the executor it was registered with ({@link LeaderCache#addListener}), after the new value
 * is visible to readers. Registered with {@code Runnable::run}, it is told on the thread that wrote
 * the change, before the write wakes the loops waiting for one ({@link LeaderCache#wakeOnChange}):
 * only for a step that must come before them, which must be quick and must not block.
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
