package io.fastleader.clients.metadata;

import org.apache.kafka.common.TopicPartition;

/**
 * Learns of every leader or leader-epoch change the {@link LeaderCache} makes, so the producer and
 * consumer can redirect work without polling the cache. Called on the thread that made the change,
 * after the new value is visible to readers; implementations must be quick and must not block.
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
