package io.fastleader.clients.metadata;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The topics a client uses and when each was last used, for {@code metadata.max.idle.ms}: a topic
 * not used for that long is {@link #expire expired}, as {@code KafkaProducer} forgets a topic it
 * has stopped sending to, so that its metadata is no longer refreshed. The one record of which
 * topics are in use: {@link RefreshSchedule} asks it which to refresh periodically.
 *
 * <p>{@link #touch} takes no lock and allocates nothing, as a producer calls it for every record,
 * and writes only when the millisecond changed; it never adds a topic. The owner serialises
 * {@link #add}, {@link #remove} and {@link #expire}, so that a topic's membership changes only
 * together with its owner's other state.
 */
final class TopicUse {

    /** A last use's value once {@link #expire} took the topic out of use: a touch that meets it fails. */
    private static final long EXPIRED = Long.MIN_VALUE;

    private final ConcurrentMap<String, AtomicLong> lastUseMs = new ConcurrentHashMap<>();
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
        AtomicLong lastUse = lastUseMs.get(topic);
        if (lastUse == null) {
            return false;
        }
        while (true) {
            long lastMs = lastUse.get();
            if (lastMs == EXPIRED) {
                return false;
            }
            if (lastMs == nowMs || lastUse.compareAndSet(lastMs, nowMs)) {
                return true;
            }
        }
    }

    /** Puts the topics in use, as used at {@code nowMs}. */
    void add(Collection<String> topics, long nowMs) {
        for (String topic : topics) {
            lastUseMs.put(topic, new AtomicLong(nowMs));
        }
    }

    /** Takes the topics out of use. */
    void remove(Collection<String> topics) {
        topics.forEach(lastUseMs::remove);
    }

    /** Takes out of use, and returns, the topics not used for the idle time at {@code nowMs}. */
    Set<String> expire(long nowMs) {
        Set<String> idle = new TreeSet<>();
        lastUseMs.forEach((topic, lastUse) -> {
            long lastMs = lastUse.get();
            // Only if unchanged since read: a use noted meanwhile keeps the topic.
            if (nowMs - lastMs >= maxIdleMs && lastUse.compareAndSet(lastMs, EXPIRED)) {
                lastUseMs.remove(topic, lastUse);
                idle.add(topic);
            }
        });
        return idle;
    }
}
