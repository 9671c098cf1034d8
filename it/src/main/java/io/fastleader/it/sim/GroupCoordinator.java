package io.fastleader.it.sim;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupResponseData;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The cluster's group coordination: which broker coordinates each group, the classic groups
 * ({@link ClassicGroup}), the KIP-848 consumer groups ({@link ConsumerGroup}) and the committed
 * offsets of every group. A group id names one kind of group at a time: an empty group of one
 * kind gives way to a member of the other, a group with members refuses it (a broker would
 * migrate the members, KIP-848's online upgrade; not simulated). Each method serving a request
 * takes the broker it reached and answers NOT_COORDINATOR when that broker does not coordinate
 * the group, so a {@link #moveCoordinator} is seen by a request either whole or not at all. Every method, and
 * every timer task of a group, holds this object's monitor (ClusterState's lock is taken inside
 * it, never the other way round).
 *
 * <p>Placement: a broker hashes the group id to a partition of {@code __consumer_offsets} (50 by
 * default) and the leader of that partition coordinates the group. Here partition
 * {@code (groupId.hashCode() & 0x7fffffff) % 50} is "led" by the broker at that index modulo the
 * number of brokers listed, in id order, as round-robin placement of the offsets topic would put
 * it. The placement is fixed when the group is first looked up, so a broker added later
 * coordinates no group (as it leads no offsets partition) until {@link #moveCoordinator} puts one
 * there; it moves when its broker stops or fails over (see {@link #coordinatorOf}).
 */
final class GroupCoordinator {

    /** {@code offsets.topic.num.partitions}' default. */
    static final int OFFSETS_TOPIC_PARTITIONS = 50;

    /** {@code offset.metadata.max.bytes}' default. */
    static final int MAX_METADATA_CHARS = 4096;

    /** What an OffsetFetch of one group came to: a group-level error, or the offsets asked for. */
    record FetchedOffsets(ErrorCode error, Map<TopicPartition, OffsetAndMetadata> offsets) {
    }

    private final ClusterState state;
    private final Scheduler scheduler;
    private final Map<String, Integer> coordinators = new HashMap<>();
    private final Map<String, ClassicGroup> classicGroups = new HashMap<>();
    private final Map<String, ConsumerGroup> consumerGroups = new HashMap<>();
    private final Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new HashMap<>();

    GroupCoordinator(ClusterState state, Scheduler scheduler) {
        this.state = state;
        this.scheduler = scheduler;
    }

    /**
     * The broker coordinating {@code groupId}. A coordinator that was stopped or failed over
     * ({@code ClusterState.brokers()} no longer lists it) hands the group to the next listed
     * broker in id order, as the leadership of its {@code __consumer_offsets} partition would move
     * to another replica; requests waiting at the old one are answered NOT_COORDINATOR. A killed
     * broker not yet failed over keeps its groups, as it keeps its partitions.
     */
    synchronized int coordinatorOf(String groupId) {
        List<ClusterState.Endpoint> listed = state.brokers();
        Integer placed = coordinators.get(groupId);
        if (listed.isEmpty() || (placed != null && listed.stream().anyMatch(e -> e.brokerId() == placed))) {
            // with every broker down no request arrives; a test asking is told where the group was
            return placed != null ? placed : place(groupId, state.allBrokers());
        }
        int next;
        if (placed == null) {
            next = place(groupId, listed);
        } else {
            next = listed.stream().map(ClusterState.Endpoint::brokerId).filter(id -> id > placed).findFirst()
                .orElse(listed.get(0).brokerId());
            resign(groupId);
        }
        coordinators.put(groupId, next);
        return next;
    }

    /**
     * Makes {@code brokerId} the coordinator of {@code groupId}, as when the leadership of its
     * {@code __consumer_offsets} partition moves: the group's members and offsets stay as they
     * are (the new coordinator has them from the log), and requests waiting at the old
     * coordinator are answered NOT_COORDINATOR.
     *
     * @throws IllegalArgumentException if there is no such broker, or it is not running
     */
    synchronized void moveCoordinator(String groupId, int brokerId) {
        ClusterState.BrokerStatus status = state.status(brokerId);
        if (status != ClusterState.BrokerStatus.RUNNING) {
            throw new IllegalArgumentException("broker " + brokerId + " is " + status + ": it cannot coordinate " + groupId);
        }
        coordinators.put(groupId, brokerId);
        resign(groupId);
    }

    synchronized CompletableFuture<JoinGroupResponseData> join(int brokerId, JoinGroupRequestData request, short version,
                                                               String clientId) {
        if (!coordinates(brokerId, request.groupId())) {
            return CompletableFuture.completedFuture(ClassicGroup.joinError(ErrorCode.NOT_COORDINATOR, request.memberId()));
        }
        ConsumerGroup consumerGroup = consumerGroups.get(request.groupId());
        if (consumerGroup != null) {
            if (!consumerGroup.isEmpty()) {
                // a broker would take classic members into a consumer group (KIP-848's migration); not simulated
                return CompletableFuture.completedFuture(
                    ClassicGroup.joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, request.memberId()));
            }
            consumerGroups.remove(request.groupId());
        }
        ClassicGroup group = classicGroups.get(request.groupId());
        if (group == null) {
            if (!request.memberId().isEmpty()) {
                return CompletableFuture.completedFuture(ClassicGroup.joinError(ErrorCode.UNKNOWN_MEMBER_ID, request.memberId()));
            }
            group = classicGroup(request.groupId());
        }
        return group.join(request, version, clientId);
    }

    synchronized CompletableFuture<SyncGroupResponseData> sync(int brokerId, SyncGroupRequestData request) {
        ErrorCode refusal = !coordinates(brokerId, request.groupId()) ? ErrorCode.NOT_COORDINATOR
            : !classicGroups.containsKey(request.groupId()) ? ErrorCode.UNKNOWN_MEMBER_ID
            : null;
        if (refusal != null) {
            return CompletableFuture.completedFuture(new SyncGroupResponseData().setErrorCode(refusal.code()));
        }
        return classicGroups.get(request.groupId()).sync(request);
    }

    synchronized ErrorCode heartbeat(int brokerId, String groupId, String memberId, int generationId) {
        return classic(brokerId, groupId, group -> group.heartbeat(memberId, generationId));
    }

    /** Each member's outcome, in the order named. */
    synchronized List<ErrorCode> leave(int brokerId, String groupId, List<String> memberIds) {
        return memberIds.stream().map(memberId -> classic(brokerId, groupId, group -> group.leave(memberId))).toList();
    }

    /**
     * A ConsumerGroupHeartbeat (KIP-848): see {@link ConsumerGroup#heartbeat}. A classic group of
     * the same id is replaced while it is empty (its offsets stay), and refused
     * (GROUP_ID_NOT_FOUND) while it has members.
     */
    synchronized ConsumerGroupHeartbeatResponseData consumerGroupHeartbeat(int brokerId, ConsumerGroupHeartbeatRequestData request,
                                                                         short version) {
        String groupId = request.groupId();
        if (!coordinates(brokerId, groupId)) {
            return ConsumerGroup.error(ErrorCode.NOT_COORDINATOR, "broker " + brokerId + " does not coordinate group " + groupId);
        }
        ConsumerGroup group = consumerGroups.get(groupId);
        if (group == null) {
            if (request.memberEpoch() != 0) {
                return ConsumerGroup.error(ErrorCode.UNKNOWN_MEMBER_ID, "group " + groupId + " has no member " + request.memberId());
            }
            ClassicGroup classic = classicGroups.get(groupId);
            if (classic != null && classic.state() != ClassicGroup.State.EMPTY) {
                return ConsumerGroup.error(ErrorCode.GROUP_ID_NOT_FOUND, "group " + groupId + " is a classic group with members");
            }
            classicGroups.remove(groupId);
            group = new ConsumerGroup(groupId, this, scheduler, state);
            consumerGroups.put(groupId, group);
        }
        return group.heartbeat(request, version);
    }

    /**
     * Stores {@code commits} if the group's checks let them in: a commit outside group management
     * (generation -1, no member) to a group that does not exist creates it, empty, as a broker
     * does; to a group that does not exist with a generation, ILLEGAL_GENERATION (before v9) or
     * GROUP_ID_NOT_FOUND.
     *
     * @return the error of every partition, or NONE with each partition's own outcome in {@code outcomes}
     */
    synchronized ErrorCode commit(int brokerId, String groupId, int generationId, String memberId, short version,
                                  Map<TopicPartition, OffsetAndMetadata> commits, Map<TopicPartition, ErrorCode> outcomes) {
        if (!coordinates(brokerId, groupId)) {
            return ErrorCode.NOT_COORDINATOR;
        }
        ErrorCode refusal;
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null) {
            refusal = consumerGroup.validateOffsetRequest(memberId, generationId, version, false);
        } else {
            ClassicGroup group = classicGroups.get(groupId);
            if (group == null) {
                if (generationId >= 0) {
                    return version >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
                }
                group = classicGroup(groupId);
            }
            refusal = group.validateOffsetCommit(memberId, generationId);
        }
        if (refusal != ErrorCode.NONE) {
            return refusal;
        }
        Map<TopicPartition, OffsetAndMetadata> stored = offsets.computeIfAbsent(groupId, g -> new HashMap<>());
        commits.forEach((tp, committed) -> {
            if (committed.metadata().length() > MAX_METADATA_CHARS) {
                outcomes.put(tp, ErrorCode.OFFSET_METADATA_TOO_LARGE);
            } else {
                stored.put(tp, committed);
                outcomes.put(tp, ErrorCode.NONE);
            }
        });
        return ErrorCode.NONE;
    }

    /**
     * The offsets committed by {@code groupId} for {@code partitions}, or for every partition it
     * committed (by topic and partition) when {@code partitions} is null; a partition without a
     * commit is absent. A fetch naming a member ({@code memberId} not null, or an epoch, v9+) of a
     * KIP-848 group is checked as a commit is.
     */
    synchronized FetchedOffsets fetch(int brokerId, String groupId, String memberId, int memberEpoch,
                                      List<TopicPartition> partitions) {
        if (!coordinates(brokerId, groupId)) {
            return new FetchedOffsets(ErrorCode.NOT_COORDINATOR, Map.of());
        }
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null) {
            ErrorCode refusal = consumerGroup.validateOffsetRequest(memberId, memberEpoch, (short) -1, true);
            if (refusal != ErrorCode.NONE) {
                return new FetchedOffsets(refusal, Map.of());
            }
        }
        Map<TopicPartition, OffsetAndMetadata> stored = offsets.getOrDefault(groupId, Map.of());
        Map<TopicPartition, OffsetAndMetadata> found = new LinkedHashMap<>();
        for (TopicPartition tp : partitions != null ? partitions : stored.keySet().stream()
                .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)).toList()) {
            OffsetAndMetadata committed = stored.get(tp);
            if (committed != null) {
                found.put(tp, committed);
            }
        }
        return new FetchedOffsets(ErrorCode.NONE, found);
    }

    synchronized Optional<OffsetAndMetadata> committed(String groupId, TopicPartition partition) {
        return Optional.ofNullable(offsets.getOrDefault(groupId, Map.of()).get(partition));
    }

    /** The group's members: a classic group's in the order they joined, a consumer group's in member-id order. */
    synchronized List<String> members(String groupId) {
        ClassicGroup group = classicGroups.get(groupId);
        if (group != null) {
            return group.memberIds();
        }
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        return consumerGroup == null ? List.of() : consumerGroup.memberIds();
    }

    /**
     * Waits until the group has {@code count} members (joined, not merely given an id),
     * for a test to see a join that is itself still waiting.
     *
     * @return the members, as {@link #members} lists them
     * @throws IllegalStateException if the group has another number of members after {@code timeout}
     */
    synchronized List<String> awaitMembers(String groupId, int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (members(groupId).size() != count) {
            long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (remainingMs <= 0) {
                throw new IllegalStateException("group " + groupId + " has members " + members(groupId) + ", not " + count
                    + ", after " + timeout);
            }
            wait(remainingMs);
        }
        return members(groupId);
    }

    /** The broker {@code groupId} hashes to among {@code brokers}, in id order. */
    private static int place(String groupId, List<ClusterState.Endpoint> brokers) {
        int offsetsPartition = (groupId.hashCode() & 0x7fffffff) % OFFSETS_TOPIC_PARTITIONS;
        return brokers.get(offsetsPartition % brokers.size()).brokerId();
    }

    private void resign(String groupId) {
        ClassicGroup group = classicGroups.get(groupId);
        if (group != null) {
            group.resign();
        }
    }

    private ErrorCode classic(int brokerId, String groupId, Function<ClassicGroup, ErrorCode> action) {
        if (!coordinates(brokerId, groupId)) {
            return ErrorCode.NOT_COORDINATOR;
        }
        ClassicGroup group = classicGroups.get(groupId);
        return group == null ? ErrorCode.UNKNOWN_MEMBER_ID : action.apply(group);
    }

    private ClassicGroup classicGroup(String groupId) {
        return classicGroups.computeIfAbsent(groupId, id -> new ClassicGroup(id, this, scheduler));
    }

    private boolean coordinates(int brokerId, String groupId) {
        return coordinatorOf(groupId) == brokerId;
    }
}
