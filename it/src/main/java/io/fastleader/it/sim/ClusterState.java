package io.fastleader.it.sim;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

import io.fastleader.protocol.ErrorCode;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Everything a simulated cluster knows: its brokers' endpoints and status (running, stopped,
 * killed, fenced), its topics (by name and by id) and their partitions (leader, leader epoch,
 * replicas, ISR, log), whether refusals carry KIP-951 hints, and the next producer id. Every
 * method holds the one monitor of this object, so each request's effect and each command (a
 * topic created, a leader moved, a broker stopped) happens whole, in one order that every
 * connection sees; the handlers never touch the state otherwise.
 */
final class ClusterState {

    /** Where a broker listens. */
    record Endpoint(int brokerId, String host, int port) {
    }

    /** A partition's leadership and replicas at one moment, for Metadata answers and refusals. */
    record PartitionView(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr) {
    }

    /** A topic at one moment, partitions in index order; {@code partitions} is null for a topic that does not exist. */
    record TopicView(String name, Uuid topicId, List<PartitionView> partitions) {
    }

    /**
     * What one partition's Produce came to: {@code error} NONE with the base offset assigned, or a
     * refusal; {@code leader} is the partition's current leadership when there is one to name.
     */
    record AppendOutcome(ErrorCode error, long baseOffset, long highWatermark, Optional<PartitionView> leader) {
    }

    private static final class Partition {
        final int index;
        final List<Integer> replicas;
        int leader;
        int leaderEpoch;
        final PartitionLog log = new PartitionLog();

        Partition(int index, List<Integer> replicas) {
            this(index, replicas, replicas.get(0), 0);
        }

        Partition(int index, List<Integer> replicas, int leader, int leaderEpoch) {
            this.index = index;
            this.replicas = List.copyOf(replicas);
            this.leader = leader;
            this.leaderEpoch = leaderEpoch;
        }

        PartitionView view() {
            return new PartitionView(index, leader, leaderEpoch, replicas, replicas);
        }
    }

    private record Topic(String name, Uuid topicId, List<Partition> partitions) {
        TopicView view() {
            return new TopicView(name, topicId, partitions.stream().map(Partition::view).toList());
        }
    }

    /**
     * Where a broker is in its life: serving; stopped by a controlled shutdown (unlisted, leads
     * nothing); killed (listed and still leading, as the controller has not noticed yet); fenced
     * (a killed broker the controller has noticed: unlisted, leads nothing).
     */
    enum BrokerStatus { RUNNING, STOPPED, KILLED, FENCED }

    private final String clusterId;
    private final SortedMap<Integer, Endpoint> brokers = new TreeMap<>();
    private final Map<Integer, BrokerStatus> statuses = new HashMap<>();
    private final Map<String, Topic> topics = new LinkedHashMap<>();
    private final Map<Uuid, Topic> topicsById = new HashMap<>();
    private boolean hints;
    private long nextProducerId;
    private int nextLeaderSlot;

    ClusterState(String clusterId, boolean hints) {
        this.clusterId = clusterId;
        this.hints = hints;
    }

    String clusterId() {
        return clusterId;
    }

    synchronized void addBroker(Endpoint endpoint) {
        brokers.put(endpoint.brokerId(), endpoint);
        statuses.put(endpoint.brokerId(), BrokerStatus.RUNNING);
    }

    /** The brokers the controller counts as alive, as Metadata lists them: running, or killed and not yet noticed. */
    synchronized List<Endpoint> brokers() {
        return brokers.values().stream()
            .filter(e -> statuses.get(e.brokerId()) == BrokerStatus.RUNNING || statuses.get(e.brokerId()) == BrokerStatus.KILLED)
            .toList();
    }

    /** Every broker of the cluster, whatever its status. */
    synchronized List<Endpoint> allBrokers() {
        return List.copyOf(brokers.values());
    }

    synchronized BrokerStatus status(int brokerId) {
        BrokerStatus status = statuses.get(brokerId);
        if (status == null) {
            throw new IllegalArgumentException("no broker " + brokerId);
        }
        return status;
    }

    /**
     * A controlled shutdown of a running broker: each partition it leads moves to its next running
     * replica (epoch + 1; leader -1 when none runs), then the broker is unlisted.
     *
     * @return each moved partition's new leader epoch
     */
    synchronized Map<TopicPartition, Integer> stopBroker(int brokerId) {
        requireStatus(brokerId, BrokerStatus.RUNNING);
        Map<TopicPartition, Integer> epochs = electAwayFrom(brokerId);
        statuses.put(brokerId, BrokerStatus.STOPPED);
        return epochs;
    }

    /** A running broker dies: it stays listed and keeps leading until {@link #failOver}. */
    synchronized void killBroker(int brokerId) {
        requireStatus(brokerId, BrokerStatus.RUNNING);
        statuses.put(brokerId, BrokerStatus.KILLED);
    }

    /**
     * The controller notices a killed broker: each partition it leads moves to its next running
     * replica (epoch + 1; leader -1 when none runs), and the broker is unlisted.
     *
     * @return each moved partition's new leader epoch
     */
    synchronized Map<TopicPartition, Integer> failOver(int brokerId) {
        requireStatus(brokerId, BrokerStatus.KILLED);
        Map<TopicPartition, Integer> epochs = electAwayFrom(brokerId);
        statuses.put(brokerId, BrokerStatus.FENCED);
        return epochs;
    }

    /** A stopped, killed or fenced broker runs again: listed, a replica of what it was, leading what it still leads. */
    synchronized void startBroker(int brokerId) {
        if (status(brokerId) == BrokerStatus.RUNNING) {
            throw new IllegalStateException("broker " + brokerId + " is running");
        }
        statuses.put(brokerId, BrokerStatus.RUNNING);
    }

    private void requireStatus(int brokerId, BrokerStatus expected) {
        BrokerStatus status = status(brokerId);
        if (status != expected) {
            throw new IllegalStateException("broker " + brokerId + " is " + status + ", not " + expected);
        }
    }

    /** Moves every partition {@code brokerId} leads to the first running replica after it, in replica order. */
    private Map<TopicPartition, Integer> electAwayFrom(int brokerId) {
        Map<TopicPartition, Integer> epochs = new LinkedHashMap<>();
        for (Topic topic : topics.values()) {
            for (Partition partition : topic.partitions()) {
                if (partition.leader != brokerId) {
                    continue;
                }
                int at = partition.replicas.indexOf(brokerId);
                int next = -1;
                for (int step = 1; step < partition.replicas.size() && next < 0; step++) {
                    int candidate = partition.replicas.get((at + step) % partition.replicas.size());
                    if (statuses.get(candidate) == BrokerStatus.RUNNING) {
                        next = candidate;
                    }
                }
                partition.leader = next;
                partition.leaderEpoch++;
                epochs.put(new TopicPartition(topic.name(), partition.index), partition.leaderEpoch);
            }
        }
        return epochs;
    }

    /**
     * A copy of what Metadata answers from (brokers and their status, topics with their
     * partitions' leaders, epochs and replicas, no logs), frozen now, for a broker whose metadata
     * is stale.
     */
    synchronized ClusterState metadataSnapshot() {
        ClusterState snapshot = new ClusterState(clusterId, hints);
        snapshot.brokers.putAll(brokers);
        snapshot.statuses.putAll(statuses);
        for (Topic topic : topics.values()) {
            List<Partition> partitions = new ArrayList<>(topic.partitions().size());
            for (Partition p : topic.partitions()) {
                partitions.add(new Partition(p.index, p.replicas, p.leader, p.leaderEpoch));
            }
            Topic copy = new Topic(topic.name(), topic.topicId(), List.copyOf(partitions));
            snapshot.topics.put(copy.name(), copy);
            snapshot.topicsById.put(copy.topicId(), copy);
        }
        return snapshot;
    }

    synchronized Optional<Endpoint> broker(int brokerId) {
        return Optional.ofNullable(brokers.get(brokerId));
    }

    synchronized boolean hints() {
        return hints;
    }

    synchronized void hints(boolean on) {
        hints = on;
    }

    /**
     * Creates a topic whose partition {@code p} is led by the broker after the one that led the
     * previous partition created (round robin over the cluster, continuing across topics, as a
     * broker's placement spreads leaders), replicas following in broker order, epoch 0.
     */
    synchronized Uuid createTopic(String name, int partitionCount, int replicationFactor) {
        Objects.requireNonNull(name, "name");
        if (topics.containsKey(name)) {
            throw new IllegalArgumentException("topic " + name + " exists");
        }
        if (partitionCount < 1) {
            throw new IllegalArgumentException("a topic needs a partition, not " + partitionCount);
        }
        List<Integer> ids = new ArrayList<>(brokers.keySet());
        if (replicationFactor < 1 || replicationFactor > ids.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " on " + ids.size() + " brokers");
        }
        List<Partition> partitions = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            int first = nextLeaderSlot++ % ids.size();
            List<Integer> replicas = new ArrayList<>();
            for (int r = 0; r < replicationFactor; r++) {
                replicas.add(ids.get((first + r) % ids.size()));
            }
            partitions.add(new Partition(p, replicas));
        }
        Uuid topicId = Uuid.randomUuid();
        Topic topic = new Topic(name, topicId, List.copyOf(partitions));
        topics.put(name, topic);
        topicsById.put(topicId, topic);
        return topicId;
    }

    /**
     * Moves each partition's leadership to the broker named, bumping its leader epoch by one, all
     * at once (no request is served between two of these moves). Checked whole before any move.
     *
     * @return each partition's new leader epoch
     */
    synchronized Map<TopicPartition, Integer> moveLeaders(Map<TopicPartition, Integer> newLeaders) {
        Map<TopicPartition, Partition> checked = new LinkedHashMap<>();
        newLeaders.forEach((tp, leader) -> {
            Partition partition = partition(tp).orElseThrow(() -> new IllegalArgumentException("no partition " + tp));
            if (!partition.replicas.contains(leader)) {
                throw new IllegalArgumentException("broker " + leader + " is not a replica of " + tp + " " + partition.replicas);
            }
            if (statuses.get(leader) != BrokerStatus.RUNNING) {
                throw new IllegalArgumentException("broker " + leader + " is " + statuses.get(leader) + ": it cannot lead " + tp);
            }
            checked.put(tp, partition);
        });
        Map<TopicPartition, Integer> epochs = new LinkedHashMap<>();
        checked.forEach((tp, partition) -> {
            partition.leader = newLeaders.get(tp);
            partition.leaderEpoch++;
            epochs.put(tp, partition.leaderEpoch);
        });
        return epochs;
    }

    /** Each partition of {@code topic} mapped to the replica after its current leader. */
    synchronized Map<TopicPartition, Integer> nextReplicas(String topic) {
        Topic t = topic(topic);
        Map<TopicPartition, Integer> next = new LinkedHashMap<>();
        for (Partition p : t.partitions()) {
            int at = p.replicas.indexOf(p.leader);
            next.put(new TopicPartition(topic, p.index), p.replicas.get((at + 1) % p.replicas.size()));
        }
        return next;
    }

    /** The named topics that exist (all of them when {@code names} is null), and the names that do not. */
    synchronized List<TopicView> topics(Collection<String> names) {
        if (names == null) {
            return topics.values().stream().map(Topic::view).toList();
        }
        List<TopicView> views = new ArrayList<>();
        for (String name : names) {
            Topic topic = topics.get(name);
            views.add(topic == null ? new TopicView(name, Uuid.ZERO_UUID, null) : topic.view());
        }
        return views;
    }

    /** The topic with this id, if any. */
    synchronized Optional<TopicView> topic(Uuid topicId) {
        return Optional.ofNullable(topicsById.get(topicId)).map(Topic::view);
    }

    synchronized PartitionView partitionView(TopicPartition tp) {
        return partition(tp).orElseThrow(() -> new IllegalArgumentException("no partition " + tp)).view();
    }

    /**
     * A Produce of {@code records} to {@code tp} arriving at broker {@code brokerId}: appended
     * under the current leader epoch if that broker leads the partition, refused otherwise.
     */
    synchronized AppendOutcome append(int brokerId, TopicPartition tp, ByteBuffer records) {
        Optional<Partition> found = partition(tp);
        if (found.isEmpty()) {
            return new AppendOutcome(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, Optional.empty());
        }
        Partition partition = found.get();
        if (partition.leader != brokerId) {
            return new AppendOutcome(ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1, Optional.of(partition.view()));
        }
        if (records == null) {
            return new AppendOutcome(ErrorCode.CORRUPT_MESSAGE, -1, -1, Optional.empty());
        }
        try {
            PartitionLog.AppendResult result = partition.log.append(records, partition.leaderEpoch);
            return new AppendOutcome(result.error(), result.baseOffset(), partition.log.highWatermark(), Optional.empty());
        } catch (PartitionLog.InvalidBatchException e) {
            return new AppendOutcome(ErrorCode.CORRUPT_MESSAGE, -1, -1, Optional.empty());
        }
    }

    synchronized long nextProducerId() {
        return nextProducerId++;
    }

    synchronized List<LoggedRecord> records(TopicPartition tp) {
        return partition(tp).orElseThrow(() -> new IllegalArgumentException("no partition " + tp)).log.records();
    }

    synchronized long highWatermark(TopicPartition tp) {
        return partition(tp).orElseThrow(() -> new IllegalArgumentException("no partition " + tp)).log.highWatermark();
    }

    private Topic topic(String name) {
        Topic topic = topics.get(name);
        if (topic == null) {
            throw new IllegalArgumentException("no topic " + name);
        }
        return topic;
    }

    private Optional<Partition> partition(TopicPartition tp) {
        Topic topic = topics.get(tp.topic());
        if (topic == null || tp.partition() < 0 || tp.partition() >= topic.partitions().size()) {
            return Optional.empty();
        }
        return Optional.of(topic.partitions().get(tp.partition()));
    }
}
