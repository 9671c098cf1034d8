package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.JoinGroupResponseData.JoinGroupResponseMember;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import io.fastleader.protocol.message.SyncGroupResponseData;

/**
 * One group of the classic protocol, as a broker's group coordinator keeps it: members with their
 * session and rebalance timeouts and supported protocols, a generation, a leader, and the states
 * Empty, PreparingRebalance, CompletingRebalance and Stable. A JoinGroup waits (its stage stays
 * open) until every known member has joined or the rebalance timeout runs out, which expels the
 * members that did not; a follower's SyncGroup waits for the leader's. Sessions expire on the
 * {@link Scheduler}. Every method, and every timer task, runs under {@code lock}, the
 * {@link GroupCoordinator}'s monitor.
 */
final class ClassicGroup {

    enum State { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE }

    private static final class Member {
        final String memberId;
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;
        Map<String, byte[]> protocols;
        CompletableFuture<JoinGroupResponseData> awaitingJoin;
        CompletableFuture<SyncGroupResponseData> awaitingSync;
        byte[] assignment = new byte[0];
        ScheduledFuture<?> expiry;
        /** Bumped at each heartbeat of any kind, so that an expiry task scheduled before it does nothing. */
        long session;

        Member(String memberId) {
            this.memberId = memberId;
        }
    }

    private final String groupId;
    private final Object lock;
    private final Scheduler scheduler;
    private final Map<String, Member> members = new LinkedHashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED (JoinGroup v4+) and not joined with yet. */
    private final Set<String> pendingMembers = new LinkedHashSet<>();
    private State state = State.EMPTY;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private ScheduledFuture<?> joinTimeout;
    private long rebalance;

    ClassicGroup(String groupId, Object lock, Scheduler scheduler) {
        this.groupId = groupId;
        this.lock = lock;
        this.scheduler = scheduler;
    }

    State state() {
        return state;
    }

    List<String> memberIds() {
        return List.copyOf(members.keySet());
    }

    /**
     * A JoinGroup: a new member (empty member id) is given an id, and at v4+ sent back at once
     * with MEMBER_ID_REQUIRED to join again with it; a known member's join waits for the
     * rebalance to complete.
     */
    CompletableFuture<JoinGroupResponseData> join(JoinGroupRequestData request, short version, String clientId) {
        if (request.protocolType().isEmpty() || request.protocols().isEmpty()
            || (!members.isEmpty() && (!request.protocolType().equals(protocolType) || !supportsACommonProtocol(request)))) {
            return CompletableFuture.completedFuture(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, request.memberId()));
        }
        CompletableFuture<JoinGroupResponseData> answer = new CompletableFuture<>();
        String memberId = request.memberId();
        if (memberId.isEmpty()) {
            String newId = clientId + "-" + UUID.randomUUID();
            if (version >= 4) {
                pendingMembers.add(newId);
                scheduler.schedule(() -> pendingMemberExpired(newId), request.sessionTimeoutMs());
                return CompletableFuture.completedFuture(joinError(ErrorCode.MEMBER_ID_REQUIRED, newId));
            }
            addMember(newId, request, answer);
        } else if (pendingMembers.remove(memberId)) {
            addMember(memberId, request, answer);
        } else {
            Member member = members.get(memberId);
            if (member == null) {
                return CompletableFuture.completedFuture(joinError(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
            }
            rejoin(member, request, answer);
        }
        return answer;
    }

    private void addMember(String memberId, JoinGroupRequestData request, CompletableFuture<JoinGroupResponseData> answer) {
        Member member = new Member(memberId);
        update(member, request);
        member.awaitingJoin = answer;
        members.put(memberId, member);
        lock.notifyAll(); // a membership change, for GroupCoordinator#awaitMembers
        if (members.size() == 1) {
            protocolType = request.protocolType();
        }
        if (leaderId == null) {
            leaderId = memberId;
        }
        heartbeat(member);
        if (state != State.PREPARING_REBALANCE) {
            prepareRebalance();
        }
        tryCompleteJoin();
    }

    private void rejoin(Member member, JoinGroupRequestData request, CompletableFuture<JoinGroupResponseData> answer) {
        boolean sameProtocols = sameProtocols(member, request);
        update(member, request);
        switch (state) {
            case PREPARING_REBALANCE -> {
                member.awaitingJoin = answer;
                tryCompleteJoin();
            }
            // a member whose join answer was lost joins again: it gets the same answer, unless it changed
            case COMPLETING_REBALANCE, STABLE -> {
                if (sameProtocols && !(state == State.STABLE && member.memberId.equals(leaderId))) {
                    answer.complete(joinAnswer(member));
                } else {
                    member.awaitingJoin = answer;
                    prepareRebalance();
                    tryCompleteJoin();
                }
            }
            case EMPTY -> throw new IllegalStateException("group " + groupId + " is empty but has member " + member.memberId);
        }
    }

    /**
     * A SyncGroup: the leader's hands every member its assignment and makes the group stable; a
     * follower's waits for the leader's, or is answered at once once the group is stable.
     */
    CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData request) {
        Member member = members.get(request.memberId());
        if (member == null) {
            return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
        }
        if (request.generationId() != generationId) {
            return syncError(ErrorCode.ILLEGAL_GENERATION);
        }
        if ((request.protocolType() != null && !request.protocolType().equals(protocolType))
            || (request.protocolName() != null && !request.protocolName().equals(protocolName))) {
            return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        }
        heartbeat(member);
        switch (state) {
            case PREPARING_REBALANCE:
                return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
            case STABLE:
                return CompletableFuture.completedFuture(syncAnswer(member));
            case COMPLETING_REBALANCE:
                member.awaitingSync = new CompletableFuture<>();
                CompletableFuture<SyncGroupResponseData> answer = member.awaitingSync;
                if (member.memberId.equals(leaderId)) {
                    Map<String, byte[]> assignments = new HashMap<>();
                    for (SyncGroupRequestAssignment assignment : request.assignments()) {
                        assignments.put(assignment.memberId(), assignment.assignment());
                    }
                    state = State.STABLE;
                    for (Member m : members.values()) {
                        m.assignment = assignments.getOrDefault(m.memberId, new byte[0]);
                        if (m.awaitingSync != null) {
                            m.awaitingSync.complete(syncAnswer(m));
                            m.awaitingSync = null;
                        }
                    }
                }
                return answer;
            default:
                return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
        }
    }

    /** A Heartbeat: NONE, or why the member must join (again). */
    ErrorCode heartbeat(String memberId, int generation) {
        Member member = members.get(memberId);
        if (member == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (generation != generationId) {
            return ErrorCode.ILLEGAL_GENERATION;
        }
        heartbeat(member);
        return state == State.PREPARING_REBALANCE ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
    }

    /** A member leaving (LeaveGroup): it is removed, and the others rebalance. */
    ErrorCode leave(String memberId) {
        if (pendingMembers.remove(memberId)) {
            tryCompleteJoin();
            return ErrorCode.NONE;
        }
        Member member = members.get(memberId);
        if (member == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        remove(member);
        return ErrorCode.NONE;
    }

    /**
     * Whether an OffsetCommit of this member at this generation is accepted, as a broker checks
     * it: a commit naming no member and generation -1 (a consumer outside group management) only
     * while the group is empty.
     */
    ErrorCode validateOffsetCommit(String memberId, int generation) {
        if (generation < 0 && state == State.EMPTY) {
            return ErrorCode.NONE;
        }
        if (generation >= 0 || !memberId.isEmpty()) {
            Member member = members.get(memberId);
            if (member == null) {
                return ErrorCode.UNKNOWN_MEMBER_ID;
            }
            if (generation != generationId) {
                return ErrorCode.ILLEGAL_GENERATION;
            }
            if (state == State.COMPLETING_REBALANCE) {
                return ErrorCode.REBALANCE_IN_PROGRESS;
            }
            heartbeat(member);
            return ErrorCode.NONE;
        }
        return ErrorCode.UNKNOWN_MEMBER_ID;
    }

    /**
     * The coordinator moved away: requests waiting here are answered NOT_COORDINATOR, as by a
     * broker that resigns a group, so their members find the new coordinator and join again there.
     */
    void resign() {
        for (Member member : members.values()) {
            if (member.awaitingJoin != null) {
                member.awaitingJoin.complete(joinError(ErrorCode.NOT_COORDINATOR, member.memberId));
                member.awaitingJoin = null;
            }
            if (member.awaitingSync != null) {
                member.awaitingSync.complete(new SyncGroupResponseData().setErrorCode(ErrorCode.NOT_COORDINATOR.code()));
                member.awaitingSync = null;
            }
        }
    }

    private void prepareRebalance() {
        if (state == State.COMPLETING_REBALANCE) {
            for (Member member : members.values()) {
                member.assignment = new byte[0];
                if (member.awaitingSync != null) {
                    member.awaitingSync.complete(new SyncGroupResponseData().setErrorCode(ErrorCode.REBALANCE_IN_PROGRESS.code()));
                    member.awaitingSync = null;
                }
            }
        }
        state = State.PREPARING_REBALANCE;
        long thisRebalance = ++rebalance;
        int timeoutMs = members.values().stream().mapToInt(m -> m.rebalanceTimeoutMs).max().orElse(0);
        joinTimeout = scheduler.schedule(() -> {
            synchronized (lock) {
                if (rebalance == thisRebalance && state == State.PREPARING_REBALANCE) {
                    completeJoin();
                }
            }
        }, timeoutMs);
    }

    private void tryCompleteJoin() {
        if (state == State.PREPARING_REBALANCE && pendingMembers.isEmpty()
            && members.values().stream().allMatch(m -> m.awaitingJoin != null)) {
            completeJoin();
        }
    }

    /** Ends the join phase: members that did not join again are expelled, and a generation begins. */
    private void completeJoin() {
        joinTimeout.cancel(false);
        rebalance++;
        for (Member member : List.copyOf(members.values())) {
            if (member.awaitingJoin == null) {
                drop(member);
            }
        }
        generationId++;
        if (members.isEmpty()) {
            state = State.EMPTY;
            protocolName = null;
            return;
        }
        protocolName = chooseProtocol();
        state = State.COMPLETING_REBALANCE;
        for (Member member : members.values()) {
            member.awaitingJoin.complete(joinAnswer(member));
            member.awaitingJoin = null;
            heartbeat(member);
        }
    }

    private void remove(Member member) {
        if (member.awaitingJoin != null) {
            member.awaitingJoin.complete(joinError(ErrorCode.UNKNOWN_MEMBER_ID, member.memberId));
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.complete(new SyncGroupResponseData().setErrorCode(ErrorCode.UNKNOWN_MEMBER_ID.code()));
        }
        drop(member);
        if (state != State.PREPARING_REBALANCE) {
            prepareRebalance();
        }
        tryCompleteJoin();
    }

    private void drop(Member member) {
        members.remove(member.memberId);
        lock.notifyAll(); // a membership change, for GroupCoordinator#awaitMembers
        if (member.expiry != null) {
            member.expiry.cancel(false);
        }
        if (member.memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** Restarts a member's session: it expires {@code sessionTimeoutMs} after its last sign of life. */
    private void heartbeat(Member member) {
        if (member.expiry != null) {
            member.expiry.cancel(false);
        }
        long session = ++member.session;
        member.expiry = scheduler.schedule(() -> {
            synchronized (lock) {
                if (members.get(member.memberId) == member && member.session == session) {
                    sessionExpired(member);
                }
            }
        }, member.sessionTimeoutMs);
    }

    /** A member waiting for the coordinator's answer is kept alive, as a broker does; any other is removed. */
    private void sessionExpired(Member member) {
        if (member.awaitingJoin != null || member.awaitingSync != null) {
            heartbeat(member);
        } else {
            remove(member);
        }
    }

    private void pendingMemberExpired(String memberId) {
        synchronized (lock) {
            if (pendingMembers.remove(memberId)) {
                tryCompleteJoin();
            }
        }
    }

    /**
     * The protocol every member supports that most members list first among those, ties going
     * to the earlier in the leader's order (a broker breaks ties by no stated rule).
     */
    private String chooseProtocol() {
        Set<String> candidates = new LinkedHashSet<>(members.get(leaderId).protocols.keySet());
        members.values().forEach(m -> candidates.retainAll(m.protocols.keySet()));
        Map<String, Integer> votes = new LinkedHashMap<>();
        candidates.forEach(c -> votes.put(c, 0));
        for (Member member : members.values()) {
            member.protocols.keySet().stream().filter(candidates::contains).findFirst()
                .ifPresent(vote -> votes.merge(vote, 1, Integer::sum));
        }
        String chosen = null;
        for (Map.Entry<String, Integer> entry : votes.entrySet()) {
            if (chosen == null || entry.getValue() > votes.get(chosen)) {
                chosen = entry.getKey();
            }
        }
        return chosen;
    }

    private boolean supportsACommonProtocol(JoinGroupRequestData request) {
        for (JoinGroupRequestProtocol protocol : request.protocols()) {
            if (members.values().stream().allMatch(m -> m.protocols.containsKey(protocol.name()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameProtocols(Member member, JoinGroupRequestData request) {
        if (member.protocols.size() != request.protocols().size()) {
            return false;
        }
        for (JoinGroupRequestProtocol protocol : request.protocols()) {
            byte[] known = member.protocols.get(protocol.name());
            if (known == null || !Arrays.equals(known, protocol.metadata())) {
                return false;
            }
        }
        return true;
    }

    private static void update(Member member, JoinGroupRequestData request) {
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        // v0 had no rebalance timeout: the session timeout served for both
        member.rebalanceTimeoutMs = request.rebalanceTimeoutMs() < 0 ? request.sessionTimeoutMs() : request.rebalanceTimeoutMs();
        Map<String, byte[]> protocols = new LinkedHashMap<>();
        for (JoinGroupRequestProtocol protocol : request.protocols()) {
            protocols.put(protocol.name(), protocol.metadata());
        }
        member.protocols = protocols;
    }

    private JoinGroupResponseData joinAnswer(Member member) {
        List<JoinGroupResponseMember> all = new ArrayList<>();
        if (member.memberId.equals(leaderId)) {
            for (Member m : members.values()) {
                all.add(new JoinGroupResponseMember().setMemberId(m.memberId).setMetadata(m.protocols.get(protocolName)));
            }
        }
        return new JoinGroupResponseData()
            .setGenerationId(generationId)
            .setProtocolType(protocolType)
            .setProtocolName(protocolName)
            .setLeader(leaderId)
            .setMemberId(member.memberId)
            .setMembers(all);
    }

    private SyncGroupResponseData syncAnswer(Member member) {
        return new SyncGroupResponseData()
            .setProtocolType(protocolType)
            .setProtocolName(protocolName)
            .setAssignment(member.assignment);
    }

    static JoinGroupResponseData joinError(ErrorCode error, String memberId) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setMemberId(Objects.requireNonNullElse(memberId, ""));
    }

    private static CompletableFuture<SyncGroupResponseData> syncError(ErrorCode error) {
        return CompletableFuture.completedFuture(new SyncGroupResponseData().setErrorCode(error.code()));
    }
}
