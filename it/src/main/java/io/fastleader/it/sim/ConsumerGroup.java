package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ScheduledFuture;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData.Assignment;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData.TopicPartitions;
import org.apache.kafka.common.Uuid;

/**
 * One group of the KIP-848 consumer protocol, as a broker's group coordinator keeps it. A
 * change of membership, of a member's subscription or of the subscribed topics' partitions bumps
 * the group epoch, and the coordinator computes a new target assignment at that epoch. Each
 * member then converges to its target on its own heartbeats: it first gives up the partitions it
 * must lose (its epoch stays until a heartbeat no longer holds them: the revocation handshake),
 * then moves to the new epoch and gets the partitions that no other member still holds; those
 * still held come on a later heartbeat, once released. A member that does not revoke within its
 * rebalance timeout, or that stops heartbeating for the session timeout, is removed.
 *
 * <p>Server-side assignors: {@code uniform} (the default) deals the subscribed partitions, in
 * topic and partition order, each to the subscribed member holding the fewest so far; {@code range}
 * gives each subscribed member a contiguous range of each topic. Both are deterministic, with
 * members in member-id order; neither is sticky, unlike a broker's {@code uniform}. The assignor
 * most members ask for is used. Every method, and every timer task, runs under {@code lock}, the
 * {@link GroupCoordinator}'s monitor.
 */
final class ConsumerGroup {

    /** What a heartbeat tells a member about its pace; a broker's default is 5 s, shorter here so tests converge fast. */
    static final int HEARTBEAT_INTERVAL_MS = 500;

    /** {@code group.consumer.session.timeout.ms}' default. */
    static final int SESSION_TIMEOUT_MS = 45_000;

    private static final Set<String> ASSIGNORS = Set.of("uniform", "range");

    enum MemberState { STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS }

    /** A partition named by topic id, as the consumer protocol names it. */
    private record IdPartition(Uuid topicId, int partition) {
    }

    /** What of a subscribed topic the assignment depends on: a leader move changes none of it. */
    private record TopicShape(String name, Uuid topicId, int partitions) {
    }

    private static final class Member {
        final String memberId;
        int epoch;
        int previousEpoch = -1;
        MemberState state = MemberState.STABLE;
        int rebalanceTimeoutMs;
        List<String> subscribedTopicNames = List.of();
        String subscribedTopicRegex;
        String serverAssignor;
        Set<IdPartition> assigned = new TreeSet<>(ORDER);
        Set<IdPartition> pendingRevocation = new TreeSet<>(ORDER);
        ScheduledFuture<?> sessionExpiry;
        ScheduledFuture<?> revocationTimeout;
        /** Bumped at each heartbeat and each revocation started, so that a timer scheduled before does nothing. */
        long session;
        long revocation;

        Member(String memberId) {
            this.memberId = memberId;
        }
    }

    private static final Comparator<IdPartition> ORDER =
        Comparator.comparing((IdPartition p) -> p.topicId().toString()).thenComparingInt(IdPartition::partition);

    private final String groupId;
    private final Object lock;
    private final Scheduler scheduler;
    private final ClusterState state;
    private final Map<String, Member> members = new TreeMap<>();
    private int groupEpoch;
    private int targetEpoch;
    private Map<String, Set<IdPartition>> target = Map.of();
    /** The subscribed topics the target was computed from. */
    private Map<String, TopicShape> subscribedTopics = Map.of();

    ConsumerGroup(String groupId, Object lock, Scheduler scheduler, ClusterState state) {
        this.groupId = groupId;
        this.lock = lock;
        this.scheduler = scheduler;
        this.state = state;
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** The members, in member-id order. */
    List<String> memberIds() {
        return List.copyOf(members.keySet());
    }

    /**
     * A ConsumerGroupHeartbeat: a join (epoch 0, also a rejoin after fencing), a heartbeat, or a
     * leave (epoch -1). A heartbeat's missing fields (null, or -1 for the rebalance timeout) mean
     * unchanged. The assignment is answered to a full request (a join, or one with rebalance
     * timeout, subscription and owned partitions) and whenever it changed, as a broker does.
     */
    ConsumerGroupHeartbeatResponseData heartbeat(ConsumerGroupHeartbeatRequestData request, short version) {
        int epoch = request.memberEpoch();
        if (epoch == -1) {
            Member member = members.get(request.memberId());
            if (member == null) {
                return error(ErrorCode.UNKNOWN_MEMBER_ID, "member " + request.memberId() + " is not in group " + groupId);
            }
            remove(member);
            return new ConsumerGroupHeartbeatResponseData().setMemberId(member.memberId).setMemberEpoch(-1);
        }
        if (epoch < -1) {
            return error(ErrorCode.INVALID_REQUEST, "member epoch " + epoch + ": static membership is not simulated");
        }
        String invalid = invalidFields(request, version);
        if (invalid != null) {
            return error(ErrorCode.INVALID_REQUEST, invalid);
        }
        if (request.serverAssignor() != null && !ASSIGNORS.contains(request.serverAssignor())) {
            return error(ErrorCode.UNSUPPORTED_ASSIGNOR, "assignor " + request.serverAssignor() + " is not one of " + ASSIGNORS);
        }
        String memberId = request.memberId().isEmpty() ? Uuid.randomUuid().toString() : request.memberId();
        Member member = members.get(memberId);
        boolean changed = false;
        if (member == null) {
            if (epoch != 0) {
                return error(ErrorCode.UNKNOWN_MEMBER_ID, "member " + memberId + " is not in group " + groupId);
            }
            member = new Member(memberId);
            members.put(memberId, member);
            lock.notifyAll(); // a membership change, for GroupCoordinator#awaitMembers
            changed = true;
        } else if (epoch > member.epoch
            || (epoch != 0 && epoch < member.epoch && (epoch != member.previousEpoch || !ownsOnly(request, member.assigned)))) {
            // a member may come back with epoch 0 (rejoining after it was fenced), or with its previous
            // epoch if it holds nothing beyond its assignment (the answer bumping its epoch was lost)
            return error(ErrorCode.FENCED_MEMBER_EPOCH, "member " + memberId + " sent epoch " + epoch + "; its epoch is "
                + member.epoch);
        }
        Set<IdPartition> assignedBefore = Set.copyOf(member.assigned);
        changed |= update(member, request);
        Map<String, TopicShape> topics = subscribedTopicShapes();
        if (changed || !topics.equals(subscribedTopics)) {
            groupEpoch++;
            subscribedTopics = topics;
        }
        if (targetEpoch != groupEpoch) {
            computeTarget();
        }
        reconcile(member, request.topicPartitions());
        restartSession(member);
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
            .setMemberId(memberId)
            .setMemberEpoch(member.epoch)
            .setHeartbeatIntervalMs(HEARTBEAT_INTERVAL_MS);
        boolean fullRequest = epoch == 0 || (request.rebalanceTimeoutMs() != -1 && request.topicPartitions() != null
            && (request.subscribedTopicNames() != null || request.subscribedTopicRegex() != null));
        if (fullRequest || !assignedBefore.equals(member.assigned)) {
            response.setAssignment(assignment(member.assigned));
        }
        return response;
    }

    /**
     * Whether an OffsetCommit (or, with {@code fetch}, an OffsetFetch naming a member) is
     * accepted: from a member at its current epoch, or, for a commit, from outside the group
     * (epoch -1) while it has no member, as a broker checks it.
     */
    ErrorCode validateOffsetRequest(String memberId, int memberEpoch, short commitVersion, boolean fetch) {
        if (memberEpoch < 0 && (fetch ? memberId == null : members.isEmpty())) {
            return ErrorCode.NONE;
        }
        Member member = members.get(memberId);
        if (member == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (!fetch && commitVersion < 9) {
            return ErrorCode.UNSUPPORTED_VERSION;
        }
        return memberEpoch == member.epoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
    }

    private static String invalidFields(ConsumerGroupHeartbeatRequestData request, short version) {
        if (version >= 1 && request.memberId().isEmpty()) {
            return "a member id is required from v1";
        }
        if (request.memberEpoch() == 0) {
            if (request.rebalanceTimeoutMs() == -1) {
                return "a join needs RebalanceTimeoutMs";
            }
            if (request.subscribedTopicNames() == null && request.subscribedTopicRegex() == null) {
                return "a join needs SubscribedTopicNames or SubscribedTopicRegex";
            }
            if (request.topicPartitions() == null || !request.topicPartitions().isEmpty()) {
                return "a join needs TopicPartitions, empty";
            }
        }
        if (request.subscribedTopicRegex() != null) {
            try {
                Pattern.compile(request.subscribedTopicRegex());
            } catch (PatternSyntaxException e) {
                return "SubscribedTopicRegex " + e.getMessage();
            }
        }
        return null;
    }

    /** Applies the fields the request sets; whether the subscription or the assignor changed. */
    private static boolean update(Member member, ConsumerGroupHeartbeatRequestData request) {
        boolean changed = false;
        if (request.rebalanceTimeoutMs() != -1) {
            member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        }
        if (request.subscribedTopicNames() != null && !request.subscribedTopicNames().equals(member.subscribedTopicNames)) {
            member.subscribedTopicNames = List.copyOf(request.subscribedTopicNames());
            changed = true;
        }
        if (request.subscribedTopicRegex() != null && !request.subscribedTopicRegex().equals(member.subscribedTopicRegex)) {
            member.subscribedTopicRegex = request.subscribedTopicRegex().isEmpty() ? null : request.subscribedTopicRegex();
            changed = true;
        }
        if (request.serverAssignor() != null && !request.serverAssignor().equals(member.serverAssignor)) {
            member.serverAssignor = request.serverAssignor();
            changed = true;
        }
        return changed;
    }

    /**
     * Moves the member towards its target: partitions to lose are revoked first (the epoch stays
     * until a heartbeat's owned partitions no longer hold them); then the member takes the target
     * epoch and every target partition no other member holds.
     */
    private void reconcile(Member member, List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        if (member.state == MemberState.UNREVOKED_PARTITIONS) {
            if (owned == null || ownedPartitions(owned).stream().anyMatch(member.pendingRevocation::contains)) {
                return;
            }
            member.pendingRevocation.clear();
            member.revocationTimeout.cancel(false);
        } else if (member.epoch == targetEpoch && member.state == MemberState.STABLE) {
            return;
        }
        Set<IdPartition> wanted = target.getOrDefault(member.memberId, Set.of());
        Set<IdPartition> revoked = new TreeSet<>(ORDER);
        for (IdPartition p : member.assigned) {
            if (!wanted.contains(p)) {
                revoked.add(p);
            }
        }
        if (!revoked.isEmpty()) {
            member.assigned.removeAll(revoked);
            member.pendingRevocation.addAll(revoked);
            member.state = MemberState.UNREVOKED_PARTITIONS;
            long thisRevocation = ++member.revocation;
            member.revocationTimeout = scheduler.schedule(() -> {
                synchronized (lock) {
                    if (members.get(member.memberId) == member && member.revocation == thisRevocation
                        && member.state == MemberState.UNREVOKED_PARTITIONS) {
                        remove(member);
                    }
                }
            }, member.rebalanceTimeoutMs);
            return;
        }
        boolean unreleased = false;
        for (IdPartition p : wanted) {
            if (!member.assigned.contains(p)) {
                if (heldByAnother(p, member)) {
                    unreleased = true;
                } else {
                    member.assigned.add(p);
                }
            }
        }
        member.state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        if (member.epoch != targetEpoch) {
            member.previousEpoch = member.epoch;
            member.epoch = targetEpoch;
        }
    }

    private boolean heldByAnother(IdPartition partition, Member member) {
        for (Member other : members.values()) {
            if (other != member && (other.assigned.contains(partition) || other.pendingRevocation.contains(partition))) {
                return true;
            }
        }
        return false;
    }

    /** The target assignment at the group epoch, by the assignor most members ask for. */
    private void computeTarget() {
        Map<String, Long> votes = new TreeMap<>();
        members.values().stream().map(m -> m.serverAssignor).filter(Objects::nonNull).forEach(a -> votes.merge(a, 1L, Long::sum));
        String assignor = votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("uniform");
        Map<String, Set<IdPartition>> next = new HashMap<>();
        members.keySet().forEach(id -> next.put(id, new TreeSet<>(ORDER)));
        for (TopicShape topic : subscribedTopics.values()) {
            List<String> subscribers = members.values().stream().filter(m -> subscribes(m, topic.name())).map(m -> m.memberId).toList();
            int partitions = topic.partitions();
            for (int p = 0; p < partitions; p++) {
                String owner;
                if (assignor.equals("range")) {
                    // each subscriber a contiguous range, the first (partitions % subscribers) one longer
                    int base = partitions / subscribers.size();
                    int longer = partitions % subscribers.size();
                    int index = p < longer * (base + 1) ? p / (base + 1) : longer + (p - longer * (base + 1)) / base;
                    owner = subscribers.get(index);
                } else {
                    owner = subscribers.stream().min(Comparator.comparingInt((String id) -> next.get(id).size())).orElseThrow();
                }
                next.get(owner).add(new IdPartition(topic.topicId(), p));
            }
        }
        target = next;
        targetEpoch = groupEpoch;
    }

    /** The topics some member subscribes to that exist, by name, in name order (as the uniform assignor deals them). */
    private Map<String, TopicShape> subscribedTopicShapes() {
        Map<String, TopicShape> shapes = new TreeMap<>();
        for (ClusterState.TopicView topic : state.topics(null)) {
            if (members.values().stream().anyMatch(m -> subscribes(m, topic.name()))) {
                shapes.put(topic.name(), new TopicShape(topic.name(), topic.topicId(), topic.partitions().size()));
            }
        }
        return shapes;
    }

    private static boolean subscribes(Member member, String topic) {
        return member.subscribedTopicNames.contains(topic)
            || (member.subscribedTopicRegex != null && Pattern.matches(member.subscribedTopicRegex, topic));
    }

    private void remove(Member member) {
        members.remove(member.memberId);
        lock.notifyAll(); // a membership change, for GroupCoordinator#awaitMembers
        if (member.sessionExpiry != null) {
            member.sessionExpiry.cancel(false);
        }
        if (member.revocationTimeout != null) {
            member.revocationTimeout.cancel(false);
        }
        groupEpoch++;
        subscribedTopics = subscribedTopicShapes();
        computeTarget();
    }

    private void restartSession(Member member) {
        if (member.sessionExpiry != null) {
            member.sessionExpiry.cancel(false);
        }
        long session = ++member.session;
        member.sessionExpiry = scheduler.schedule(() -> {
            synchronized (lock) {
                if (members.get(member.memberId) == member && member.session == session) {
                    remove(member);
                }
            }
        }, SESSION_TIMEOUT_MS);
    }

    private static boolean ownsOnly(ConsumerGroupHeartbeatRequestData request, Set<IdPartition> assigned) {
        return request.topicPartitions() != null && assigned.containsAll(ownedPartitions(request.topicPartitions()));
    }

    private static Set<IdPartition> ownedPartitions(List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        Set<IdPartition> partitions = new LinkedHashSet<>();
        for (ConsumerGroupHeartbeatRequestData.TopicPartitions topic : owned) {
            topic.partitions().forEach(p -> partitions.add(new IdPartition(topic.topicId(), p)));
        }
        return partitions;
    }

    private static Assignment assignment(Set<IdPartition> partitions) {
        Map<Uuid, List<Integer>> byTopic = new TreeMap<>(Comparator.comparing(Uuid::toString));
        partitions.forEach(p -> byTopic.computeIfAbsent(p.topicId(), id -> new ArrayList<>()).add(p.partition()));
        List<TopicPartitions> topics = new ArrayList<>();
        byTopic.forEach((id, list) -> topics.add(new TopicPartitions().setTopicId(id).setPartitions(list)));
        return new Assignment().setTopicPartitions(topics);
    }

    static ConsumerGroupHeartbeatResponseData error(ErrorCode error, String message) {
        return new ConsumerGroupHeartbeatResponseData().setErrorCode(error.code()).setErrorMessage(message);
    }
}
