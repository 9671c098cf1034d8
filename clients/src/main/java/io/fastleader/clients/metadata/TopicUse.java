package io.fastleader.clients.metadata;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The topics a client uses and when each was last used, for {@code metadata.max.idle.ms}: a topic
 * not used for that long is {@link #expire expired}, as {@code KafkaProducer} forgets a topic it
 * has stopped sending to, so that its metadata is no longer refreshed. The one record of which
 * topics are in use: {@link RefreshSchedule} asks it which to refresh periodically.
 *
 * <p>A producer notes a use for every record, so {@link #touch} reads no clock, takes no lock,
 * allocates nothing and, for a topic in steady use, writes nothing: it marks the topic used. Each
 * {@link #expire} pass, made before a Metadata request is planned (when {@code KafkaProducer}
 * checks too), turns a mark into a use at its own time. A topic's idle time therefore counts
 * from the first pass after its last use, at most one pass later than the use itself.
 *
 * <p>The owner serialises {@link #add}, {@link #remove} and {@link #expire}, so that a topic's
 * membership changes only together with its owner's other state; {@link #touch} never adds a topic.
 */
final class TopicUse {

    private final ConcurrentMap<String, Use> uses = new ConcurrentHashMap<>();
    private final long maxIdleMs;

    /** @param maxIdle how long a topic may go unused; {@link MetadataConfig#NO_IDLE_EXPIRY} keeps it until removed */
    TopicUse(Duration maxIdle) {
        this.maxIdleMs = maxIdle.toMillis();
    }

    /** Whether the topic is in use. */
    boolean contains(String topic) {
        return uses.containsKey(topic);
    }

    /** The topics in use, a copy. */
    Set<String> topics() {
        return Set.copyOf(uses.keySet());
    }

    /**
     * Notes a use of the topic.
     *
     * @return false, noting nothing, when the topic is not in use
     */
    boolean touch(String topic) {
        Use use = uses.get(topic);
        return use != null && use.mark();
    }

    /** Puts the topics in use, as used at {@code nowMs}. */
    void add(Collection<String> topics, long nowMs) {
        for (String topic : topics) {
            uses.put(topic, new Use(nowMs));
        }
    }

    /** Takes the topics out of use. */
    void remove(Collection<String> topics) {
        topics.forEach(uses::remove);
    }

    /**
     * Notes the topics marked used since the last pass as used at {@code nowMs}, then takes out of
     * use, and returns, those not used for the idle time.
     */
    Set<String> expire(long nowMs) {
        Set<String> idle = new TreeSet<>();
        uses.forEach((topic, use) -> {
            if (use.expireIfIdle(nowMs, maxIdleMs)) {
                uses.remove(topic, use);
                idle.add(topic);
            }
        });
        return idle;
    }

    /** One topic's use: the last pass that found it used, and whether it was used since. */
    private static final class Use {
        private static final int UNUSED_SINCE_PASS = 0;
        private static final int USED_SINCE_PASS = 1;
        /** Final: a mark that meets it fails, so a use racing the expiry is not noted for a topic no longer in use. */
        private static final int EXPIRED = 2;

        private final AtomicInteger state = new AtomicInteger(UNUSED_SINCE_PASS);
        /** Written by passes only, which the owner serialises. */
        private long lastUseMs;

        Use(long nowMs) {
            this.lastUseMs = nowMs;
        }

        /** Marks a use; false when the topic expired. */
        boolean mark() {
            int current = state.get();
            if (current == UNUSED_SINCE_PASS && !state.compareAndSet(UNUSED_SINCE_PASS, USED_SINCE_PASS)) {
                current = state.get();
            }
            return current != EXPIRED;
        }

        /** A pass at {@code nowMs}: takes in a mark, else expires the use once idle for {@code maxIdleMs}. */
        boolean expireIfIdle(long nowMs, long maxIdleMs) {
            if (state.compareAndSet(USED_SINCE_PASS, UNUSED_SINCE_PASS)) {
                lastUseMs = nowMs;
                return false;
            }
            // Fails if a use was marked meanwhile, which keeps the topic.
            return nowMs - lastUseMs >= maxIdleMs && state.compareAndSet(UNUSED_SINCE_PASS, EXPIRED);
        }
    }
}
