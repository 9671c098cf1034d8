package io.fastleader.clients.metadata;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The topics a client uses and when each was last used, for {@code metadata.max.idle.ms}: a topic
 * not used for that long is {@link #expire expired}, as {@code KafkaProducer} forgets a topic it
 * has stopped sending to, so that its metadata is no longer refreshed. The one record of which
 * topics are in use: {@link RefreshSchedule} asks it which to refresh periodically.
 *
 * <p>{@link #touch} takes no lock, as a producer calls it for every record, and never adds a topic;
 * the owner serialises {@link #add}, {@link #remove} and {@link #expire}, so that a topic's
 * membership changes only together with its owner's other state.
 */
final class TopicUse {

    private final ConcurrentMap<String, Long> lastUseMs = new ConcurrentHashMap<>();
    private final long maxIdleMs;

    /** @param maxIdle how long a topic may go unused; {@link MetadataConfig#NO_IDLE_EXPIRY} keeps it until removed */
    TopicUse(Duration maxIdle) {
        this.maxIdleMs = maxIdle.toMillis();
    }

    /** Whether the topic is in use. */
    boolean contains(String topic) {
        return lastUseMs.containsKey(topic);
    }

    /** The topics in use, a copy. */
    Set<String> topics() {
        return Set.copyOf(lastUseMs.keySet());
    }

    /**
     * Notes a use of the topic at {@code nowMs}.
     *
     * @return false, noting nothing, when the topic is not in use
     */
    boolean touch(String topic, long nowMs) {
        return lastUseMs.replace(topic, nowMs) != null;
    }

    /** Puts the topics in use, as used at {@code nowMs}. */
    void add(Collection<String> topics, long nowMs) {
        for (String topic : topics) {
            lastUseMs.put(topic, nowMs);
        }
    }

    /** Takes the topics out of use. */
    void remove(Collection<String> topics) {
        topics.forEach(lastUseMs::remove);
    }

    /** Takes out of use, and returns, the topics not used for the idle time at {@code nowMs}. */
    Set<String> expire(long nowMs) {
        Set<String> idle = new TreeSet<>();
        lastUseMs.forEach((topic, lastMs) -> {
            // Only if unchanged since read: a use noted meanwhile keeps the topic.
            if (nowMs - lastMs >= maxIdleMs && lastUseMs.remove(topic, lastMs)) {
                idle.add(topic);
            }
        });
        return idle;
    }
}
