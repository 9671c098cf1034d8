package io.fastleader.clients.consumer.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;

/**
 * One consumer's membership of a group under the consumer group protocol (KIP-848): a state
 * machine fed with the clock, the heartbeat answers and what the consumer's thread did, which
 * says which heartbeat to send and when, and what the consumer's thread must do next.
 *
 * <pre>
 * UNSUBSCRIBED --subscribe--&gt; JOINING --answer--&gt; STABLE --(target != owned: consumer's thread reconciles, next heartbeat acknowledges)
 *   JOINING/STABLE --FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID--&gt; FENCED --partitions released as lost--&gt; JOINING
 *   STABLE --no poll for max.poll.interval.ms--&gt; LEAVING --&gt; STALE --next poll releases partitions as lost--&gt; JOINING
 *   JOINING/STABLE --leave--&gt; LEAVING --answer or failure--&gt; UNSUBSCRIBED
 *   any --fatal error--&gt; FATAL (poll raises it until the application unsubscribes)
 * </pre>
 *
 * <p>Used on the consumer's state owner only (heartbeat answers reach it as the owner's tasks),
 * so it needs no lock. No I/O and no clock of its own.
 */
final class GroupMembership {

    private static final Logger LOG = LoggerFactory.getLogger(GroupMembership.class);
    /** The epoch a member joins with. */
    static final int JOIN_EPOCH = 0;
    /** The epoch of a dynamic member's leave. */
    static final int LEAVE_EPOCH = -1;
    /** The epoch of a static member's leave: it keeps its partitions for the session timeout, to come back to them. */
    static final int STATIC_LEAVE_EPOCH = -2;

    enum State { UNSUBSCRIBED, JOINING, STABLE, FENCED, LEAVING, STALE, FATAL }

    /**
     * What the member subscribes to: topic names (matched on the client for a {@code Pattern}), or
     * a regular expression the coordinator matches (RE2/J, a {@code SubscriptionPattern}).
     */
    record Subscription(SortedSet<String> topics, String regex) {
        static Subscription ofTopics(java.util.Collection<String> topics) {
            return new Subscription(Collections.unmodifiableSortedSet(new TreeSet<>(topics)), null);
        }

        static Subscription ofRegex(String regex) {
            return new Subscription(Collections.unmodifiableSortedSet(new TreeSet<>()), regex);
        }
    }

    /**
     * Partitions by topic id: a target the coordinator gave, or what the member owns.
     *
     * @param epoch the member epoch the target came with; that of the reconciled target for owned partitions
     */
    record Assignment(int epoch, Map<Uuid, SortedSet<Integer>> partitions) {
        static final Assignment NONE = new Assignment(JOIN_EPOCH, Map.of());

        boolean samePartitions(Assignment other) {
            return partitions.equals(other.partitions);
        }
    }

    /** What the consumer's thread must do before it fetches on. */
    sealed interface Task {
        /** The membership ended with an error: raise it. */
        record Fail(RuntimeException error) implements Task {
        }

        /** The member was fenced or left for an expired poll timer: give every partition up as lost, then {@link #released}. */
        record ReleaseLost() implements Task {
        }

        /** Make the assignment {@code target}: revoke, then assign; then {@link #reconciled}. */
        record Reconcile(Assignment target) implements Task {
        }
    }

    private final String groupId;
    private final Optional<String> instanceId;
    private final Optional<String> rackId;
    private final Optional<String> serverAssignor;
    private final int rebalanceTimeoutMs;
    private final long maxPollIntervalMs;
    private final ExponentialBackoff retryBackoff;
    private final DoubleSupplier random;

    private String memberId;
    private State state = State.UNSUBSCRIBED;
    private int epoch = JOIN_EPOCH;
    private Subscription subscription;
    private Assignment target = Assignment.NONE;
    private long targetSinceMs;
    private Assignment owned = Assignment.NONE;
    /**
     * Whether the member reconciled an assignment since it (re)joined. Until it has, even an empty
     * target is reconciled, so the listener hears {@code onPartitionsAssigned} with an empty set, as
     * from {@code KafkaConsumer}, whose assignment before the first reconciliation is "none", not empty.
     */
    private boolean reconciledSinceJoin;
    /** The next heartbeat carries every field: on joining, and after a heartbeat the coordinator may not have seen. */
    private boolean sendAllFields = true;
    /** What the coordinator has acknowledged: null before it answered a heartbeat that carried one. */
    private Subscription reportedSubscription;
    private Assignment reportedOwned;
    /** What the heartbeat in flight carries; null for a field it leaves out. */
    private Subscription sentSubscription;
    private Assignment sentOwned;
    private boolean inFlight;
    private long nextHeartbeatMs;
    private long notBeforeMs;
    private int failures;
    private long lastPollMs;
    private boolean staleAfterLeave;
    private RuntimeException fatal;
    /** Subscribed while not in the group: joins when the application next polls. */
    private boolean joinOnPoll;
    /**
     * The last epoch the coordinator gave this member ({@code groupMetadata()}'s generation), -1 before
     * the first: kept while the member leaves, is fenced or joins again, as {@code KafkaConsumer} keeps
     * it; forgotten when the application leaves the group.
     */
    private int lastEpoch = MemberIdentity.NO_EPOCH;
    /** Whether the coordinator ever gave this member an epoch: until then its commits name no member id, as KafkaConsumer's. */
    private boolean hadEpoch;
    private CompletableFuture<Void> left = CompletableFuture.completedFuture(null);

    /**
     * @param memberId           the id this consumer keeps for its whole life (KIP-1082)
     * @param rebalanceTimeoutMs how long the coordinator waits for this member to revoke partitions
     * @param maxPollIntervalMs  {@code max.poll.interval.ms}: a member whose application stops polling leaves
     * @param retryBackoff       between heartbeats that failed
     */
    GroupMembership(String groupId, String memberId, Optional<String> instanceId, Optional<String> rackId,
                    Optional<String> serverAssignor, int rebalanceTimeoutMs, long maxPollIntervalMs,
                    ExponentialBackoff retryBackoff, DoubleSupplier random) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.memberId = Objects.requireNonNull(memberId, "memberId");
        this.instanceId = instanceId;
        this.rackId = rackId;
        this.serverAssignor = serverAssignor;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.maxPollIntervalMs = maxPollIntervalMs;
        this.retryBackoff = retryBackoff;
        this.random = random;
    }

    // ---------------------------------------------------------------- asked for by poll and the application's calls

    /**
     * Subscribes, or changes the subscription; a member not in the group (or stopped by a fatal
     * error) joins on the next poll, as {@code KafkaConsumer}'s does: until then it commits as a
     * consumer outside the group.
     */
    void subscribe(Subscription wanted) {
        subscription = Objects.requireNonNull(wanted, "wanted");
        if (state == State.UNSUBSCRIBED || state == State.FATAL) {
            joinOnPoll = true;
        }
    }

    /**
     * The application polled: its poll timer starts again, and a subscribed member not in the group
     * joins.
     *
     * @return whether the member started joining, so a heartbeat is due at once
     */
    boolean polled(long nowMs) {
        lastPollMs = nowMs;
        if (!joinOnPoll) {
            return false;
        }
        joinOnPoll = false;
        join(nowMs);
        return true;
    }

    /** What the consumer's thread must do now, if anything. */
    Optional<Task> task() {
        return switch (state) {
            case FATAL -> Optional.of(new Task.Fail(fatal));
            case FENCED, STALE -> Optional.of(new Task.ReleaseLost());
            case STABLE -> isReconciled() ? Optional.empty() : Optional.of(new Task.Reconcile(target));
            default -> Optional.empty();
        };
    }

    /** The partitions a fenced or stale member owned are given up: it joins again, owning none. */
    void released(long nowMs) {
        owned = Assignment.NONE;
        if (state == State.FENCED || state == State.STALE) {
            join(nowMs);
        }
    }

    /** The consumer's thread made {@code assignment} its own: the next heartbeat, sent at once, says so. */
    void reconciled(Assignment assignment) {
        owned = assignment;
        reconciledSinceJoin = true;
    }

    /**
     * Leaves the group: the next heartbeat, sent at once, carries the leave epoch ({@link #STATIC_LEAVE_EPOCH}
     * for a static member that will come back, else {@link #LEAVE_EPOCH}).
     *
     * @param staticRejoin whether a static member keeps its place for its session timeout
     * @return completes once the coordinator answered the leave or it failed; at once when not in the group
     */
    CompletableFuture<Void> leave(boolean staticRejoin) {
        subscription = null;
        joinOnPoll = false;
        lastEpoch = MemberIdentity.NO_EPOCH;
        owned = Assignment.NONE;
        if (state == State.JOINING || state == State.STABLE) {
            startLeaving(staticRejoin && instanceId.isPresent() ? STATIC_LEAVE_EPOCH : LEAVE_EPOCH, false);
            return left;
        }
        if (state == State.LEAVING) {
            // Already leaving for an expired poll timer: now it ends unsubscribed, not stale.
            staleAfterLeave = false;
        } else {
            becomeUnsubscribed();
        }
        return left;
    }

    /** When the current target assignment arrived: a rebalance lasts from then until it is reconciled. */
    long targetSinceMs() {
        return targetSinceMs;
    }

    State state() {
        return state;
    }

    /**
     * Who commits for the group: this member at its epoch while the coordinator counts it in the
     * group; nobody in it while it is not subscribed. A member that is joining (no answer yet), fenced,
     * leaving, or left for an expired poll timer and has not rejoined yet, commits with its member id
     * and no epoch ({@link MemberIdentity#NO_EPOCH}), as {@code KafkaConsumer} does: the coordinator
     * takes such a commit while the group has no members. Before the coordinator ever gave it an epoch
     * the member id is left out too, as by {@code KafkaConsumer} 4.3.1.
     */
    MemberIdentity identity() {
        return switch (state) {
            case UNSUBSCRIBED -> MemberIdentity.OUTSIDE_THE_GROUP;
            case JOINING, FENCED, LEAVING, STALE -> new MemberIdentity(hadEpoch ? memberId : "", MemberIdentity.NO_EPOCH, instanceId);
            default -> new MemberIdentity(memberId, epoch, instanceId);
        };
    }

    /**
     * The member as {@code groupMetadata()} describes it, as {@code KafkaConsumer} 4.3.1 does: no
     * member id and generation -1 until the coordinator first gave an epoch; then the member id and
     * the last epoch given, kept while the member leaves for an expired poll timer, is fenced or joins
     * again, until the application leaves the group.
     */
    MemberIdentity described() {
        return lastEpoch == MemberIdentity.NO_EPOCH
                ? new MemberIdentity("", MemberIdentity.NO_EPOCH, instanceId)
                : new MemberIdentity(memberId, lastEpoch, instanceId);
    }

    /** Whether the member is in the group and owns the assignment the coordinator gave it last. */
    boolean isReconciled() {
        return state == State.STABLE && reconciledSinceJoin && target.samePartitions(owned);
    }

    // ---------------------------------------------------------------- heartbeats

    /**
     * The heartbeat to send now, if one is due and none is in flight; the caller sends it and
     * hands the outcome to {@link #onAnswer} or {@link #onNoAnswer}. A member whose application has
     * not polled for {@code max.poll.interval.ms} leaves here, as {@code KafkaConsumer} does.
     */
    Optional<ConsumerGroupHeartbeatRequestData> nextHeartbeat(long nowMs) {
        if (inFlight || nowMs < notBeforeMs) {
            return Optional.empty();
        }
        if (state == State.STABLE && nowMs - lastPollMs > maxPollIntervalMs) {
            LOG.warn("consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than "
                    + "the configured max.poll.interval.ms ({} ms), which typically implies that the poll loop is spending too much "
                    + "time processing messages. Member {} leaves group {}; it rejoins on the next poll(), its partitions lost.",
                    maxPollIntervalMs, memberId, groupId);
            startLeaving(LEAVE_EPOCH, true);
        }
        if (!isHeartbeating() || (!isUrgent() && nowMs < nextHeartbeatMs)) {
            return Optional.empty();
        }
        inFlight = true;
        return Optional.of(request());
    }

    /** When {@link #nextHeartbeat} will next have something to send; {@code Long.MAX_VALUE} if nothing is planned. */
    long nextDueMs() {
        if (inFlight || !isHeartbeating()) {
            return Long.MAX_VALUE;
        }
        long due = isUrgent() ? notBeforeMs : Math.max(notBeforeMs, nextHeartbeatMs);
        return state == State.STABLE ? Math.min(due, lastPollMs + maxPollIntervalMs + 1) : due;
    }

    /** Applies the coordinator's answer to the heartbeat in flight. */
    HeartbeatErrorKind onAnswer(ConsumerGroupHeartbeatResponseData answer, long nowMs) {
        inFlight = false;
        ErrorCode error = ErrorCode.forCode(answer.errorCode());
        HeartbeatErrorKind kind = HeartbeatErrorKind.of(error);
        if (state == State.LEAVING) {
            if (kind != HeartbeatErrorKind.NONE) {
                LOG.debug("Member {} left group {}; the coordinator answered the leave with {}", memberId, groupId, error);
            }
            finishLeaving();
            return kind;
        }
        if (!isHeartbeating()) {
            return kind;
        }
        switch (kind) {
            case NONE -> accepted(answer, nowMs);
            case COORDINATOR_MOVED, RETRIABLE -> retryAfterFailure(kind == HeartbeatErrorKind.COORDINATOR_MOVED, nowMs, error);
            case FENCED -> fenced(error);
            case FATAL -> fail(HeartbeatErrorKind.exception(error, answer.errorMessage(), groupId));
        }
        return kind;
    }

    /**
     * The heartbeat in flight got no answer. A retriable failure (a broken connection, a timeout,
     * no coordinator found) is treated as the coordinator having moved; anything else ends the membership.
     */
    HeartbeatErrorKind onNoAnswer(Throwable failure, long nowMs) {
        inFlight = false;
        if (state == State.LEAVING) {
            LOG.debug("Member {} could not tell group {} it leaves; the coordinator will drop it after its session timeout",
                    memberId, groupId, failure);
            finishLeaving();
            return HeartbeatErrorKind.FATAL;
        }
        if (!isHeartbeating()) {
            return HeartbeatErrorKind.NONE;
        }
        if (failure instanceof RetriableException) {
            retryAfterFailure(true, nowMs, failure);
            return HeartbeatErrorKind.COORDINATOR_MOVED;
        }
        fail(failure instanceof UnsupportedVersionException unsupported
                ? HeartbeatErrorKind.unsupportedProtocol(groupId, unsupported.getMessage())
                : failure instanceof KafkaException kafka ? kafka : new KafkaException(failure));
        return HeartbeatErrorKind.FATAL;
    }

    // ---------------------------------------------------------------- transitions

    private void join(long nowMs) {
        state = State.JOINING;
        epoch = JOIN_EPOCH;
        target = Assignment.NONE;
        reconciledSinceJoin = false;
        // A rebalance lasts from the join until the first assignment is reconciled, even an empty one.
        targetSinceMs = nowMs;
        sendAllFields = true;
        reportedSubscription = null;
        reportedOwned = null;
        failures = 0;
        notBeforeMs = 0;
        lastPollMs = nowMs;
        staleAfterLeave = false;
    }

    private void accepted(ConsumerGroupHeartbeatResponseData answer, long nowMs) {
        failures = 0;
        if (answer.memberId() != null && !answer.memberId().isEmpty()) {
            memberId = answer.memberId();
        }
        epoch = answer.memberEpoch();
        if (epoch > 0) {
            lastEpoch = epoch;
            hadEpoch = true;
        }
        nextHeartbeatMs = nowMs + Math.max(0, answer.heartbeatIntervalMs());
        sendAllFields = false;
        if (sentSubscription != null) {
            reportedSubscription = sentSubscription;
        }
        if (sentOwned != null) {
            reportedOwned = sentOwned;
        }
        sentSubscription = null;
        sentOwned = null;
        if (answer.assignment() != null) {
            Assignment previous = target;
            target = new Assignment(epoch, byTopicId(answer.assignment().topicPartitions()));
            if (!target.samePartitions(previous)) {
                targetSinceMs = nowMs;
            }
        }
        if (state == State.JOINING) {
            LOG.info("Member {} joined group {} at epoch {}", memberId, groupId, epoch);
            state = State.STABLE;
        }
    }

    /** The first retry after the coordinator was lost goes at once (it is found again first); later ones back off. */
    private void retryAfterFailure(boolean coordinatorLost, long nowMs, Object cause) {
        failures++;
        sendAllFields = true;
        sentSubscription = null;
        sentOwned = null;
        long backoffMs = coordinatorLost && failures == 1 ? 0 : retryBackoff.millis(failures, random.getAsDouble());
        notBeforeMs = nowMs + backoffMs;
        LOG.debug("Heartbeat of member {} in group {} failed ({}); next in {} ms", memberId, groupId, cause, backoffMs);
    }

    private void fenced(ErrorCode error) {
        LOG.info("Member {} was fenced from group {} at epoch {} ({}): its partitions are lost; it joins again",
                memberId, groupId, epoch, error);
        state = State.FENCED;
        epoch = JOIN_EPOCH;
        target = Assignment.NONE;
    }

    private void fail(RuntimeException error) {
        LOG.error("Member {} of group {} stops: {}", memberId, groupId, error.toString());
        state = State.FATAL;
        fatal = error;
    }

    private void startLeaving(int leaveEpoch, boolean stale) {
        state = State.LEAVING;
        epoch = leaveEpoch;
        staleAfterLeave = stale;
        notBeforeMs = 0;
        if (left.isDone()) {
            left = new CompletableFuture<>();
        }
    }

    private void finishLeaving() {
        boolean stale = staleAfterLeave;
        CompletableFuture<Void> done = left;
        if (stale) {
            state = State.STALE;
            epoch = JOIN_EPOCH;
            target = Assignment.NONE;
        } else {
            becomeUnsubscribed();
            // Subscribed again before the leave was answered (unsubscribe gave up waiting): it joins on the next poll.
            joinOnPoll = subscription != null;
        }
        done.complete(null);
    }

    private void becomeUnsubscribed() {
        state = State.UNSUBSCRIBED;
        epoch = JOIN_EPOCH;
        target = Assignment.NONE;
        fatal = null;
        left.complete(null);
    }

    private boolean isHeartbeating() {
        return state == State.JOINING || state == State.STABLE || state == State.LEAVING;
    }

    /** Whether a heartbeat is due now rather than at the interval: a join, a leave, a change to report. */
    private boolean isUrgent() {
        return state != State.STABLE || sendAllFields || changedSubscription() || changedOwned();
    }

    private boolean changedSubscription() {
        return subscription != null && !subscription.equals(reportedSubscription);
    }

    private boolean changedOwned() {
        return reportedOwned == null || !owned.samePartitions(reportedOwned);
    }

    private ConsumerGroupHeartbeatRequestData request() {
        ConsumerGroupHeartbeatRequestData request = new ConsumerGroupHeartbeatRequestData()
                .setGroupId(groupId)
                .setMemberId(memberId)
                .setMemberEpoch(epoch);
        if (state == State.LEAVING) {
            return request.setInstanceId(instanceId.orElse(null));
        }
        if (sendAllFields) {
            request.setInstanceId(instanceId.orElse(null))
                    .setRackId(rackId.orElse(null))
                    .setRebalanceTimeoutMs(rebalanceTimeoutMs)
                    .setServerAssignor(serverAssignor.orElse(null));
        }
        if (sendAllFields || changedSubscription()) {
            if (subscription.regex() != null) {
                request.setSubscribedTopicRegex(subscription.regex());
            } else {
                request.setSubscribedTopicNames(new ArrayList<>(subscription.topics()));
            }
            sentSubscription = subscription;
        }
        if (sendAllFields || changedOwned()) {
            request.setTopicPartitions(topicPartitions(owned));
            sentOwned = owned;
        }
        return request;
    }

    private static List<ConsumerGroupHeartbeatRequestData.TopicPartitions> topicPartitions(Assignment assignment) {
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> topics = new ArrayList<>();
        assignment.partitions().forEach((topicId, partitions) -> topics.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                .setTopicId(topicId).setPartitions(new ArrayList<>(partitions))));
        return topics;
    }

    private static Map<Uuid, SortedSet<Integer>> byTopicId(List<ConsumerGroupHeartbeatResponseData.TopicPartitions> topics) {
        Map<Uuid, SortedSet<Integer>> partitions = new TreeMap<>();
        for (ConsumerGroupHeartbeatResponseData.TopicPartitions topic : topics) {
            if (!topic.partitions().isEmpty()) {
                partitions.computeIfAbsent(topic.topicId(), id -> new TreeSet<>()).addAll(topic.partitions());
            }
        }
        return Collections.unmodifiableMap(partitions);
    }
}
