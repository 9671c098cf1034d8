package io.fastleader.clients.producer;

import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.PartitionLeadership;

/**
 * The partition loads the adaptive partitioner weighs (KIP-794): each partition's queue length in
 * the accumulator at the sender's last pass, and whether its leader is available by
 * {@code partitioner.availability.timeout.ms}, as the sender found.
 */
final class QueueLoads implements StickyPartitioner.PartitionLoads {

    private final RecordAccumulator accumulator;
    private final LeaderCache cache;
    private final BrokerAvailability availability;

    QueueLoads(RecordAccumulator accumulator, LeaderCache cache, BrokerAvailability availability) {
        this.accumulator = accumulator;
        this.cache = cache;
        this.availability = availability;
    }

    @Override
    public int queueLength(String topic, int partition) {
        return accumulator.queueLoad(topic, partition);
    }

    @Override
    public boolean leaderAvailable(String topic, int partition) {
        if (!availability.isOn()) {
            return true;
        }
        PartitionLeadership leadership = cache.leadership(topic, partition);
        return leadership == null || !leadership.hasLeader() || availability.isAvailable(leadership.leaderId());
    }
}
