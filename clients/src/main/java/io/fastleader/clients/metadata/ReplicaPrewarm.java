package io.fastleader.clients.metadata;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;

import io.fastleader.clients.network.ConnectionPool;

/**
 * Opens connections to the brokers hosting replicas of the partitions a client uses, ahead of
 * need and again whenever their leadership changes ({@code fastleader.connections.prewarm}), so a
 * leader move never waits for a TCP or TLS handshake: every connection the client uses to each
 * broker, a consumer's Fetch connection included ({@link ConnectionPool#connect}). {@link #start}
 * follows leadership changes and runs {@link #keepWarm} every {@code reconnect.backoff.ms}: a
 * broker that stopped closed its connections, and no leadership change tells the client it is
 * back, so without it the first request to a restarted broker given its leaderships back would
 * wait for the handshakes. The pool's reconnect backoff keeps those attempts as rare as Kafka's
 * own reconnects; a broker just made leader is connected to despite it
 * ({@link ConnectionPool#connectNow}), as its election says it is up, while the backoff grown
 * during its downtime could otherwise refuse requests to it for up to
 * {@code reconnect.backoff.max.ms}.
 *
 * <p>What a leadership change calls for, like {@link #keepWarm}, runs on the metadata thread, not on
 * the thread that wrote the cache (the metadata thread applying an answer, a producer's sender or a
 * consumer's polling thread applying hints): only the connect to a new leader is made in the write
 * itself ({@link #follow}). {@link #prewarmTopic} runs on its caller's thread.
 */
public final class ReplicaPrewarm {

    private final ConnectionPool pool;
    private final LeaderCache cache;
    private final Predicate<String> topicInUse;
    /** The topics prewarmed so far; those no longer in use are dropped by {@link #keepWarm}. */
    private final Set<String> topics = ConcurrentHashMap.newKeySet();

    ReplicaPrewarm(ConnectionPool pool, LeaderCache cache, Predicate<String> topicInUse) {
        this.pool = pool;
        this.cache = cache;
        this.topicInUse = topicInUse;
    }

    /**
     * Prewarms for a client until its metadata closes.
     *
     * @param topicInUse     whether the client uses a topic: only its partitions' brokers are connected to
     * @param keepWarmPeriod how often to reconnect brokers without a connection: {@code reconnect.backoff.ms}
     */
    public static ReplicaPrewarm start(ClusterMetadata metadata, ConnectionPool pool, Predicate<String> topicInUse,
                                       Duration keepWarmPeriod) {
        ReplicaPrewarm prewarm = new ReplicaPrewarm(pool, metadata.cache(), topicInUse);
        prewarm.follow(metadata.executor());
        metadata.every(keepWarmPeriod, prewarm::keepWarm);
        return prewarm;
    }

    /**
     * Follows the cache's leadership changes of the topics in use: the brokers of a changed
     * partition are connected to on {@code executor}. One step is taken in the write instead, as it
     * must come before the writing thread's next request: the new leader is connected to despite
     * its backoff ({@link ConnectionPool#connectNow}), a single call to the pool, which never
     * blocks. A sender that goes on to send to that leader, or that the write wakes to do so, then
     * waits for this connect instead of being refused by the backoff.
     */
    void follow(Executor executor) {
        cache.addListener(this::connectNewLeader, Runnable::run);
        cache.addListener(this::connectReplicas, executor);
    }

    /** Connects to the brokers of every partition of {@code topic} the cache knows. */
    public void prewarmTopic(String topic) {
        topics.add(topic);
        brokersOf(topic).forEach(pool::connect);
    }

    /**
     * Connects again to every broker of the topics in use that lacks a connection the client uses
     * (one open or opening is left as it is); one still backing off after a failed connect is left
     * alone (the pool fails the attempt at once).
     */
    public void keepWarm() {
        topics.removeIf(topic -> !topicInUse.test(topic));
        Set<Integer> nodes = new HashSet<>();
        topics.forEach(topic -> nodes.addAll(brokersOf(topic)));
        nodes.removeIf(pool::isReady);
        nodes.forEach(pool::connect);
    }

    /** In the write: see {@link #follow}. */
    private void connectNewLeader(TopicPartition partition, PartitionLeadership previous, PartitionLeadership current) {
        if (current.hasLeader() && topicInUse.test(partition.topic())) {
            pool.connectNow(current.leaderId());
        }
    }

    /** On the executor: the partition's other brokers, the leader being connected to in the write. */
    private void connectReplicas(TopicPartition partition, PartitionLeadership previous, PartitionLeadership current) {
        if (topicInUse.test(partition.topic())) {
            topics.add(partition.topic());
            // A broker that cannot be reached now is retried by keepWarm, or by the first request that needs it.
            Set<Integer> followers = brokersOf(current);
            if (current.hasLeader()) {
                followers.remove(current.leaderId());
            }
            followers.forEach(pool::connect);
        }
    }

    /** The brokers of every partition of {@code topic} the cache knows. */
    private Set<Integer> brokersOf(String topic) {
        Set<Integer> nodes = new HashSet<>();
        for (int index = 0; index < cache.partitionCount(topic); index++) {
            PartitionLeadership leadership = cache.leadership(topic, index);
            if (leadership != null) {
                nodes.addAll(brokersOf(leadership));
            }
        }
        return nodes;
    }

    private static Set<Integer> brokersOf(PartitionLeadership leadership) {
        Set<Integer> nodes = new HashSet<>(leadership.replicas());
        if (leadership.hasLeader()) {
            nodes.add(leadership.leaderId());
        }
        return nodes;
    }
}
