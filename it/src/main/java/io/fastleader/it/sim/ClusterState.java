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
import java.util.function.Consumer;

import io.fastleader.protocol.ErrorCode;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Everything a simulated cluster knows: its brokers' endpoints and status (running, stopped,
 * killed, fenced), its topics (by name and by id, with their own settings) and their partitions (leader, leader epoch,
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

    /**
     * What one partition's Fetch came to: {@code error} NONE with the high watermark and the
     * batches read (possibly none), or a refusal with nothing read; {@code leader} is the
     * partition's current leadership when the refusal is one that names it.
     */
    record FetchOutcome(ErrorCode error, long highWatermark, ByteBuffer records, Optional<PartitionView> leader) {
        static FetchOutcome refused(ErrorCode error, Optional<PartitionView> leader) {
            return new FetchOutcome(error, -1, ByteBuffer.allocate(0), leader);
        }
    }

    /** What one partition's ListOffsets came to: {@code error} NONE with what was found (-1s for nothing), or a refusal. */
    record ListOffsetsOutcome(ErrorCode error, long timestamp, long offset, int leaderEpoch) {
        static final ListOffsetsOutcome NOTHING = new ListOffsetsOutcome(ErrorCode.NONE, -1, -1, -1);

        static ListOffsetsOutcome refused(ErrorCode error) {
            return new ListOffsetsOutcome(error, -1, -1, -1);
        }
    }

    /** What one partition's OffsetForLeaderEpoch came to: {@code error} NONE with the epoch's end, or a refusal. */
    record EpochEndOutcome(ErrorCode error, PartitionLog.EpochEnd end) {
    }

    /** ListOffsets' codes for the first offset and for the high watermark. */
    static final long EARLIEST_TIMESTAMP = -2;
    static final long LATEST_TIMESTAMP = -1;
    /** ListOffsets' code for the record with the largest timestamp (KIP-734). */
    static final long MAX_TIMESTAMP = -3;
    /** ListOffsets' code for the first offset on local storage (KIP-405): the first offset, nothing being tiered. */
    static final long EARLIEST_LOCAL_TIMESTAMP = -4;

    private static final class Partition {
        final int index;
        List<Integer> replicas;
        int leader;
        int leaderEpoch;
        final PartitionLog log = new PartitionLog();

        Partition(int index, List<Integer> replicas, int leader, int leaderEpoch) {
            this.index = index;
            this.replicas = List.copyOf(replicas);
            this.leader = leader;
            this.leaderEpoch = leaderEpoch;
            log.startLeaderEpoch(leaderEpoch);
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
    /** Each topic's own settings, as given at creation; a topic without any has no entry. */
    private final Map<String, Map<String, String>> topicConfigs = new LinkedHashMap<>();
    private final Map<Uuid, Topic> topicsById = new HashMap<>();
    private boolean hints;
    private Consumer<TopicPartition> partitionChanges = tp -> { };
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

    /**
     * The broker Metadata names controller: the running broker of lowest id, or -1 when none runs,
     * so Admin sends its controller requests to a broker that answers.
     */
    synchronized int controllerId() {
        List<Integer> running = runningBrokers();
        return running.isEmpty() ? -1 : running.get(0);
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
        return unlist(brokerId, BrokerStatus.RUNNING, BrokerStatus.STOPPED);
    }

    /**
     * The first step of a running broker's controlled shutdown: each partition it leads moves to
     * its next running replica (epoch + 1; leader -1 when none runs); it stays running.
     *
     * @return each moved partition's new leader epoch
     */
    synchronized Map<TopicPartition, Integer> moveLeadershipOff(int brokerId) {
        requireStatus(brokerId, BrokerStatus.RUNNING);
        return electAwayFrom(brokerId);
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
        return unlist(brokerId, BrokerStatus.KILLED, BrokerStatus.FENCED);
    }

    /** Moves leadership away from a broker in status {@code from} ({@link #electAwayFrom}), then gives it status {@code to}. */
    private Map<TopicPartition, Integer> unlist(int brokerId, BrokerStatus from, BrokerStatus to) {
        requireStatus(brokerId, from);
        Map<TopicPartition, Integer> epochs = electAwayFrom(brokerId);
        statuses.put(brokerId, to);
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
                List<Integer> after = new ArrayList<>(partition.replicas.subList(at + 1, partition.replicas.size()));
                after.addAll(partition.replicas.subList(0, at));
                int next = firstRunning(after);
                TopicPartition tp = new TopicPartition(topic.name(), partition.index);
                epochs.put(tp, elect(tp, partition, next));
            }
        }
        return epochs;
    }

    /** The running brokers' ids, ascending. */
    private List<Integer> runningBrokers() {
        return brokers.keySet().stream().filter(id -> statuses.get(id) == BrokerStatus.RUNNING).toList();
    }

    /** The first broker of {@code candidates} that runs, or -1 when none does. */
    private int firstRunning(List<Integer> candidates) {
        return candidates.stream().filter(id -> statuses.get(id) == BrokerStatus.RUNNING).findFirst().orElse(-1);
    }

    /**
     * Makes {@code leader} (-1 for none) lead {@code partition} at the next epoch, as every
     * leadership change does: the log starts the epoch, and a Fetch waiting on the partition is
     * checked again.
     *
     * @return the new leader epoch
     */
    private int elect(TopicPartition tp, Partition partition, int leader) {
        partition.leader = leader;
        partition.leaderEpoch++;
        partition.log.startLeaderEpoch(partition.leaderEpoch);
        partitionChanges.accept(tp);
        return partition.leaderEpoch;
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
     * Tells {@code listener}, under this lock, of each partition appended to and each partition
     * given a new leader, so a waiting Fetch can be answered; the listener must not block.
     */
    synchronized void onPartitionChange(Consumer<TopicPartition> listener) {
        partitionChanges = listener;
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
        if (replicationFactor < 1 || replicationFactor > runningBrokers().size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " on " + runningBrokers().size()
                + " running brokers");
        }
        return createTopic(name, placement(partitionCount, replicationFactor), Map.of());
    }

    /**
     * Replica lists for a new topic's partitions over the running brokers, as a controller places
     * replicas only on live brokers: leaders round robin, followers the brokers after each.
     */
    private List<List<Integer>> placement(int partitionCount, int replicationFactor) {
        List<Integer> ids = runningBrokers();
        List<List<Integer>> assignment = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            int first = nextLeaderSlot++ % ids.size();
            List<Integer> replicas = new ArrayList<>();
            for (int r = 0; r < replicationFactor; r++) {
                replicas.add(ids.get((first + r) % ids.size()));
            }
            assignment.add(replicas);
        }
        return assignment;
    }

    /**
     * Creates a topic whose partition {@code p} has {@code assignment.get(p)} as replicas, led by
     * the first running one, epoch 0.
     */
    private Uuid createTopic(String name, List<List<Integer>> assignment, Map<String, String> configs) {
        List<Partition> partitions = new ArrayList<>();
        for (int p = 0; p < assignment.size(); p++) {
            partitions.add(new Partition(p, assignment.get(p), firstRunning(assignment.get(p)), 0));
        }
        Uuid topicId = Uuid.randomUuid();
        Topic topic = new Topic(name, topicId, List.copyOf(partitions));
        topics.put(name, topic);
        topicsById.put(topicId, topic);
        if (!configs.isEmpty()) {
            topicConfigs.put(name, Map.copyOf(configs));
        }
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
        checked.forEach((tp, partition) -> epochs.put(tp, elect(tp, partition, newLeaders.get(tp))));
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
            if (result.error() == ErrorCode.NONE) {
                partitionChanges.accept(tp);
            }
            return new AppendOutcome(result.error(), result.baseOffset(), partition.log.highWatermark(), Optional.empty());
        } catch (PartitionLog.InvalidBatchException e) {
            return new AppendOutcome(ErrorCode.CORRUPT_MESSAGE, -1, -1, Optional.empty());
        }
    }

    /**
     * A Fetch of {@code tp} from {@code fetchOffset} arriving at broker {@code brokerId}: refused as
     * {@link #readRefusal} says, or with OFFSET_OUT_OF_RANGE outside [0, log end]; otherwise the
     * batches from the one holding the offset, within {@code maxBytes} (see {@link PartitionLog#read}).
     */
    synchronized FetchOutcome fetch(int brokerId, TopicPartition tp, int currentLeaderEpoch, long fetchOffset, int maxBytes,
                                    boolean firstBatchAnyway) {
        Optional<Partition> found = partition(tp);
        if (found.isEmpty()) {
            return FetchOutcome.refused(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, Optional.empty());
        }
        Partition partition = found.get();
        ErrorCode refusal = readRefusal(partition, brokerId, currentLeaderEpoch, true);
        if (refusal != ErrorCode.NONE) {
            boolean namesLeader = refusal == ErrorCode.NOT_LEADER_OR_FOLLOWER || refusal == ErrorCode.FENCED_LEADER_EPOCH;
            return FetchOutcome.refused(refusal, namesLeader ? Optional.of(partition.view()) : Optional.empty());
        }
        if (fetchOffset < 0 || fetchOffset > partition.log.logEndOffset()) {
            return FetchOutcome.refused(ErrorCode.OFFSET_OUT_OF_RANGE, Optional.empty());
        }
        return new FetchOutcome(ErrorCode.NONE, partition.log.highWatermark(),
            partition.log.read(fetchOffset, maxBytes, firstBatchAnyway), Optional.empty());
    }

    /**
     * A ListOffsets of {@code tp} for {@code timestamp} arriving at broker {@code brokerId}, refused
     * as {@link #readRefusal} says (followers answer too unless {@code leaderOnly}): the first
     * offset (0) with the log's first epoch, the high watermark with the current epoch, the record
     * with the largest timestamp, or the first record at or after a timestamp, with its batch's epoch.
     *
     * @throws IllegalArgumentException for another negative timestamp (tiered storage's codes): not simulated
     */
    synchronized ListOffsetsOutcome listOffset(int brokerId, TopicPartition tp, int currentLeaderEpoch, boolean leaderOnly,
                                               long timestamp) {
        Optional<Partition> found = partition(tp);
        if (found.isEmpty()) {
            return ListOffsetsOutcome.refused(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        }
        Partition partition = found.get();
        ErrorCode refusal = readRefusal(partition, brokerId, currentLeaderEpoch, leaderOnly);
        if (refusal != ErrorCode.NONE) {
            return ListOffsetsOutcome.refused(refusal);
        }
        PartitionLog log = partition.log;
        if (timestamp == EARLIEST_TIMESTAMP || timestamp == EARLIEST_LOCAL_TIMESTAMP) {
            return new ListOffsetsOutcome(ErrorCode.NONE, -1, 0, log.firstLeaderEpoch());
        }
        if (timestamp == LATEST_TIMESTAMP) {
            return new ListOffsetsOutcome(ErrorCode.NONE, -1, log.highWatermark(), partition.leaderEpoch);
        }
        if (timestamp != MAX_TIMESTAMP && timestamp < 0) {
            throw new IllegalArgumentException("ListOffsets for timestamp " + timestamp + " is not simulated");
        }
        Optional<PartitionLog.TimestampedOffset> record = timestamp == MAX_TIMESTAMP ? log.maxTimestamp() : log.firstAtOrAfter(timestamp);
        return record.map(r -> new ListOffsetsOutcome(ErrorCode.NONE, r.timestamp(), r.offset(), r.leaderEpoch()))
            .orElse(ListOffsetsOutcome.NOTHING);
    }

    /**
     * An OffsetForLeaderEpoch of {@code tp} for {@code leaderEpoch} arriving at broker
     * {@code brokerId}: refused as {@link #readRefusal} says, or answered as
     * {@link PartitionLog#endOf} says.
     */
    synchronized EpochEndOutcome epochEnd(int brokerId, TopicPartition tp, int currentLeaderEpoch, int leaderEpoch) {
        Optional<Partition> found = partition(tp);
        if (found.isEmpty()) {
            return new EpochEndOutcome(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, PartitionLog.EpochEnd.UNDEFINED);
        }
        ErrorCode refusal = readRefusal(found.get(), brokerId, currentLeaderEpoch, true);
        if (refusal != ErrorCode.NONE) {
            return new EpochEndOutcome(refusal, PartitionLog.EpochEnd.UNDEFINED);
        }
        return new EpochEndOutcome(ErrorCode.NONE, found.get().log.endOf(leaderEpoch));
    }

    /**
     * A broker's refusals of a read, in a broker's order: a broker that is not a replica does not
     * host the partition (NOT_LEADER_OR_FOLLOWER before any epoch check); then the reader's
     * {@code currentLeaderEpoch} older than the partition's (FENCED_LEADER_EPOCH) or newer
     * (UNKNOWN_LEADER_EPOCH), -1 skipping the check; then a follower asked for what only the
     * leader serves (NOT_LEADER_OR_FOLLOWER).
     */
    private static ErrorCode readRefusal(Partition partition, int brokerId, int currentLeaderEpoch, boolean leaderOnly) {
        if (!partition.replicas.contains(brokerId)) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        if (currentLeaderEpoch != -1 && currentLeaderEpoch < partition.leaderEpoch) {
            return ErrorCode.FENCED_LEADER_EPOCH;
        }
        if (currentLeaderEpoch != -1 && currentLeaderEpoch > partition.leaderEpoch) {
            return ErrorCode.UNKNOWN_LEADER_EPOCH;
        }
        if (leaderOnly && partition.leader != brokerId) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        return ErrorCode.NONE;
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

    /** What an admin command came to for one topic or partition: NONE, or an error and why. */
    record CommandOutcome(ErrorCode error, String message) {
        static final CommandOutcome DONE = new CommandOutcome(ErrorCode.NONE, null);

        boolean done() {
            return error == ErrorCode.NONE;
        }
    }

    /** A topic created (or that would be): its id ({@link Uuid#ZERO_UUID} when only validated) and replica lists. */
    record CreatedTopic(CommandOutcome outcome, Uuid topicId, List<List<Integer>> assignment) {
    }

    /**
     * Creates a topic from {@code assignment} (partition {@code p}'s replicas, preferred leader
     * first) or, when that is empty, placed as {@link #createTopic(String, int, int)} places it.
     * Refused with TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR when fewer brokers run than
     * replicas are asked for, or INVALID_REPLICA_ASSIGNMENT naming a broker that does not exist or
     * a partition none of whose replicas runs. With
     * {@code validateOnly}, checks the same and creates nothing.
     */
    synchronized CreatedTopic createTopic(String name, int partitionCount, int replicationFactor,
                                          List<List<Integer>> assignment, Map<String, String> configs, boolean validateOnly) {
        if (topics.containsKey(name)) {
            return refusedCreation(ErrorCode.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
        }
        int running = runningBrokers().size();
        if (assignment.isEmpty() && replicationFactor > running) {
            return refusedCreation(ErrorCode.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition " + replicationFactor
                + " time(s): only " + running + " broker(s) are running.");
        }
        for (List<Integer> replicas : assignment) {
            Optional<Integer> unknown = replicas.stream().filter(id -> !brokers.containsKey(id)).findFirst();
            if (unknown.isPresent()) {
                return refusedCreation(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes broker "
                    + unknown.get() + ", but no such broker is registered.");
            }
            if (firstRunning(replicas) < 0) {
                return refusedCreation(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "No broker of the manual partition assignment "
                    + replicas + " is running.");
            }
        }
        if (validateOnly) {
            return new CreatedTopic(CommandOutcome.DONE, Uuid.ZERO_UUID, assignment);
        }
        List<List<Integer>> replicas = assignment.isEmpty() ? placement(partitionCount, replicationFactor) : assignment;
        return new CreatedTopic(CommandOutcome.DONE, createTopic(name, replicas, configs), replicas);
    }

    private static CreatedTopic refusedCreation(ErrorCode error, String message) {
        return new CreatedTopic(new CommandOutcome(error, message), Uuid.ZERO_UUID, List.of());
    }

    /**
     * Deletes the topic with this name, its log and settings; the id it had is never used again,
     * and a topic created later under the same name starts over at epoch 0, as on a broker.
     *
     * @return the deleted topic's id, or empty if there was no such topic
     */
    synchronized Optional<Uuid> deleteTopic(String name) {
        Topic topic = topics.remove(name);
        if (topic == null) {
            return Optional.empty();
        }
        topicsById.remove(topic.topicId());
        topicConfigs.remove(name);
        return Optional.of(topic.topicId());
    }

    /** Deletes the topic with this id, as {@link #deleteTopic(String)}; returns its name, or empty if there was none. */
    synchronized Optional<String> deleteTopic(Uuid topicId) {
        Optional<String> name = Optional.ofNullable(topicsById.get(topicId)).map(Topic::name);
        name.ifPresent(this::deleteTopic);
        return name;
    }

    /** The topic's own settings (none for a topic created without any), or empty if there is no such topic. */
    synchronized Optional<Map<String, String>> topicConfigs(String name) {
        return topics.containsKey(name) ? Optional.of(topicConfigs.getOrDefault(name, Map.of())) : Optional.empty();
    }

    /**
     * Reassigns partitions, all at once (no request is served between two of them), each
     * completing at once: its replicas become the target and the ISR follows. A leader that stays
     * a replica keeps leading; one that does not gives way to the target's first running replica
     * (-1 when none runs), as a controller elects only a live replica. The
     * epoch grows by one when the target leaves out a current replica (the leader or another), as
     * Kafka's controller bumps it to fence the replica removed, and stays when replicas are only
     * added or reordered. A null target cancels a reassignment in progress, of which there never
     * is one: NO_REASSIGNMENT_IN_PROGRESS, as a broker answers. Refused with
     * UNKNOWN_TOPIC_OR_PARTITION, with INVALID_REPLICA_ASSIGNMENT for an empty target, a repeated
     * broker or one that does not exist, and with INVALID_REPLICATION_FACTOR for a change of
     * replica count when {@code allowReplicationFactorChange} is off; a refused partition does
     * not stop the others.
     *
     * @return each partition's outcome, in the order given
     */
    synchronized Map<TopicPartition, CommandOutcome> reassign(Map<TopicPartition, List<Integer>> targets,
                                                              boolean allowReplicationFactorChange) {
        Map<TopicPartition, CommandOutcome> outcomes = new LinkedHashMap<>();
        targets.forEach((tp, target) -> outcomes.put(tp, reassign(tp, target, allowReplicationFactorChange)));
        return outcomes;
    }

    private CommandOutcome reassign(TopicPartition tp, List<Integer> target, boolean allowReplicationFactorChange) {
        Optional<Partition> found = partition(tp);
        if (found.isEmpty()) {
            return new CommandOutcome(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition " + tp + ".");
        }
        if (target == null) {
            return new CommandOutcome(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "No ongoing reassignment for " + tp + ".");
        }
        Partition partition = found.get();
        if (target.isEmpty() || target.stream().distinct().count() != target.size()) {
            return new CommandOutcome(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The target replicas " + target
                + " are empty or name a broker twice.");
        }
        Optional<Integer> unknown = target.stream().filter(id -> !brokers.containsKey(id)).findFirst();
        if (unknown.isPresent()) {
            return new CommandOutcome(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The target replicas " + target
                + " include broker " + unknown.get() + ", but no such broker is registered.");
        }
        if (!allowReplicationFactorChange && target.size() != partition.replicas.size()) {
            return new CommandOutcome(ErrorCode.INVALID_REPLICATION_FACTOR, "The replication factor of " + tp + " would change from "
                + partition.replicas.size() + " to " + target.size() + ", which the request does not allow.");
        }
        boolean removesAReplica = !target.containsAll(partition.replicas);
        partition.replicas = List.copyOf(target);
        if (removesAReplica) {
            // Kafka's controller bumps the epoch whenever a replica leaves, so that it is fenced.
            elect(tp, partition, target.contains(partition.leader) ? partition.leader : firstRunning(target));
        }
        return CommandOutcome.DONE;
    }

    /**
     * Preferred-leader elections, all at once: each partition's first replica becomes its leader
     * at epoch + 1, or the partition is answered ELECTION_NOT_NEEDED if it already leads, or
     * PREFERRED_LEADER_NOT_AVAILABLE if it does not run, as a controller answers.
     *
     * @return each partition's outcome, in the order given
     */
    synchronized Map<TopicPartition, CommandOutcome> electPreferredLeaders(Collection<TopicPartition> partitions) {
        Map<TopicPartition, CommandOutcome> outcomes = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            Optional<Partition> found = partition(tp);
            if (found.isEmpty()) {
                outcomes.put(tp, new CommandOutcome(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition " + tp + "."));
                continue;
            }
            Partition partition = found.get();
            int preferred = partition.replicas.get(0);
            if (partition.leader == preferred) {
                outcomes.put(tp, new CommandOutcome(ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for " + tp + "."));
            } else if (statuses.get(preferred) != BrokerStatus.RUNNING) {
                outcomes.put(tp, new CommandOutcome(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, "Failed to elect leader for partition "
                    + tp + " under strategy PREFERRED: broker " + preferred + " is not running."));
            } else {
                elect(tp, partition, preferred);
                outcomes.put(tp, CommandOutcome.DONE);
            }
        }
        return outcomes;
    }

    /** Every partition of every topic. */
    synchronized List<TopicPartition> partitions() {
        List<TopicPartition> all = new ArrayList<>();
        topics.values().forEach(t -> t.partitions().forEach(p -> all.add(new TopicPartition(t.name(), p.index))));
        return all;
    }

    /** The id the next broker added gets: one above the highest so far. */
    synchronized int nextBrokerId() {
        return brokers.isEmpty() ? 0 : brokers.lastKey() + 1;
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
