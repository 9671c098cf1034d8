package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.consumer.group.GroupMembership.Assignment;
import io.fastleader.clients.consumer.group.GroupMembership.State;
import io.fastleader.clients.consumer.group.GroupMembership.Subscription;
import io.fastleader.clients.consumer.group.GroupMembership.Task;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;

class GroupMembershipTest {

    private static final String MEMBER_ID = "member-a";
    private static final int INTERVAL_MS = 3_000;
    private static final int MAX_POLL_INTERVAL_MS = 300_000;
    private static final Uuid ORDERS = Uuid.fromString("Vh6Cl8eVQ8WTWnIfJkPvXw");
    private static final Uuid PAYMENTS = Uuid.fromString("Ntr4wFaRS5Cmo0bRrHO3VQ");
    /** 100 ms doubling up to 1 s, without jitter: the membership is given a fixed random value. */
    private static final ExponentialBackoff BACKOFF = new ExponentialBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0);
    private static final Subscription ORDERS_TOPIC = Subscription.ofTopics(List.of("orders"));

    private long nowMs = 1_000;

    private static GroupMembership dynamicMember() {
        return new GroupMembership("g", MEMBER_ID, Optional.empty(), Optional.of("rack-1"), Optional.of("uniform"),
                MAX_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS, BACKOFF, () -> 0.5);
    }

    private static GroupMembership staticMember() {
        return new GroupMembership("g", MEMBER_ID, Optional.of("instance-1"), Optional.empty(), Optional.empty(),
                MAX_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS, BACKOFF, () -> 0.5);
    }

    @Test
    void testJoinsOnThePollAfterSubscribingAndCommitsOutsideTheGroupUntilThen() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);

        assertThat(membership.nextHeartbeat(nowMs)).as("no join before the application polls").isEmpty();
        assertThat(membership.identity()).isEqualTo(MemberIdentity.OUTSIDE_THE_GROUP);
        assertThat(membership.polled(nowMs)).as("the poll starts the join").isTrue();
        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(membership.nextHeartbeat(nowMs)).isPresent();
        assertThat(membership.polled(nowMs)).as("a later poll joins nothing").isFalse();
    }

    @Test
    void testJoinsWithEpochZeroTheClientsMemberIdAndEveryField() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);

        ConsumerGroupHeartbeatRequestData join = membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(join.groupId()).isEqualTo("g");
        assertThat(join.memberId()).isEqualTo(MEMBER_ID);
        assertThat(join.memberEpoch()).isZero();
        assertThat(join.subscribedTopicNames()).containsExactly("orders");
        assertThat(join.subscribedTopicRegex()).isNull();
        assertThat(join.rebalanceTimeoutMs()).isEqualTo(MAX_POLL_INTERVAL_MS);
        assertThat(join.rackId()).isEqualTo("rack-1");
        assertThat(join.serverAssignor()).isEqualTo("uniform");
        assertThat(join.instanceId()).isNull();
        assertThat(join.topicPartitions()).as("a joining member owns nothing, and says so").isEmpty();
        assertThat(membership.state()).isEqualTo(State.JOINING);
    }

    @Test
    void testSendsNothingBeforeSubscribing() {
        GroupMembership membership = dynamicMember();

        assertThat(membership.nextHeartbeat(nowMs)).isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(membership.identity()).isEqualTo(MemberIdentity.OUTSIDE_THE_GROUP);
    }

    @Test
    void testAnAcceptedJoinMakesTheMemberStableAtTheEpochAndIntervalGiven() {
        GroupMembership membership = joined(dynamicMember(), 5);

        assertThat(membership.state()).isEqualTo(State.STABLE);
        assertThat(membership.identity()).isEqualTo(new MemberIdentity(MEMBER_ID, 5, Optional.empty()));
        assertThat(membership.nextDueMs()).isEqualTo(nowMs + INTERVAL_MS);
        assertThat(membership.nextHeartbeat(nowMs + INTERVAL_MS - 1)).as("not due before the interval").isEmpty();
    }

    @Test
    void testAHeartbeatAtTheIntervalLeavesUnchangedFieldsOut() {
        GroupMembership membership = joined(dynamicMember(), 5);

        ConsumerGroupHeartbeatRequestData heartbeat = membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();

        assertThat(heartbeat.memberEpoch()).isEqualTo(5);
        assertThat(heartbeat.subscribedTopicNames()).isNull();
        assertThat(heartbeat.topicPartitions()).isNull();
        assertThat(heartbeat.rebalanceTimeoutMs()).isEqualTo(-1);
        assertThat(heartbeat.rackId()).isNull();
        assertThat(heartbeat.serverAssignor()).isNull();
    }

    @Test
    void testOnlyOneHeartbeatIsInFlightAtATime() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(membership.nextHeartbeat(nowMs + 10 * INTERVAL_MS)).isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testATargetAssignmentAsksTheConsumersThreadToReconcile() {
        GroupMembership membership = joined(dynamicMember(), 5);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();

        membership.onAnswer(accepted(6, Map.of(ORDERS, Set.of(0, 1))), nowMs + INTERVAL_MS);

        assertThat(membership.task()).contains(new Task.Reconcile(new Assignment(6, Map.of(ORDERS, partitions(0, 1)))));
        assertThat(membership.targetSinceMs()).isEqualTo(nowMs + INTERVAL_MS);
    }

    @Test
    void testAReconciledAssignmentIsAcknowledgedAtOnceAndOnlyOnce() {
        GroupMembership membership = joined(dynamicMember(), 5, Map.of(ORDERS, Set.of(0, 1)));
        Task.Reconcile reconcile = (Task.Reconcile) membership.task().orElseThrow();

        membership.reconciled(reconcile.target());
        ConsumerGroupHeartbeatRequestData ack = membership.nextHeartbeat(nowMs).orElseThrow();
        membership.onAnswer(accepted(5, null), nowMs);

        assertThat(ack.topicPartitions()).singleElement().satisfies(topic -> {
            assertThat(topic.topicId()).isEqualTo(ORDERS);
            assertThat(topic.partitions()).containsExactly(0, 1);
        });
        assertThat(membership.task()).as("nothing left to reconcile").isEmpty();
        assertThat(membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow().topicPartitions())
                .as("acknowledged once; later heartbeats leave the owned partitions out").isNull();
    }

    @Test
    void testASubscriptionChangeIsSentAtOnce() {
        GroupMembership membership = joined(dynamicMember(), 5);

        membership.subscribe(Subscription.ofTopics(List.of("orders", "payments")));

        membership.polled(nowMs + 1);

        assertThat(membership.nextDueMs()).isEqualTo(0);
        assertThat(membership.nextHeartbeat(nowMs + 1).orElseThrow().subscribedTopicNames()).containsExactly("orders", "payments");
    }

    @Test
    void testARegexSubscriptionIsSentAsARegex() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(Subscription.ofRegex("orders-.*"));
        membership.polled(nowMs);

        ConsumerGroupHeartbeatRequestData join = membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(join.subscribedTopicRegex()).isEqualTo("orders-.*");
        assertThat(join.subscribedTopicNames()).isNull();
    }

    @Test
    void testAFencedMemberReleasesItsPartitionsAsLostThenRejoinsAtEpochZeroWithEveryField() {
        GroupMembership membership = joined(dynamicMember(), 5, Map.of(ORDERS, Set.of(0)));
        membership.reconciled(((Task.Reconcile) membership.task().orElseThrow()).target());
        membership.nextHeartbeat(nowMs).orElseThrow();

        membership.onAnswer(refused(ErrorCode.FENCED_MEMBER_EPOCH), nowMs);

        assertThat(membership.state()).isEqualTo(State.FENCED);
        assertThat(membership.task()).contains(new Task.ReleaseLost());
        assertThat(membership.nextHeartbeat(nowMs)).as("no heartbeat until the partitions are released").isEmpty();

        membership.released(nowMs);
        ConsumerGroupHeartbeatRequestData rejoin = membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(rejoin.memberEpoch()).isZero();
        assertThat(rejoin.memberId()).as("the same id for the consumer's whole life").isEqualTo(MEMBER_ID);
        assertThat(rejoin.subscribedTopicNames()).containsExactly("orders");
        assertThat(rejoin.rebalanceTimeoutMs()).isEqualTo(MAX_POLL_INTERVAL_MS);
        assertThat(rejoin.topicPartitions()).isEmpty();
    }

    @Test
    void testAnUnknownMemberIsFencedToo() {
        GroupMembership membership = joined(dynamicMember(), 5);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();

        assertThat(membership.onAnswer(refused(ErrorCode.UNKNOWN_MEMBER_ID), nowMs + INTERVAL_MS)).isEqualTo(HeartbeatErrorKind.FENCED);
        assertThat(membership.task()).contains(new Task.ReleaseLost());
    }

    @Test
    void testTheFirstRetryAfterTheCoordinatorMovedGoesAtOnceWithEveryFieldAndLaterOnesBackOff() {
        GroupMembership membership = joined(dynamicMember(), 5);
        long failedAtMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(failedAtMs).orElseThrow();

        assertThat(membership.onAnswer(refused(ErrorCode.NOT_COORDINATOR), failedAtMs)).isEqualTo(HeartbeatErrorKind.COORDINATOR_MOVED);
        ConsumerGroupHeartbeatRequestData retry = membership.nextHeartbeat(failedAtMs).orElseThrow();

        assertThat(retry.memberEpoch()).isEqualTo(5);
        assertThat(retry.subscribedTopicNames()).as("the coordinator may not have seen the last heartbeat: every field").containsExactly("orders");
        assertThat(retry.rebalanceTimeoutMs()).isEqualTo(MAX_POLL_INTERVAL_MS);

        membership.onNoAnswer(new DisconnectException("gone"), failedAtMs);
        assertThat(membership.nextHeartbeat(failedAtMs + 199)).as("second failure: 200 ms").isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(failedAtMs + 200);
        assertThat(membership.nextHeartbeat(failedAtMs + 200)).isPresent();
    }

    @Test
    void testALoadingCoordinatorIsAskedAgainAfterBackoff() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(membership.onAnswer(refused(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), nowMs)).isEqualTo(HeartbeatErrorKind.RETRIABLE);

        assertThat(membership.nextHeartbeat(nowMs + 99)).isEmpty();
        assertThat(membership.nextHeartbeat(nowMs + 100).orElseThrow().memberEpoch()).isZero();
    }

    @Test
    void testAFatalErrorEndsTheMembershipWithKafkasException() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();

        membership.onAnswer(refused(ErrorCode.GROUP_AUTHORIZATION_FAILED), nowMs);

        assertThat(membership.state()).isEqualTo(State.FATAL);
        assertThat(membership.task()).hasValueSatisfying(task -> assertThat(((Task.Fail) task).error())
                .isInstanceOf(GroupAuthorizationException.class));
        assertThat(membership.nextHeartbeat(nowMs + INTERVAL_MS)).isEmpty();
    }

    @Test
    void testAClusterWithoutTheProtocolFailsWithAnErrorThatSaysWhatItNeeds() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();

        membership.onNoAnswer(new UnsupportedVersionException("The node does not support CONSUMER_GROUP_HEARTBEAT"), nowMs);

        assertThat(((Task.Fail) membership.task().orElseThrow()).error())
                .isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("consumer group protocol")
                .hasMessageContaining("Kafka 4.0");
    }

    @Test
    void testAnUnsupportedVersionAnswerFailsWithAnErrorThatSaysWhatItNeeds() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(membership.onAnswer(refused(ErrorCode.UNSUPPORTED_VERSION), nowMs)).isEqualTo(HeartbeatErrorKind.FATAL);

        assertThat(((Task.Fail) membership.task().orElseThrow()).error())
                .isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("consumer group protocol");
    }

    @Test
    void testATransportFailureThatIsNotAKafkaExceptionEndsTheMembershipWrapped() {
        GroupMembership membership = joined(dynamicMember(), 5);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        IllegalStateException bug = new IllegalStateException("broken");

        assertThat(membership.onNoAnswer(bug, nowMs + INTERVAL_MS)).isEqualTo(HeartbeatErrorKind.FATAL);

        assertThat(membership.state()).isEqualTo(State.FATAL);
        assertThat(((Task.Fail) membership.task().orElseThrow()).error())
                .isExactlyInstanceOf(org.apache.kafka.common.KafkaException.class)
                .hasCause(bug);
    }

    @Test
    void testAReconciledAssignmentMakesTheNextHeartbeatDueAtOnce() {
        GroupMembership membership = joined(dynamicMember(), 5, Map.of(ORDERS, Set.of(0)));
        assertThat(membership.nextDueMs()).as("an accepted join is followed at the interval").isEqualTo(nowMs + INTERVAL_MS);

        membership.reconciled(((Task.Reconcile) membership.task().orElseThrow()).target());

        assertThat(membership.nextDueMs()).isLessThanOrEqualTo(nowMs);
    }

    @Test
    void testAMemberInTheGroupCommitsAsItselfAtItsEpochAndAFencedOneWithNoEpoch() {
        GroupMembership membership = joined(staticMember(), 5);
        assertThat(membership.identity()).isEqualTo(new MemberIdentity(MEMBER_ID, 5, Optional.of("instance-1")));
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();

        membership.onAnswer(refused(ErrorCode.FENCED_MEMBER_EPOCH), nowMs + INTERVAL_MS);

        assertThat(membership.identity()).isEqualTo(new MemberIdentity(MEMBER_ID, MemberIdentity.NO_EPOCH, Optional.of("instance-1")));
    }

    @Test
    void testAMemberJoiningForTheFirstTimeCommitsWithNoIdAndNoEpochUntilTheCoordinatorAnswers() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        MemberIdentity joining = new MemberIdentity("", MemberIdentity.NO_EPOCH, Optional.empty());

        assertThat(membership.identity()).as("before the join is sent").isEqualTo(joining);
        membership.nextHeartbeat(nowMs).orElseThrow();
        assertThat(membership.identity()).as("join in flight").isEqualTo(joining);
        membership.onAnswer(accepted(3, null), nowMs + 5);

        assertThat(membership.identity()).isEqualTo(new MemberIdentity(MEMBER_ID, 3, Optional.empty()));
    }

    @Test
    void testGroupMetadataHasNoMemberIdBeforeTheFirstEpochThenKeepsTheLastEpochUntilTheApplicationLeaves() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        assertThat(membership.described()).as("joining").isEqualTo(new MemberIdentity("", MemberIdentity.NO_EPOCH, Optional.empty()));
        membership.nextHeartbeat(nowMs).orElseThrow();
        membership.onAnswer(accepted(5, null), nowMs);
        MemberIdentity atFive = new MemberIdentity(MEMBER_ID, 5, Optional.empty());
        assertThat(membership.described()).as("joined").isEqualTo(atFive);

        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;
        membership.nextHeartbeat(expiredMs).orElseThrow();
        membership.onAnswer(accepted(GroupMembership.LEAVE_EPOCH, null), expiredMs);
        assertThat(membership.described()).as("left for an expired poll timer").isEqualTo(atFive);
        membership.released(expiredMs);
        assertThat(membership.described()).as("joining again").isEqualTo(atFive);
        membership.nextHeartbeat(expiredMs).orElseThrow();
        membership.onAnswer(accepted(7, null), expiredMs);
        assertThat(membership.described()).as("joined again").isEqualTo(new MemberIdentity(MEMBER_ID, 7, Optional.empty()));

        membership.leave(false);
        assertThat(membership.described()).as("the application left").isEqualTo(new MemberIdentity("", MemberIdentity.NO_EPOCH, Optional.empty()));
    }

    @Test
    void testSubscribingAfterAFatalErrorJoinsAgain() {
        GroupMembership membership = dynamicMember();
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();
        membership.onAnswer(refused(ErrorCode.GROUP_AUTHORIZATION_FAILED), nowMs);

        membership.subscribe(ORDERS_TOPIC);

        membership.polled(nowMs);

        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(membership.nextHeartbeat(nowMs).orElseThrow().memberEpoch()).isZero();
    }

    @Test
    void testADynamicMemberLeavesWithEpochMinusOneAndTheLeaveCompletesOnTheAnswer() {
        GroupMembership membership = joined(dynamicMember(), 5);

        CompletableFuture<Void> left = membership.leave(true);
        ConsumerGroupHeartbeatRequestData leave = membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(leave.memberEpoch()).isEqualTo(GroupMembership.LEAVE_EPOCH);
        assertThat(left).isNotDone();
        membership.onAnswer(accepted(GroupMembership.LEAVE_EPOCH, null), nowMs);
        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
        assertThat(membership.identity()).isEqualTo(MemberIdentity.OUTSIDE_THE_GROUP);
    }

    @Test
    void testAStaticMemberThatWillComeBackLeavesWithEpochMinusTwo() {
        GroupMembership membership = joined(staticMember(), 5);

        membership.leave(true);
        ConsumerGroupHeartbeatRequestData leave = membership.nextHeartbeat(nowMs).orElseThrow();

        assertThat(leave.memberEpoch()).isEqualTo(GroupMembership.STATIC_LEAVE_EPOCH);
        assertThat(leave.instanceId()).isEqualTo("instance-1");
    }

    @Test
    void testAStaticMemberLeavingForGoodLeavesWithEpochMinusOne() {
        GroupMembership membership = joined(staticMember(), 5);

        membership.leave(false);

        assertThat(membership.nextHeartbeat(nowMs).orElseThrow().memberEpoch()).isEqualTo(GroupMembership.LEAVE_EPOCH);
    }

    @Test
    void testALeaveThatGetsNoAnswerStillCompletes() {
        GroupMembership membership = joined(dynamicMember(), 5);
        CompletableFuture<Void> left = membership.leave(true);
        membership.nextHeartbeat(nowMs).orElseThrow();

        membership.onNoAnswer(new DisconnectException("gone"), nowMs);

        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
    }

    @Test
    void testLeavingWhenNotInTheGroupCompletesAtOnce() {
        assertThat(dynamicMember().leave(true)).isDone();
    }

    @Test
    void testAMemberThatStopsPollingLeavesThenReleasesItsPartitionsAsLostAndRejoins() {
        GroupMembership membership = joined(dynamicMember(), 5);
        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;

        assertThat(membership.nextDueMs()).as("the poll timer is a deadline of its own").isLessThanOrEqualTo(expiredMs);
        ConsumerGroupHeartbeatRequestData leave = membership.nextHeartbeat(expiredMs).orElseThrow();
        assertThat(leave.memberEpoch()).isEqualTo(GroupMembership.LEAVE_EPOCH);
        membership.onAnswer(accepted(GroupMembership.LEAVE_EPOCH, null), expiredMs);

        assertThat(membership.state()).isEqualTo(State.STALE);
        assertThat(membership.task()).contains(new Task.ReleaseLost());
        membership.released(expiredMs + 10);
        assertThat(membership.nextHeartbeat(expiredMs + 10).orElseThrow().memberEpoch()).isZero();
    }

    @Test
    void testPollingKeepsTheMemberInTheGroup() {
        GroupMembership membership = joined(dynamicMember(), 5);

        membership.polled(nowMs + MAX_POLL_INTERVAL_MS);

        ConsumerGroupHeartbeatRequestData heartbeat = membership.nextHeartbeat(nowMs + MAX_POLL_INTERVAL_MS + 1).orElseThrow();
        assertThat(heartbeat.memberEpoch()).isEqualTo(5);
    }

    @Test
    void testLeavingWhileLeavingForAnExpiredPollTimerEndsUnsubscribed() {
        GroupMembership membership = joined(dynamicMember(), 5);
        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;
        membership.nextHeartbeat(expiredMs).orElseThrow();

        CompletableFuture<Void> left = membership.leave(true);
        membership.onAnswer(accepted(GroupMembership.LEAVE_EPOCH, null), expiredMs);

        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(expiredMs);
        assertThat(membership.state()).as("a later subscribe joins").isEqualTo(State.JOINING);
    }

    @Test
    void testSubscribingAgainWhileTheLeaveIsUnderWayJoinsOnceItIsAnswered() {
        GroupMembership membership = joined(dynamicMember(), 5);
        CompletableFuture<Void> left = membership.leave(true);
        membership.nextHeartbeat(nowMs).orElseThrow();

        membership.subscribe(ORDERS_TOPIC);
        membership.onAnswer(accepted(GroupMembership.LEAVE_EPOCH, null), nowMs);
        membership.polled(nowMs);

        assertThat(left).isDone();
        assertThat(membership.state()).as("subscribed again, it joins").isEqualTo(State.JOINING);
        assertThat(membership.nextHeartbeat(nowMs).orElseThrow().memberEpoch()).isEqualTo(GroupMembership.JOIN_EPOCH);
    }

    @Test
    void testAnEmptyTopicInATargetIsLeftOut() {
        GroupMembership membership = joined(dynamicMember(), 5, Map.of(ORDERS, Set.of(0), PAYMENTS, Set.of()));

        assertThat(membership.task()).contains(new Task.Reconcile(new Assignment(5, Map.of(ORDERS, partitions(0)))));
    }

    @Test
    void testAnEmptyFirstAssignmentIsReconciledOnceSoTheListenerHearsOfIt() {
        GroupMembership membership = joined(dynamicMember(), 5, Map.of());

        assertThat(membership.isReconciled()).isFalse();
        Task.Reconcile reconcile = (Task.Reconcile) membership.task().orElseThrow();
        assertThat(reconcile.target()).isEqualTo(new Assignment(5, Map.of()));
        membership.reconciled(reconcile.target());
        assertThat(membership.task()).as("reconciled: nothing more to do").isEmpty();
        assertThat(membership.isReconciled()).isTrue();

        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        membership.onAnswer(accepted(5, Map.of()), nowMs + INTERVAL_MS);
        assertThat(membership.task()).as("the same empty target again is no new reconciliation").isEmpty();
    }

    @Test
    void testAMemberThatJoinsAgainReconcilesItsFirstAssignmentEvenIfEmpty() {
        GroupMembership membership = joined(dynamicMember(), 5, Map.of());
        membership.reconciled(((Task.Reconcile) membership.task().orElseThrow()).target());
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        membership.onAnswer(refused(ErrorCode.FENCED_MEMBER_EPOCH), nowMs + INTERVAL_MS);
        membership.released(nowMs + INTERVAL_MS);

        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        membership.onAnswer(accepted(7, Map.of()), nowMs + INTERVAL_MS);

        assertThat(membership.task()).contains(new Task.Reconcile(new Assignment(7, Map.of())));
    }

    @Test
    void testAMemberThatLeftForAnExpiredPollTimerCommitsWithItsIdAndNoEpochUntilItRejoins() {
        GroupMembership membership = joined(dynamicMember(), 5);
        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;
        MemberIdentity left = new MemberIdentity(MEMBER_ID, MemberIdentity.NO_EPOCH, Optional.empty());

        membership.nextHeartbeat(expiredMs).orElseThrow();
        assertThat(membership.identity()).as("leaving").isEqualTo(left);
        membership.onAnswer(accepted(GroupMembership.LEAVE_EPOCH, null), expiredMs);
        assertThat(membership.identity()).as("stale").isEqualTo(left);
        assertThat(membership.identity().isMember()).as("the coordinator takes its commits only while the group is empty").isFalse();

        membership.released(expiredMs + 10);
        assertThat(membership.identity()).as("joining again").isEqualTo(left);
    }

    /** A member of {@code membership} that joined at {@code epoch} with no partitions, at {@link #nowMs}. */
    private GroupMembership joined(GroupMembership membership, int epoch) {
        return joined(membership, epoch, null);
    }

    private GroupMembership joined(GroupMembership membership, int epoch, Map<Uuid, Set<Integer>> target) {
        membership.subscribe(ORDERS_TOPIC);
        membership.polled(nowMs);
        membership.nextHeartbeat(nowMs).orElseThrow();
        membership.onAnswer(accepted(epoch, target), nowMs);
        return membership;
    }

    private static ConsumerGroupHeartbeatResponseData accepted(int epoch, Map<Uuid, Set<Integer>> target) {
        ConsumerGroupHeartbeatResponseData answer = new ConsumerGroupHeartbeatResponseData()
                .setMemberId(MEMBER_ID).setMemberEpoch(epoch).setHeartbeatIntervalMs(INTERVAL_MS);
        if (target != null) {
            ConsumerGroupHeartbeatResponseData.Assignment assignment = new ConsumerGroupHeartbeatResponseData.Assignment();
            target.forEach((topicId, indexes) -> assignment.topicPartitions().add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                    .setTopicId(topicId).setPartitions(List.copyOf(new TreeSet<>(indexes)))));
            answer.setAssignment(assignment);
        }
        return answer;
    }

    private static ConsumerGroupHeartbeatResponseData refused(ErrorCode error) {
        return new ConsumerGroupHeartbeatResponseData().setErrorCode(error.code()).setMemberEpoch(-1);
    }

    private static SortedSet<Integer> partitions(Integer... indexes) {
        return new TreeSet<>(List.of(indexes));
    }
}
