package io.fastleader.clients.consumer;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer's assigned partitions, each with its {@link PartitionState}: the one owner of
 * positions, pause state and what may be fetched, in the spirit of Kafka's
 * {@code SubscriptionState}. The {@link Fetcher}, the {@link PositionResolver} and the façade ask
 * it instead of sharing a map, and a partition that is reassigned gets a new state, so whatever
 * was under way for the old one is recognised as stale ({@link #isCurrent}).
 *
 * <p>Used on the consumer's thread only, except {@link #usesTopic}: metadata threads ask it, so it
 * reads an immutable snapshot.
 */
final class SubscriptionState {

    private final Map<TopicPartition, PartitionState> assigned = new LinkedHashMap<>();
    private volatile Set<String> topics = Set.of();

    /**
     * What an {@link #assign} changed.
     *
     * @param removed       partitions no longer assigned
     * @param added         partitions newly assigned
     * @param topicsDropped topics left without an assigned partition
     * @param topicsAdded   topics with an assigned partition for the first time
     */
    record Change(Set<TopicPartition> removed, Set<TopicPartition> added, Set<String> topicsDropped, Set<String> topicsAdded) {
    }

    /**
     * Assigns exactly {@code partitions}: those kept keep their state (position, pause), new ones
     * start {@linkplain PartitionState.Phase#INITIALIZING initializing}.
     */
    Change assign(Collection<TopicPartition> partitions) {
        Set<TopicPartition> wanted = new HashSet<>(partitions);
        Set<TopicPartition> removed = new HashSet<>();
        assigned.keySet().removeIf(partition -> !wanted.contains(partition) && removed.add(partition));
        Set<TopicPartition> added = new HashSet<>();
        for (TopicPartition partition : partitions) {
            if (!assigned.containsKey(partition)) {
                assigned.put(partition, new PartitionState(partition));
                added.add(partition);
            }
        }
        Set<String> now = new HashSet<>();
        assigned.keySet().forEach(partition -> now.add(partition.topic()));
        Set<String> dropped = new HashSet<>(topics);
        dropped.removeAll(now);
        Set<String> fresh = new HashSet<>(now);
        fresh.removeAll(topics);
        topics = Set.copyOf(now);
        return new Change(removed, added, dropped, fresh);
    }

    boolean isEmpty() {
        return assigned.isEmpty();
    }

    /** The assigned partitions, a copy. */
    Set<TopicPartition> partitions() {
        return new HashSet<>(assigned.keySet());
    }

    /** Every assigned partition's state, in assignment order; a view. */
    Collection<PartitionState> states() {
        return Collections.unmodifiableCollection(assigned.values());
    }

    /** The partition's state, or null if it is not assigned. */
    PartitionState state(TopicPartition partition) {
        return assigned.get(partition);
    }

    /**
     * The partition's state.
     *
     * @throws IllegalStateException if it is not assigned, with {@code KafkaConsumer}'s message
     */
    PartitionState assigned(TopicPartition partition) {
        PartitionState state = assigned.get(partition);
        if (state == null) {
            throw new IllegalStateException("No current assignment for partition " + partition);
        }
        return state;
    }

    /** Whether {@code state} is still its partition's: not unassigned since, nor reassigned afresh. */
    boolean isCurrent(PartitionState state) {
        return assigned.get(state.partition()) == state;
    }

    /** Whether a topic has an assigned partition. Safe on any thread. */
    boolean usesTopic(String topic) {
        return topics.contains(topic);
    }

    /** The paused partitions, a copy. */
    Set<TopicPartition> paused() {
        Set<TopicPartition> paused = new HashSet<>();
        assigned.values().stream().filter(PartitionState::isPaused).forEach(state -> paused.add(state.partition()));
        return paused;
    }

    /** What a commit of the current positions commits: every partition being fetched, at its position. */
    Map<TopicPartition, OffsetAndMetadata> positionsToCommit() {
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (PartitionState state : assigned.values()) {
            if (state.phase() == PartitionState.Phase.FETCHING) {
                FetchPosition position = state.position();
                positions.put(state.partition(), new OffsetAndMetadata(position.offset(), position.offsetEpoch(), ""));
            }
        }
        return positions;
    }
}
