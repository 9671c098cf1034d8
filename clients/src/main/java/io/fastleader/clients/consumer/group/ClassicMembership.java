package io.fastleader.clients.consumer.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.JoinGroupResponseData.JoinGroupResponseMember;
import io.fastleader.protocol.message.LeaveGroupRequestData;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupResponseData;

/**
 * One consumer's membership of a group under the classic protocol: a state machine fed with the
 * clock, the coordinator's answers and what the consumer's thread did, which says which request to
 * send and when, and what the consumer's thread must do next. As in {@code KafkaConsumer}, a
 * rebalance moves only while the application polls: joining, running a leader's assignor and
 * taking an assignment are the consumer thread's tasks; heartbeats go on between polls.
 *
 * <pre>
 * UNSUBSCRIBED --subscribe, poll--&gt; PREPARING --poll revokes (eager) and builds the subscription--&gt; JOINING
 *   JOINING --JoinGroup answered, leader--&gt; ASSIGNING --poll runs the assignor--&gt; SYNCING
 *   JOINING --JoinGroup answered, follower--&gt; SYNCING --SyncGroup answered--&gt; STABLE (poll takes the assignment)
 *   STABLE --rejoin asked (REBALANCE_IN_PROGRESS, subscription changed, partitions revoked cooperatively), poll--&gt; PREPARING
 *   any member state --ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID--&gt; LOST --poll releases partitions as lost--&gt; PREPARING
 *   STABLE --no poll for max.poll.interval.ms--&gt; LEAVING --&gt; LOST
 *   any member state --leave--&gt; LEAVING --answer or failure--&gt; UNSUBSCRIBED
 *   any --fatal error--&gt; FATAL (poll raises it until the application unsubscribes)
 * </pre>
 *
 * <p>Used on the consumer's state owner only, so it needs no lock. No I/O and no clock of its own.
 */
final class ClassicMembership {

    private static final Logger LOG = LoggerFactory.getLogger(ClassicMembership.class);
    /** The generation of a member that is not in the group. */
    static final int NO_GENERATION = -1;

    enum State { UNSUBSCRIBED, PREPARING, JOINING, ASSIGNING, SYNCING, STABLE, LOST, LEAVING, FATAL }

    /** What the consumer's thread must do before it fetches on. */
    sealed interface Task {
        /** The membership ended with an error: raise it. */
        record Fail(RuntimeException error) implements Task {
        }

        /** The member lost its generation: give every partition up as lost, then {@link #released}. */
        record ReleaseLost() implements Task {
        }

        /** Revoke what must go before joining, then hand the protocols to join with to {@link #prepared}. */
        record PrepareJoin(int generation) implements Task {
        }

        /** The member leads the group: run the assignor {@code protocol} names over the members, then {@link #assigned}. */
        record Assign(String protocol, int generation, List<JoinGroupResponseMember> members) implements Task {
        }

        /** Take the assignment SyncGroup gave (Kafka's ConsumerProtocol bytes), then {@link #reconciled}. */
        record Reconcile(String protocol, int generation, byte[] assignment) implements Task {
        }
    }

    /** A request of the rebalance: JoinGroup, SyncGroup or LeaveGroup, one in flight at a time. */
    sealed interface Exchange {
        record Join(JoinGroupRequestData request) implements Exchange {
        }

        record Sync(SyncGroupRequestData request) implements Exchange {
        }

        record Leave(LeaveGroupRequestData request) implements Exchange {
        }
    }

    /** The timing the member was configured with: {@code session.timeout.ms}, {@code heartbeat.interval.ms}, {@code max.poll.interval.ms}. */
    record Timeouts(int sessionTimeoutMs, int heartbeatIntervalMs, int rebalanceTimeoutMs) {
    }

    private final String groupId;
    private final Optional<String> instanceId;
    private final Timeouts timeouts;
    private final ExponentialBackoff retryBackoff;
    private final DoubleSupplier random;

    private State state = State.UNSUBSCRIBED;
    private String memberId = "";
    private int generation = NO_GENERATION;
    private String protocol;
    private List<JoinGroupRequestProtocol> protocols = List.of();
    /** The group's members and their subscriptions, as JoinGroup gave them to the leader. */
    private List<JoinGroupResponseMember> members = List.of();
    private Map<String, byte[]> assignments = Map.of();
    private byte[] assignment;
    private boolean reconciled;
    private boolean subscribed;
    private boolean joinOnPoll;
    private boolean rejoinAsked;
    private boolean exchangeInFlight;
    private boolean heartbeatInFlight;
    /** The generation the heartbeat in flight was sent in. */
    private int heartbeatGeneration = NO_GENERATION;
    private long exchangeNotBeforeMs;
    private long nextHeartbeatMs = Long.MAX_VALUE;
    private int exchangeFailures;
    private int heartbeatFailures;
    private long lastPollMs;
    private long rebalanceStartMs;
    private boolean lostAfterLeave;
    private RuntimeException fatal;
    private CompletableFuture<Void> left = CompletableFuture.completedFuture(null);

    ClassicMembership(String groupId, Optional<String> instanceId, Timeouts timeouts, ExponentialBackoff retryBackoff,
                      DoubleSupplier random) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.instanceId = instanceId;
        this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
        this.retryBackoff = retryBackoff;
        this.random = random;
    }

    // ---------------------------------------------------------------- asked for by poll and the application's calls

    /**
     * Subscribes, or changes the subscription: the member joins on the next poll (once a leave under
     * way is answered), or rejoins once its current assignment is taken, as {@code KafkaConsumer}'s does.
     */
    void subscribe() {
        subscribed = true;
        if (state == State.UNSUBSCRIBED || state == State.FATAL) {
            joinOnPoll = true;
        } else {
            rejoinAsked = true;
        }
    }

    /**
     * Asks for a rebalance (a leader that saw the group's topics change, a cooperative revocation), kept
     * until the member has taken the assignment of the rebalance under way, if any.
     */
    void rejoin(String reason) {
        if (state != State.UNSUBSCRIBED && state != State.FATAL && !rejoinAsked) {
            LOG.info("Member {} of group {} asks to rejoin: {}", memberId, groupId, reason);
            rejoinAsked = true;
        }
    }

    /**
     * The application asked for a rebalance ({@code enforceRebalance}): the member rejoins on the next
     * poll; while a rebalance is in progress this is a no-op, as {@code KafkaConsumer} documents (its
     * SyncGroup answer clears a rejoin asked meanwhile).
     */
    void enforceRebalance(String reason) {
        if (state == State.STABLE) {
            rejoin(reason);
        }
    }

    /**
     * The application polled: its poll timer starts again; a member asked to (re)join starts preparing.
     *
     * @return whether the membership changed, so requests may be due at once
     */
    boolean polled(long nowMs) {
        lastPollMs = nowMs;
        if (joinOnPoll || (rejoinAsked && isReconciled())) {
            joinOnPoll = false;
            startPreparing(nowMs);
            return true;
        }
        return false;
    }

    /** What the consumer's thread must do now, if anything. */
    Optional<Task> task() {
        return switch (state) {
            case FATAL -> Optional.of(new Task.Fail(fatal));
            case LOST -> Optional.of(new Task.ReleaseLost());
            case PREPARING -> Optional.of(new Task.PrepareJoin(generation));
            case ASSIGNING -> assignments.isEmpty() ? Optional.of(new Task.Assign(protocol, generation, members)) : Optional.empty();
            case STABLE -> reconciled ? Optional.empty() : Optional.of(new Task.Reconcile(protocol, generation, assignment));
            default -> Optional.empty();
        };
    }

    /** A member that lost its generation gave its partitions up: it joins again, owning none. */
    void released(long nowMs) {
        if (state == State.LOST) {
            startPreparing(nowMs);
        }
    }

    /** The consumer's thread prepared to join: {@code offered} are the assignors' names and subscriptions, in preference order. */
    void prepared(List<JoinGroupRequestProtocol> offered) {
        if (state != State.PREPARING) {
            return;
        }
        protocols = List.copyOf(offered);
        state = State.JOINING;
        exchangeNotBeforeMs = 0;
        exchangeFailures = 0;
    }

    /** The leader's assignor ran: each member's assignment (ConsumerProtocol bytes) by member id, sent with SyncGroup. */
    void assigned(int forGeneration, Map<String, byte[]> byMember) {
        if (state != State.ASSIGNING || forGeneration != generation) {
            return;
        }
        assignments = Map.copyOf(byMember);
        state = State.SYNCING;
    }

    /** The consumer's thread took the assignment of {@code forGeneration}. */
    void reconciled(int forGeneration) {
        if (state == State.STABLE && forGeneration == generation) {
            reconciled = true;
        }
    }

    /**
     * Leaves the group: with {@code sendLeaveGroup} the member sends LeaveGroup at once; without, it
     * sends nothing and keeps its place for its session timeout (a static member that will come
     * back, or any closed to remain in the group).
     *
     * @return completes once the coordinator answered the leave or it failed; at once when nothing is sent
     */
    CompletableFuture<Void> leave(boolean sendLeaveGroup) {
        subscribed = false;
        joinOnPoll = false;
        rejoinAsked = false;
        boolean known = !memberId.isEmpty() && state != State.UNSUBSCRIBED && state != State.FATAL && state != State.LEAVING;
        if (known && sendLeaveGroup) {
            startLeaving(false);
            return left;
        }
        if (state == State.LEAVING) {
            lostAfterLeave = false;
        } else {
            becomeUnsubscribed();
        }
        return left;
    }

    State state() {
        return state;
    }

    /** When the rebalance under way started: from the poll that began preparing to join. */
    long rebalanceStartMs() {
        return rebalanceStartMs;
    }

    /** Whether the member is joining: from preparing to join until SyncGroup answers; its commits are refused meanwhile. */
    boolean isRebalancing() {
        return state == State.PREPARING || state == State.JOINING || state == State.ASSIGNING || state == State.SYNCING;
    }

    /** Whether the member is in the group and has taken the assignment its generation gave it. */
    boolean isReconciled() {
        return state == State.STABLE && reconciled;
    }

    /**
     * Who commits for the group, as {@code KafkaConsumer}'s classic coordinator decides: this member
     * at its generation once it has one and the group is stable; nobody in it while not subscribed.
     *
     * @throws RebalanceInProgressException while the member rebalances: the application polls and commits again
     * @throws CommitFailedException        when it has been put out of the group
     */
    MemberIdentity committer() {
        if (!subscribed && state == State.UNSUBSCRIBED) {
            return MemberIdentity.OUTSIDE_THE_GROUP;
        }
        // While preparing to join, the generation still stands: a commit before revoking is made in it, as KafkaConsumer's.
        if (state == State.STABLE || (state == State.PREPARING && generation != NO_GENERATION)) {
            return new MemberIdentity(memberId, generation, instanceId);
        }
        if (state == State.PREPARING || state == State.JOINING || state == State.ASSIGNING || state == State.SYNCING) {
            throw new RebalanceInProgressException("Offset commit cannot be completed since the consumer is undergoing a rebalance "
                    + "for auto partition assignment. You can try completing the rebalance by calling poll() and then retry the operation.");
        }
        throw new CommitFailedException("Offset commit cannot be completed since the consumer is not part of an active group for "
                + "auto partition assignment; it is likely that the consumer was kicked out of the group.");
    }

    /** The member id the coordinator gave; empty before it gave one. */
    String memberId() {
        return memberId;
    }

    /**
     * The member as {@code groupMetadata()} describes it, as {@code KafkaConsumer}'s classic
     * coordinator: its id and generation from the JoinGroup answer on; no id and generation -1 once
     * the generation is lost or left, and before the first.
     */
    MemberIdentity described() {
        return generation == NO_GENERATION
                ? new MemberIdentity("", NO_GENERATION, instanceId)
                : new MemberIdentity(memberId, generation, instanceId);
    }

    // ---------------------------------------------------------------- requests

    /** A JoinGroup or SyncGroup to send now, if one is due and none is in flight. */
    Optional<Exchange> nextExchange(long nowMs) {
        if (exchangeInFlight || nowMs < exchangeNotBeforeMs) {
            return Optional.empty();
        }
        if (state == State.JOINING) {
            exchangeInFlight = true;
            return Optional.of(new Exchange.Join(joinRequest()));
        }
        if (state == State.SYNCING) {
            exchangeInFlight = true;
            return Optional.of(new Exchange.Sync(syncRequest()));
        }
        if (state == State.LEAVING) {
            exchangeInFlight = true;
            return Optional.of(new Exchange.Leave(leaveRequest()));
        }
        return Optional.empty();
    }

    /**
     * The heartbeat to send now, if one is due: from the JoinGroup answer until the member leaves, as
     * {@code KafkaConsumer}'s heartbeat thread sends them. A member whose application has not polled
     * for {@code max.poll.interval.ms} leaves here, as {@code KafkaConsumer} does.
     */
    Optional<HeartbeatRequestData> nextHeartbeat(long nowMs) {
        if (isInGeneration() && nowMs - lastPollMs > timeouts.rebalanceTimeoutMs()) {
            LOG.warn("consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than "
                    + "the configured max.poll.interval.ms ({} ms), which typically implies that the poll loop is spending too much "
                    + "time processing messages. Member {} leaves group {}; it rejoins on the next poll(), its partitions lost.",
                    timeouts.rebalanceTimeoutMs(), memberId, groupId);
            if (instanceId.isPresent()) {
                // A static member sends no LeaveGroup, as KafkaConsumer's: it keeps its place for its session timeout.
                generation = NO_GENERATION;
                state = State.LOST;
            } else {
                startLeaving(true);
            }
            return Optional.empty();
        }
        if (heartbeatInFlight || !isInGeneration() || nowMs < nextHeartbeatMs) {
            return Optional.empty();
        }
        heartbeatInFlight = true;
        heartbeatGeneration = generation;
        return Optional.of(new HeartbeatRequestData().setGroupId(groupId).setGenerationId(generation).setMemberId(memberId)
                .setGroupInstanceId(instanceId.orElse(null)));
    }

    /** When a request or the poll timer is next due; {@code Long.MAX_VALUE} if nothing is planned. */
    long nextDueMs() {
        long due = Long.MAX_VALUE;
        if (!exchangeInFlight && (state == State.JOINING || state == State.SYNCING || state == State.LEAVING)) {
            due = exchangeNotBeforeMs;
        }
        if (isInGeneration()) {
            if (!heartbeatInFlight) {
                due = Math.min(due, nextHeartbeatMs);
            }
            due = Math.min(due, lastPollMs + timeouts.rebalanceTimeoutMs() + 1);
        }
        return due;
    }

    // ---------------------------------------------------------------- answers

    ClassicErrorKind onJoinAnswer(JoinGroupResponseData answer, long nowMs) {
        exchangeInFlight = false;
        ErrorCode error = ErrorCode.forCode(answer.errorCode());
        ClassicErrorKind kind = ClassicErrorKind.of(error);
        if (state != State.JOINING) {
            return kind;
        }
        switch (kind) {
            case NONE -> joined(answer, nowMs);
            case MEMBER_ID_REQUIRED -> {
                memberId = answer.memberId();
                exchangeNotBeforeMs = 0;
            }
            // As KafkaConsumer's: what a cooperative member still owns may be someone else's by now; it prepares again.
            case FENCED -> lostGeneration(error);
            case COORDINATOR_MOVED, RETRIABLE, REBALANCING -> retryExchange(kind != ClassicErrorKind.RETRIABLE, nowMs, error);
            case FATAL -> fail(ClassicErrorKind.exception(error, null, groupId));
        }
        return kind;
    }

    ClassicErrorKind onSyncAnswer(SyncGroupResponseData answer, long nowMs) {
        exchangeInFlight = false;
        ErrorCode error = ErrorCode.forCode(answer.errorCode());
        ClassicErrorKind kind = ClassicErrorKind.of(error);
        if (state != State.SYNCING) {
            return kind;
        }
        switch (kind) {
            case NONE -> {
                if (answer.protocolName() != null && !answer.protocolName().equals(protocol)) {
                    fail(new InconsistentGroupProtocolException("SyncGroup of group " + groupId
                            + " answered protocol " + answer.protocolName() + ", JoinGroup " + protocol));
                    return ClassicErrorKind.FATAL;
                }
                assignment = answer.assignment();
                reconciled = false;
                state = State.STABLE;
                LOG.info("Member {} of group {} synced generation {} (protocol {})", memberId, groupId, generation, protocol);
            }
            case FENCED -> lostGeneration(error);
            // A failed SyncGroup rejoins without preparing again, as KafkaConsumer does: nothing was taken since.
            case COORDINATOR_MOVED, RETRIABLE, REBALANCING -> {
                state = State.JOINING;
                retryExchange(kind != ClassicErrorKind.RETRIABLE, nowMs, error);
            }
            default -> fail(ClassicErrorKind.exception(error, null, groupId));
        }
        return kind;
    }

    ClassicErrorKind onHeartbeatAnswer(HeartbeatResponseData answer, long nowMs) {
        heartbeatInFlight = false;
        ErrorCode error = ErrorCode.forCode(answer.errorCode());
        ClassicErrorKind kind = ClassicErrorKind.of(error);
        if (!isInGeneration()) {
            return kind;
        }
        switch (kind) {
            case NONE -> {
                heartbeatFailures = 0;
                nextHeartbeatMs = nowMs + timeouts.heartbeatIntervalMs();
            }
            case REBALANCING -> {
                nextHeartbeatMs = nowMs + timeouts.heartbeatIntervalMs();
                // While joining, SyncGroup's own answer says whether the generation stands.
                if (state == State.STABLE) {
                    rejoin("the coordinator started a rebalance");
                }
            }
            case FENCED -> {
                // Sent in an earlier generation, answered after JoinGroup: it says nothing of this one (KafkaConsumer ignores it).
                if (heartbeatGeneration == generation) {
                    lostGeneration(error);
                }
            }
            case COORDINATOR_MOVED, RETRIABLE, MEMBER_ID_REQUIRED -> retryHeartbeat(kind == ClassicErrorKind.COORDINATOR_MOVED, nowMs, error);
            case FATAL -> fail(ClassicErrorKind.exception(error, null, groupId));
        }
        return kind;
    }

    void onLeaveAnswer(LeaveGroupResponseData answer) {
        exchangeInFlight = false;
        ErrorCode error = ErrorCode.forCode(answer.errorCode());
        if (error != ErrorCode.NONE) {
            LOG.debug("Member {} left group {}; the coordinator answered the leave with {}", memberId, groupId, error);
        }
        finishLeaving();
    }

    /** A JoinGroup, SyncGroup or LeaveGroup got no answer: retriable failures retry (the coordinator found again), others end the membership. */
    ClassicErrorKind onExchangeFailed(Throwable failure, long nowMs) {
        exchangeInFlight = false;
        if (state == State.LEAVING) {
            LOG.debug("Member {} could not tell group {} it leaves; the coordinator will drop it after its session timeout",
                    memberId, groupId, failure);
            finishLeaving();
            return ClassicErrorKind.FATAL;
        }
        if (state != State.JOINING && state != State.SYNCING) {
            return ClassicErrorKind.NONE;
        }
        if (failure instanceof RetriableException) {
            state = State.JOINING;
            retryExchange(true, nowMs, failure);
            return ClassicErrorKind.COORDINATOR_MOVED;
        }
        fail(failure instanceof KafkaException kafka ? kafka : new KafkaException(failure));
        return ClassicErrorKind.FATAL;
    }

    /** A heartbeat got no answer: the coordinator is found again and asked at once, later ones back off. */
    ClassicErrorKind onHeartbeatFailed(Throwable failure, long nowMs) {
        heartbeatInFlight = false;
        if (!isInGeneration()) {
            return ClassicErrorKind.NONE;
        }
        retryHeartbeat(true, nowMs, failure);
        return ClassicErrorKind.COORDINATOR_MOVED;
    }

    // ---------------------------------------------------------------- transitions

    private void startPreparing(long nowMs) {
        state = State.PREPARING;
        rejoinAsked = false;
        rebalanceStartMs = nowMs;
    }

    private void joined(JoinGroupResponseData answer, long nowMs) {
        memberId = answer.memberId();
        generation = answer.generationId();
        protocol = answer.protocolName();
        exchangeFailures = 0;
        heartbeatFailures = 0;
        nextHeartbeatMs = nowMs + timeouts.heartbeatIntervalMs();
        assignments = Map.of();
        boolean leads = memberId.equals(answer.leader()) && !answer.skipAssignment();
        LOG.info("Member {} joined group {} at generation {} with protocol {}{}", memberId, groupId, generation, protocol,
                leads ? " as its leader" : "");
        if (leads) {
            members = List.copyOf(answer.members());
            state = State.ASSIGNING;
        } else {
            members = List.of();
            state = State.SYNCING;
        }
    }

    private void lostGeneration(ErrorCode error) {
        LOG.info("Member {} of group {} lost generation {} ({}): its partitions are lost; it joins again", memberId, groupId,
                generation, error);
        if (error == ErrorCode.UNKNOWN_MEMBER_ID) {
            memberId = "";
        }
        generation = NO_GENERATION;
        state = State.LOST;
    }

    /**
     * Plans the next JoinGroup: after a lost coordinator or a rebalance that began meanwhile (KafkaConsumer
     * rejoins at once then), the first at once; any other, and any later one, after backoff.
     */
    private void retryExchange(boolean firstAtOnce, long nowMs, Object cause) {
        exchangeFailures++;
        long backoffMs = firstAtOnce && exchangeFailures == 1 ? 0 : retryBackoff.millis(exchangeFailures, random.getAsDouble());
        exchangeNotBeforeMs = nowMs + backoffMs;
        LOG.debug("Rebalance request of member {} in group {} failed ({}); next in {} ms", memberId, groupId, cause, backoffMs);
    }

    private void retryHeartbeat(boolean coordinatorLost, long nowMs, Object cause) {
        heartbeatFailures++;
        long backoffMs = coordinatorLost && heartbeatFailures == 1 ? 0 : retryBackoff.millis(heartbeatFailures, random.getAsDouble());
        nextHeartbeatMs = nowMs + backoffMs;
        LOG.debug("Heartbeat of member {} in group {} failed ({}); next in {} ms", memberId, groupId, cause, backoffMs);
    }

    private void fail(RuntimeException error) {
        LOG.error("Member {} of group {} stops: {}", memberId, groupId, error.toString());
        state = State.FATAL;
        fatal = error;
        generation = NO_GENERATION;
    }

    private void startLeaving(boolean lost) {
        state = State.LEAVING;
        lostAfterLeave = lost;
        exchangeNotBeforeMs = 0;
        if (left.isDone()) {
            left = new CompletableFuture<>();
        }
    }

    private void finishLeaving() {
        CompletableFuture<Void> done = left;
        memberId = "";
        generation = NO_GENERATION;
        if (lostAfterLeave) {
            state = State.LOST;
        } else {
            becomeUnsubscribed();
            // Subscribed again before the leave was answered (unsubscribe gave up waiting): it joins on the next poll.
            joinOnPoll = subscribed;
            rejoinAsked = false;
        }
        done.complete(null);
    }

    private void becomeUnsubscribed() {
        state = State.UNSUBSCRIBED;
        generation = NO_GENERATION;
        fatal = null;
        left.complete(null);
    }

    /** From the JoinGroup answer on, while the member has a generation: it heartbeats, and its poll timer runs. */
    private boolean isInGeneration() {
        return state == State.ASSIGNING || state == State.SYNCING || state == State.STABLE;
    }

    private JoinGroupRequestData joinRequest() {
        JoinGroupRequestProtocolCollection offered = new JoinGroupRequestProtocolCollection();
        protocols.forEach(offer -> offered.add(offer.duplicate()));
        return new JoinGroupRequestData()
                .setGroupId(groupId)
                .setSessionTimeoutMs(timeouts.sessionTimeoutMs())
                .setRebalanceTimeoutMs(timeouts.rebalanceTimeoutMs())
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId.orElse(null))
                .setProtocolType(ConsumerProtocolCodec.PROTOCOL_TYPE)
                .setProtocols(offered);
    }

    private SyncGroupRequestData syncRequest() {
        List<SyncGroupRequestData.SyncGroupRequestAssignment> given = new ArrayList<>();
        assignments.forEach((member, bytes) -> given.add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                .setMemberId(member).setAssignment(bytes)));
        return new SyncGroupRequestData()
                .setGroupId(groupId)
                .setGenerationId(generation)
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId.orElse(null))
                .setProtocolType(ConsumerProtocolCodec.PROTOCOL_TYPE)
                .setProtocolName(protocol)
                .setAssignments(given);
    }

    private LeaveGroupRequestData leaveRequest() {
        return new LeaveGroupRequestData()
                .setGroupId(groupId)
                .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(memberId)
                        .setGroupInstanceId(instanceId.orElse(null))));
    }
}
