package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.clients.consumer.group.ClassicMembership.Exchange;
import io.fastleader.clients.consumer.group.ClassicMembership.State;
import io.fastleader.clients.consumer.group.ClassicMembership.Task;
import io.fastleader.clients.consumer.group.ClassicMembership.Timeouts;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.JoinGroupResponseData.JoinGroupResponseMember;
import io.fastleader.protocol.message.LeaveGroupRequestData;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import io.fastleader.protocol.message.SyncGroupResponseData;

class ClassicMembershipTest {

    private static final String MEMBER_ID = "member-a";
    private static final String OTHER_ID = "member-b";
    private static final String INSTANCE_ID = "instance-1";
    private static final int SESSION_TIMEOUT_MS = 45_000;
    private static final int INTERVAL_MS = 3_000;
    private static final int MAX_POLL_INTERVAL_MS = 300_000;
    /** 100 ms doubling up to 1 s, without jitter: the membership is given a fixed random value. */
    private static final ExponentialBackoff BACKOFF = new ExponentialBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0);
    private static final String PROTOCOL = "cooperative-sticky";
    private static final byte[] ASSIGNMENT = {0, 3, 0, 0, 0, 0};

    private long nowMs = 1_000;

    private static ClassicMembership dynamicMember() {
        return new ClassicMembership("g", Optional.empty(), new Timeouts(SESSION_TIMEOUT_MS, INTERVAL_MS, MAX_POLL_INTERVAL_MS),
                BACKOFF, () -> 0.5);
    }

    private static ClassicMembership staticMember() {
        return new ClassicMembership("g", Optional.of(INSTANCE_ID), new Timeouts(SESSION_TIMEOUT_MS, INTERVAL_MS, MAX_POLL_INTERVAL_MS),
                BACKOFF, () -> 0.5);
    }

    /** What the consumer's thread offers to join with: the assignors in preference order, each with its subscription. */
    private static List<JoinGroupRequestProtocol> offered() {
        return List.of(new JoinGroupRequestProtocol().setName(PROTOCOL).setMetadata(new byte[] {1}),
                new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {2}));
    }

    // ---------------------------------------------------------------- joining

    @Test
    void testJoinsOnTheFirstPollAfterSubscribingNotBefore() {
        ClassicMembership membership = dynamicMember();
        membership.subscribe();

        assertThat(membership.nextExchange(nowMs)).as("no join before the application polls").isEmpty();
        assertThat(membership.task()).isEmpty();
        assertThat(membership.polled(nowMs)).as("the poll starts the join").isTrue();
        assertThat(membership.state()).isEqualTo(State.PREPARING);
        assertThat(membership.task()).contains(new Task.PrepareJoin(ClassicMembership.NO_GENERATION));
        assertThat(membership.nextExchange(nowMs)).as("nothing is sent before the consumer's thread prepared").isEmpty();

        membership.prepared(offered());

        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(membership.nextExchange(nowMs)).hasValueSatisfying(exchange -> assertThat(exchange).isInstanceOf(Exchange.Join.class));
        assertThat(membership.polled(nowMs)).as("a later poll starts nothing").isFalse();
    }

    @Test
    void testSendsNothingBeforeSubscribing() {
        ClassicMembership membership = dynamicMember();

        assertThat(membership.polled(nowMs)).isFalse();
        assertThat(membership.task()).isEmpty();
        assertThat(membership.nextExchange(nowMs)).isEmpty();
        assertThat(membership.nextHeartbeat(nowMs)).isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testTheJoinGroupCarriesTheGroupItsTimeoutsTheConsumerProtocolTypeAndTheOfferedProtocolsInOrder() {
        ClassicMembership membership = joining(dynamicMember());

        JoinGroupRequestData join = joinSent(membership);

        assertThat(join.groupId()).isEqualTo("g");
        assertThat(join.sessionTimeoutMs()).isEqualTo(SESSION_TIMEOUT_MS);
        assertThat(join.rebalanceTimeoutMs()).as("max.poll.interval.ms").isEqualTo(MAX_POLL_INTERVAL_MS);
        assertThat(join.protocolType()).isEqualTo("consumer");
        assertThat(join.memberId()).as("a new member has no id yet").isEmpty();
        assertThat(join.groupInstanceId()).isNull();
        assertThat(join.protocols()).extracting(JoinGroupRequestProtocol::name).containsExactly(PROTOCOL, "range");
        assertThat(join.protocols()).extracting(JoinGroupRequestProtocol::metadata).containsExactly(new byte[] {1}, new byte[] {2});
    }

    @Test
    void testAStaticMemberJoinsWithItsInstanceId() {
        ClassicMembership membership = joining(staticMember());

        assertThat(joinSent(membership).groupInstanceId()).isEqualTo(INSTANCE_ID);
    }

    @Test
    void testOnlyOneRebalanceRequestIsInFlightAtATime() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.nextExchange(nowMs + MAX_POLL_INTERVAL_MS)).isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testMemberIdRequiredRejoinsAtOnceWithTheGivenMemberIdAndTheSameProtocols() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.onJoinAnswer(joinRefused(ErrorCode.MEMBER_ID_REQUIRED).setMemberId(MEMBER_ID), nowMs))
                .isEqualTo(ClassicErrorKind.MEMBER_ID_REQUIRED);

        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(membership.task()).as("nothing to prepare again").isEmpty();
        assertThat(membership.nextDueMs()).isLessThanOrEqualTo(nowMs);
        JoinGroupRequestData rejoin = joinSent(membership);
        assertThat(rejoin.memberId()).isEqualTo(MEMBER_ID);
        assertThat(rejoin.protocols()).extracting(JoinGroupRequestProtocol::name).containsExactly(PROTOCOL, "range");
    }

    @Test
    void testTheLeaderIsAskedToAssignTheMembersJoinGroupListed() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);
        JoinGroupResponseMember self = new JoinGroupResponseMember().setMemberId(MEMBER_ID).setMetadata(new byte[] {1});
        JoinGroupResponseMember other = new JoinGroupResponseMember().setMemberId(OTHER_ID).setGroupInstanceId("instance-2")
                .setMetadata(new byte[] {3});

        membership.onJoinAnswer(joined(4, MEMBER_ID).setMembers(List.of(self, other)), nowMs);

        assertThat(membership.state()).isEqualTo(State.ASSIGNING);
        assertThat(membership.task()).contains(new Task.Assign(PROTOCOL, 4, List.of(self, other)));
        assertThat(membership.nextExchange(nowMs)).as("no SyncGroup before the assignor ran").isEmpty();
    }

    @Test
    void testAFollowerSyncsAtOnceWithNoAssignments() {
        ClassicMembership membership = joining(staticMember());
        joinSent(membership);

        membership.onJoinAnswer(joined(4, OTHER_ID), nowMs);

        assertThat(membership.state()).isEqualTo(State.SYNCING);
        assertThat(membership.task()).as("a follower assigns nothing").isEmpty();
        SyncGroupRequestData sync = syncSent(membership);
        assertThat(sync.groupId()).isEqualTo("g");
        assertThat(sync.generationId()).isEqualTo(4);
        assertThat(sync.memberId()).isEqualTo(MEMBER_ID);
        assertThat(sync.groupInstanceId()).isEqualTo(INSTANCE_ID);
        assertThat(sync.protocolType()).isEqualTo("consumer");
        assertThat(sync.protocolName()).isEqualTo(PROTOCOL);
        assertThat(sync.assignments()).isEmpty();
    }

    @Test
    void testALeaderToldToSkipTheAssignmentSyncsAsAFollower() {
        ClassicMembership membership = joining(staticMember());
        joinSent(membership);

        membership.onJoinAnswer(joined(4, MEMBER_ID).setSkipAssignment(true)
                .setMembers(List.of(new JoinGroupResponseMember().setMemberId(MEMBER_ID).setMetadata(new byte[] {1}))), nowMs);

        assertThat(membership.state()).isEqualTo(State.SYNCING);
        assertThat(membership.task()).isEmpty();
        assertThat(syncSent(membership).assignments()).isEmpty();
    }

    @Test
    void testTheLeadersSyncGroupCarriesEveryMembersAssignment() {
        ClassicMembership membership = assigning(dynamicMember(), 4);

        membership.assigned(4, Map.of(MEMBER_ID, new byte[] {7}, OTHER_ID, new byte[] {8}));

        assertThat(membership.state()).isEqualTo(State.SYNCING);
        assertThat(membership.task()).as("assigned once").isEmpty();
        SyncGroupRequestData sync = syncSent(membership);
        assertThat(sync.generationId()).isEqualTo(4);
        assertThat(sync.memberId()).isEqualTo(MEMBER_ID);
        assertThat(sync.assignments().stream().collect(Collectors.toMap(SyncGroupRequestAssignment::memberId,
                SyncGroupRequestAssignment::assignment))).containsOnlyKeys(MEMBER_ID, OTHER_ID)
                .hasEntrySatisfying(MEMBER_ID, bytes -> assertThat(bytes).containsExactly(7))
                .hasEntrySatisfying(OTHER_ID, bytes -> assertThat(bytes).containsExactly(8));
    }

    @Test
    void testAnAssignmentOfAnEarlierGenerationIsIgnored() {
        ClassicMembership membership = assigning(dynamicMember(), 4);

        membership.assigned(3, Map.of(MEMBER_ID, new byte[] {7}));

        assertThat(membership.state()).isEqualTo(State.ASSIGNING);
        assertThat(membership.nextExchange(nowMs)).isEmpty();
    }

    @Test
    void testTheSyncedAssignmentIsReconciledOnce() {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        membership.onSyncAnswer(synced(), nowMs);

        assertThat(membership.state()).isEqualTo(State.STABLE);
        assertThat(membership.isReconciled()).isFalse();
        Task.Reconcile reconcile = (Task.Reconcile) membership.task().orElseThrow();
        assertThat(reconcile.protocol()).isEqualTo(PROTOCOL);
        assertThat(reconcile.generation()).isEqualTo(4);
        assertThat(reconcile.assignment()).containsExactly(ASSIGNMENT);

        membership.reconciled(4);

        assertThat(membership.isReconciled()).isTrue();
        assertThat(membership.task()).as("nothing more to do").isEmpty();
    }

    @Test
    void testASyncGroupAnswerNamingAnotherProtocolEndsWithInconsistentGroupProtocol() {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        assertThat(membership.onSyncAnswer(synced().setProtocolName("range"), nowMs)).isEqualTo(ClassicErrorKind.FATAL);

        assertThat(membership.state()).isEqualTo(State.FATAL);
        assertThat(failure(membership)).isInstanceOf(InconsistentGroupProtocolException.class);
    }

    @Test
    void testTheRebalanceStartsAtThePollThatPreparesIt() {
        ClassicMembership membership = stable(dynamicMember(), 4);

        membership.rejoin("test");
        membership.polled(nowMs + 10);

        assertThat(membership.rebalanceStartMs()).isEqualTo(nowMs + 10);
    }

    // ---------------------------------------------------------------- heartbeats

    @Test
    void testNoHeartbeatIsSentBeforeJoinGroupIsAnswered() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.nextHeartbeat(nowMs + 10 * INTERVAL_MS)).isEmpty();
    }

    @Test
    void testHeartbeatsStartAtTheIntervalAfterJoinGroupsAnswer() {
        ClassicMembership membership = joining(staticMember());
        joinSent(membership);
        long answeredMs = nowMs + 500;
        membership.onJoinAnswer(joined(4, OTHER_ID), answeredMs);
        syncSent(membership);

        assertThat(membership.nextDueMs()).isEqualTo(answeredMs + INTERVAL_MS);
        assertThat(membership.nextHeartbeat(answeredMs + INTERVAL_MS - 1)).isEmpty();
        HeartbeatRequestData heartbeat = membership.nextHeartbeat(answeredMs + INTERVAL_MS).orElseThrow();
        assertThat(heartbeat.groupId()).isEqualTo("g");
        assertThat(heartbeat.generationId()).isEqualTo(4);
        assertThat(heartbeat.memberId()).isEqualTo(MEMBER_ID);
        assertThat(heartbeat.groupInstanceId()).isEqualTo(INSTANCE_ID);
    }

    @Test
    void testHeartbeatsGoOnAtTheInterval() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        long firstMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(firstMs).orElseThrow();

        assertThat(membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.NONE), firstMs)).isEqualTo(ClassicErrorKind.NONE);

        assertThat(membership.nextDueMs()).isEqualTo(firstMs + INTERVAL_MS);
        assertThat(membership.nextHeartbeat(firstMs + INTERVAL_MS - 1)).isEmpty();
        assertThat(membership.nextHeartbeat(firstMs + INTERVAL_MS).orElseThrow().generationId()).isEqualTo(4);
    }

    @Test
    void testOnlyOneHeartbeatIsInFlightAtATime() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();

        assertThat(membership.nextHeartbeat(nowMs + 2 * INTERVAL_MS)).isEmpty();
    }

    @Test
    void testARebalanceInProgressHeartbeatWhileStableMakesTheNextPollPrepareToRejoin() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        long heartbeatMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(heartbeatMs).orElseThrow();

        assertThat(membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.REBALANCE_IN_PROGRESS), heartbeatMs))
                .isEqualTo(ClassicErrorKind.REBALANCING);

        assertThat(membership.state()).as("the rebalance moves only when the application polls").isEqualTo(State.STABLE);
        assertThat(membership.nextDueMs()).as("heartbeats go on meanwhile").isEqualTo(heartbeatMs + INTERVAL_MS);
        assertThat(membership.polled(heartbeatMs + 1)).isTrue();
        assertThat(membership.state()).isEqualTo(State.PREPARING);
        assertThat(membership.task()).contains(new Task.PrepareJoin(4));
    }

    @Test
    void testARebalanceInProgressHeartbeatWhileSyncingIsIgnored() {
        ClassicMembership membership = syncing(dynamicMember(), 4);
        long heartbeatMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(heartbeatMs).orElseThrow();

        membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.REBALANCE_IN_PROGRESS), heartbeatMs);
        membership.onSyncAnswer(synced(), heartbeatMs);
        membership.reconciled(4);

        assertThat(membership.polled(heartbeatMs + 1)).as("SyncGroup's own answer said whether the generation stands").isFalse();
        assertThat(membership.state()).isEqualTo(State.STABLE);
    }

    @ParameterizedTest
    @CsvSource({"ILLEGAL_GENERATION, member-a", "UNKNOWN_MEMBER_ID, ''"})
    void testAFencedHeartbeatLosesThePartitionsThenPreparesToRejoin(ErrorCode error, String memberIdAfter) {
        ClassicMembership membership = stable(dynamicMember(), 4);
        long heartbeatMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(heartbeatMs).orElseThrow();

        assertThat(membership.onHeartbeatAnswer(heartbeatAnswer(error), heartbeatMs)).isEqualTo(ClassicErrorKind.FENCED);

        assertFencedThenRejoinsAs(membership, memberIdAfter, heartbeatMs);
    }

    @ParameterizedTest
    @CsvSource({"ILLEGAL_GENERATION, member-a", "UNKNOWN_MEMBER_ID, ''"})
    void testAFencedSyncGroupLosesThePartitionsThenPreparesToRejoin(ErrorCode error, String memberIdAfter) {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        assertThat(membership.onSyncAnswer(syncRefused(error), nowMs)).isEqualTo(ClassicErrorKind.FENCED);

        assertFencedThenRejoinsAs(membership, memberIdAfter, nowMs);
    }

    @Test
    void testAnUnknownMemberJoinGroupAnswerLosesThePartitionsThenPreparesToRejoinWithoutAMemberId() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        membership.rejoin("test");
        membership.polled(nowMs);
        membership.prepared(offered());
        assertThat(joinSent(membership).memberId()).isEqualTo(MEMBER_ID);

        assertThat(membership.onJoinAnswer(joinRefused(ErrorCode.UNKNOWN_MEMBER_ID), nowMs)).isEqualTo(ClassicErrorKind.FENCED);

        // As KafkaConsumer's: what a cooperative member still owns from its generation may be someone else's by now.
        assertFencedThenRejoinsAs(membership, "", nowMs);
    }

    @Test
    void testAHeartbeatAnswerForAnEarlierGenerationIsIgnored() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        long heartbeatMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(heartbeatMs).orElseThrow();
        membership.rejoin("test");
        membership.polled(heartbeatMs);
        membership.prepared(offered());
        joinSent(membership);
        membership.onJoinAnswer(joined(5, OTHER_ID), heartbeatMs);

        // The coordinator took the old heartbeat after generation 5 began.
        membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.ILLEGAL_GENERATION), heartbeatMs);

        assertThat(membership.state()).isEqualTo(State.SYNCING);
        assertThat(membership.task()).isEmpty();
        assertThat(syncSent(membership).generationId()).isEqualTo(5);
    }

    @Test
    void testAnAnswerForALostGenerationIsIgnored() {
        ClassicMembership membership = syncing(dynamicMember(), 4);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.ILLEGAL_GENERATION), nowMs + INTERVAL_MS);

        membership.onSyncAnswer(synced(), nowMs + INTERVAL_MS);

        assertThat(membership.state()).isEqualTo(State.LOST);
        assertThat(membership.task()).contains(new Task.ReleaseLost());
    }

    // ---------------------------------------------------------------- retries

    @Test
    void testTheFirstRetryAfterTheCoordinatorIsLostGoesAtOnceAndLaterOnesBackOff() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.onJoinAnswer(joinRefused(ErrorCode.NOT_COORDINATOR), nowMs)).isEqualTo(ClassicErrorKind.COORDINATOR_MOVED);
        joinSent(membership);
        assertThat(membership.onExchangeFailed(new DisconnectException("gone"), nowMs)).isEqualTo(ClassicErrorKind.COORDINATOR_MOVED);

        assertThat(membership.nextExchange(nowMs + 199)).as("second failure: 200 ms").isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(nowMs + 200);
        joinSent(membership, nowMs + 200);
        membership.onJoinAnswer(joinRefused(ErrorCode.COORDINATOR_NOT_AVAILABLE), nowMs + 200);
        assertThat(membership.nextDueMs()).as("third failure: 400 ms").isEqualTo(nowMs + 600);
    }

    @Test
    void testTheFirstHeartbeatRetryAfterTheCoordinatorIsLostGoesAtOnceAndLaterOnesBackOff() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        long failedMs = nowMs + INTERVAL_MS;
        membership.nextHeartbeat(failedMs).orElseThrow();

        assertThat(membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.NOT_COORDINATOR), failedMs))
                .isEqualTo(ClassicErrorKind.COORDINATOR_MOVED);
        membership.nextHeartbeat(failedMs).orElseThrow();
        assertThat(membership.onHeartbeatFailed(new DisconnectException("gone"), failedMs)).isEqualTo(ClassicErrorKind.COORDINATOR_MOVED);

        assertThat(membership.nextHeartbeat(failedMs + 199)).as("second failure: 200 ms").isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(failedMs + 200);
        assertThat(membership.nextHeartbeat(failedMs + 200)).isPresent();
        assertThat(membership.state()).isEqualTo(State.STABLE);
    }

    @Test
    void testALoadingCoordinatorIsAskedAgainAfterBackoff() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.onJoinAnswer(joinRefused(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), nowMs))
                .isEqualTo(ClassicErrorKind.RETRIABLE);

        assertThat(membership.nextExchange(nowMs + 99)).isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(nowMs + 100);
        assertThat(joinSent(membership, nowMs + 100).memberId()).isEmpty();
    }

    @Test
    void testARebalanceInProgressJoinGroupAnswerRejoinsAtOnce() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);
        membership.onJoinAnswer(joinRefused(ErrorCode.MEMBER_ID_REQUIRED).setMemberId(MEMBER_ID), nowMs);
        joinSent(membership);

        assertThat(membership.onJoinAnswer(joinRefused(ErrorCode.REBALANCE_IN_PROGRESS), nowMs)).isEqualTo(ClassicErrorKind.REBALANCING);

        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(joinSent(membership).memberId()).isEqualTo(MEMBER_ID);
    }

    @Test
    void testARebalanceInProgressAnsweredAgainBacksOff() {
        ClassicMembership membership = syncing(dynamicMember(), 4);
        membership.onSyncAnswer(syncRefused(ErrorCode.REBALANCE_IN_PROGRESS), nowMs);
        joinSent(membership);

        membership.onJoinAnswer(joinRefused(ErrorCode.REBALANCE_IN_PROGRESS), nowMs);

        assertThat(membership.nextExchange(nowMs + 199)).as("no loop at round-trip speed: second in a row, 200 ms").isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(nowMs + 200);
    }

    @Test
    void testARebalanceInProgressSyncGroupAnswerRejoinsAtOnceWithoutPreparingAgain() {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        assertThat(membership.onSyncAnswer(syncRefused(ErrorCode.REBALANCE_IN_PROGRESS), nowMs)).isEqualTo(ClassicErrorKind.REBALANCING);

        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(membership.task()).isEmpty();
        JoinGroupRequestData rejoin = joinSent(membership);
        assertThat(rejoin.memberId()).isEqualTo(MEMBER_ID);
        assertThat(rejoin.protocols()).extracting(JoinGroupRequestProtocol::name).containsExactly(PROTOCOL, "range");
    }

    @Test
    void testASyncGroupTheCoordinatorDidNotAnswerRejoinsWithoutPreparingAgain() {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        assertThat(membership.onExchangeFailed(new DisconnectException("gone"), nowMs)).isEqualTo(ClassicErrorKind.COORDINATOR_MOVED);

        assertThat(membership.state()).isEqualTo(State.JOINING);
        assertThat(membership.task()).isEmpty();
        assertThat(joinSent(membership).memberId()).isEqualTo(MEMBER_ID);
    }

    // ---------------------------------------------------------------- fatal errors

    @Test
    void testAFencedInstanceIdOnAHeartbeatEndsTheMembershipWithFencedInstanceIdException() {
        ClassicMembership membership = stable(staticMember(), 4);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();

        assertThat(membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.FENCED_INSTANCE_ID), nowMs + INTERVAL_MS))
                .isEqualTo(ClassicErrorKind.FATAL);

        assertThat(membership.state()).isEqualTo(State.FATAL);
        assertThat(failure(membership)).isInstanceOf(FencedInstanceIdException.class);
        assertThat(membership.nextHeartbeat(nowMs + 10 * INTERVAL_MS)).isEmpty();
        assertThat(membership.nextExchange(nowMs + 10 * INTERVAL_MS)).isEmpty();
        assertThat(membership.nextDueMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testAFencedInstanceIdOnJoinGroupEndsTheMembershipWithFencedInstanceIdException() {
        ClassicMembership membership = joining(staticMember());
        joinSent(membership);

        membership.onJoinAnswer(joinRefused(ErrorCode.FENCED_INSTANCE_ID), nowMs);

        assertThat(failure(membership)).isInstanceOf(FencedInstanceIdException.class);
    }

    @Test
    void testAGroupAuthorizationFailureOnJoinGroupEndsTheMembershipNamingTheGroup() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.onJoinAnswer(joinRefused(ErrorCode.GROUP_AUTHORIZATION_FAILED), nowMs)).isEqualTo(ClassicErrorKind.FATAL);

        assertThat(failure(membership)).isInstanceOfSatisfying(GroupAuthorizationException.class,
                e -> assertThat(e.groupId()).isEqualTo("g"));
    }

    @Test
    void testAGroupAuthorizationFailureOnSyncGroupEndsTheMembershipNamingTheGroup() {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        membership.onSyncAnswer(syncRefused(ErrorCode.GROUP_AUTHORIZATION_FAILED), nowMs);

        assertThat(failure(membership)).isInstanceOfSatisfying(GroupAuthorizationException.class,
                e -> assertThat(e.groupId()).isEqualTo("g"));
    }

    @Test
    void testARebalanceRequestFailingForGoodEndsTheMembershipWrapped() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);
        IllegalStateException bug = new IllegalStateException("broken");

        assertThat(membership.onExchangeFailed(bug, nowMs)).isEqualTo(ClassicErrorKind.FATAL);

        assertThat(failure(membership)).isExactlyInstanceOf(KafkaException.class).hasCause(bug);
    }

    @Test
    void testSubscribingAfterAFatalErrorJoinsAgain() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);
        membership.onJoinAnswer(joinRefused(ErrorCode.GROUP_AUTHORIZATION_FAILED), nowMs);

        membership.subscribe();

        assertThat(membership.polled(nowMs)).isTrue();
        assertThat(membership.task()).contains(new Task.PrepareJoin(ClassicMembership.NO_GENERATION));
    }

    // ---------------------------------------------------------------- the poll timer

    @Test
    void testADynamicMemberThatStopsPollingSendsLeaveGroupThenIsLostAndRejoinsOnTheNextPoll() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;
        assertThat(membership.nextDueMs()).as("the poll timer is a deadline of its own").isEqualTo(expiredMs);

        assertThat(membership.nextHeartbeat(expiredMs)).isEmpty();

        assertThat(membership.state()).isEqualTo(State.LEAVING);
        LeaveGroupRequestData leave = leaveSent(membership, expiredMs);
        assertThat(leave.members()).singleElement().satisfies(member -> assertThat(member.memberId()).isEqualTo(MEMBER_ID));
        membership.onLeaveAnswer(new LeaveGroupResponseData());
        assertThat(membership.state()).isEqualTo(State.LOST);
        assertThat(membership.task()).contains(new Task.ReleaseLost());
        assertThatThrownBy(membership::committer).isInstanceOf(CommitFailedException.class);

        membership.released(expiredMs + 10);
        assertThat(membership.task()).contains(new Task.PrepareJoin(ClassicMembership.NO_GENERATION));
        membership.prepared(offered());
        assertThat(joinSent(membership, expiredMs + 10).memberId()).as("it left: it joins as a new member").isEmpty();
    }

    @Test
    void testAStaticMemberThatStopsPollingSendsNoLeaveGroupAndIsLost() {
        ClassicMembership membership = stable(staticMember(), 4);
        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;

        assertThat(membership.nextHeartbeat(expiredMs)).isEmpty();

        assertThat(membership.state()).isEqualTo(State.LOST);
        assertThat(membership.nextExchange(expiredMs)).isEmpty();
        assertThat(membership.task()).contains(new Task.ReleaseLost());
        membership.released(expiredMs);
        assertThat(membership.task()).contains(new Task.PrepareJoin(ClassicMembership.NO_GENERATION));
    }

    @Test
    void testPollingKeepsTheMemberInTheGroup() {
        ClassicMembership membership = stable(dynamicMember(), 4);

        membership.polled(nowMs + MAX_POLL_INTERVAL_MS);

        assertThat(membership.nextHeartbeat(nowMs + MAX_POLL_INTERVAL_MS + 1).orElseThrow().generationId()).isEqualTo(4);
        assertThat(membership.state()).isEqualTo(State.STABLE);
    }

    @Test
    void testThePollTimerDoesNotRunBeforeJoinGroupIsAnswered() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.nextHeartbeat(nowMs + MAX_POLL_INTERVAL_MS + 1)).isEmpty();

        assertThat(membership.state()).isEqualTo(State.JOINING);
    }

    // ---------------------------------------------------------------- leaving

    @Test
    void testADynamicMemberLeavesWithItsMemberIdAndTheLeaveCompletesOnTheAnswer() {
        ClassicMembership membership = stable(dynamicMember(), 4);

        CompletableFuture<Void> left = membership.leave(true);

        assertThat(membership.state()).isEqualTo(State.LEAVING);
        LeaveGroupRequestData leave = leaveSent(membership, nowMs);
        assertThat(leave.groupId()).isEqualTo("g");
        assertThat(leave.members()).singleElement().satisfies(member -> {
            assertThat(member.memberId()).isEqualTo(MEMBER_ID);
            assertThat(member.groupInstanceId()).isNull();
        });
        assertThat(left).isNotDone();
        membership.onLeaveAnswer(new LeaveGroupResponseData());
        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
        assertThat(membership.committer()).isEqualTo(MemberIdentity.OUTSIDE_THE_GROUP);
    }

    @Test
    void testALeaveThatFailsStillCompletes() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        CompletableFuture<Void> left = membership.leave(true);
        leaveSent(membership, nowMs);

        membership.onExchangeFailed(new DisconnectException("gone"), nowMs);

        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
    }

    @Test
    void testAMemberLeavingWithoutLeaveGroupSendsNothingAndCompletesAtOnce() {
        ClassicMembership membership = stable(staticMember(), 4);

        CompletableFuture<Void> left = membership.leave(false);

        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
        assertThat(membership.nextExchange(nowMs)).isEmpty();
        assertThat(membership.nextHeartbeat(nowMs + INTERVAL_MS)).isEmpty();
    }

    @Test
    void testAStaticMemberLeavingForGoodSendsLeaveGroupWithItsInstanceId() {
        ClassicMembership membership = stable(staticMember(), 4);

        membership.leave(true);

        assertThat(leaveSent(membership, nowMs).members()).singleElement().satisfies(member -> {
            assertThat(member.memberId()).isEqualTo(MEMBER_ID);
            assertThat(member.groupInstanceId()).isEqualTo(INSTANCE_ID);
        });
    }

    @Test
    void testLeavingBeforeTheCoordinatorGaveAMemberIdCompletesAtOnce() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        assertThat(membership.leave(true)).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
    }

    @Test
    void testSubscribingAgainWhileTheLeaveIsUnderWayJoinsOnceItIsAnswered() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        CompletableFuture<Void> left = membership.leave(true);
        leaveSent(membership, nowMs);

        // The application's unsubscribe() timed out waiting for the answer; it subscribes again.
        membership.subscribe();
        membership.onLeaveAnswer(new LeaveGroupResponseData());

        assertThat(left).isDone();
        assertThat(membership.polled(nowMs + 1)).as("the new subscription joins on the next poll").isTrue();
        assertThat(membership.task()).contains(new Task.PrepareJoin(ClassicMembership.NO_GENERATION));
    }

    @Test
    void testLeavingWhileLeavingForAnExpiredPollTimerEndsUnsubscribed() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        long expiredMs = nowMs + MAX_POLL_INTERVAL_MS + 1;
        membership.nextHeartbeat(expiredMs);
        leaveSent(membership, expiredMs);

        CompletableFuture<Void> left = membership.leave(true);
        membership.onLeaveAnswer(new LeaveGroupResponseData());

        assertThat(left).isDone();
        assertThat(membership.state()).isEqualTo(State.UNSUBSCRIBED);
        assertThat(membership.task()).isEmpty();
    }

    // ---------------------------------------------------------------- commits and groupMetadata()

    @Test
    void testCommitsOutsideTheGroupWhenNotSubscribed() {
        assertThat(dynamicMember().committer()).isEqualTo(MemberIdentity.OUTSIDE_THE_GROUP);
    }

    @Test
    void testCommitsAsTheMemberAtItsGenerationOnceStable() {
        ClassicMembership membership = syncing(staticMember(), 4);
        membership.onSyncAnswer(synced(), nowMs);

        MemberIdentity atFour = new MemberIdentity(MEMBER_ID, 4, Optional.of(INSTANCE_ID));
        assertThat(membership.committer()).as("synced, not yet reconciled").isEqualTo(atFour);
        membership.reconciled(4);
        assertThat(membership.committer()).isEqualTo(atFour);
    }

    @Test
    void testCommitsAtItsGenerationWhilePreparingToRejoin() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        membership.rejoin("test");
        membership.polled(nowMs);

        assertThat(membership.state()).isEqualTo(State.PREPARING);
        assertThat(membership.committer()).as("a commit in onPartitionsRevoked")
                .isEqualTo(new MemberIdentity(MEMBER_ID, 4, Optional.empty()));
    }

    @Test
    void testACommitWhileJoiningAssigningOrSyncingIsARebalanceInProgress() {
        ClassicMembership membership = dynamicMember();
        membership.subscribe();
        membership.polled(nowMs);
        assertThatThrownBy(membership::committer).as("preparing the first join").isInstanceOf(RebalanceInProgressException.class);
        membership.prepared(offered());
        assertThatThrownBy(membership::committer).as("joining").isInstanceOf(RebalanceInProgressException.class);
        joinSent(membership);
        membership.onJoinAnswer(joined(4, MEMBER_ID), nowMs);
        assertThatThrownBy(membership::committer).as("assigning").isInstanceOf(RebalanceInProgressException.class);
        membership.assigned(4, Map.of(MEMBER_ID, ASSIGNMENT));
        assertThatThrownBy(membership::committer).as("syncing").isInstanceOf(RebalanceInProgressException.class);
    }

    @Test
    void testACommitAfterTheGenerationIsLostFailsAsCommitFailed() {
        ClassicMembership membership = stable(dynamicMember(), 4);
        membership.nextHeartbeat(nowMs + INTERVAL_MS).orElseThrow();
        membership.onHeartbeatAnswer(heartbeatAnswer(ErrorCode.ILLEGAL_GENERATION), nowMs + INTERVAL_MS);

        assertThatThrownBy(membership::committer).isExactlyInstanceOf(CommitFailedException.class);
    }

    @Test
    void testGroupMetadataTakesTheGenerationFromTheJoinGroupAnswerAndKeepsItUntilTheMemberLeavesAsKafkaConsumers() {
        ClassicMembership membership = syncing(dynamicMember(), 4);
        assertThat(membership.described()).as("joined, syncing").isEqualTo(new MemberIdentity(MEMBER_ID, 4, Optional.empty()));

        membership.onSyncAnswer(synced(), nowMs);
        membership.reconciled(4);
        assertThat(membership.described()).isEqualTo(new MemberIdentity(MEMBER_ID, 4, Optional.empty()));
        membership.rejoin("test");
        membership.polled(nowMs);
        membership.prepared(offered());
        assertThat(membership.described()).as("rejoining").isEqualTo(new MemberIdentity(MEMBER_ID, 4, Optional.empty()));

        membership.leave(true);
        leaveSent(membership, nowMs);
        membership.onLeaveAnswer(new LeaveGroupResponseData());
        assertThat(membership.described()).as("left").isEqualTo(new MemberIdentity("", ClassicMembership.NO_GENERATION, Optional.empty()));
    }

    @Test
    void testTheMemberIsRebalancingFromPreparingToJoinUntilItsSyncGroupIsAnswered() {
        ClassicMembership membership = dynamicMember();
        membership.subscribe();
        assertThat(membership.isRebalancing()).as("subscribed, not polled yet").isFalse();

        membership.polled(nowMs);
        assertThat(membership.isRebalancing()).as("preparing").isTrue();
        membership.prepared(offered());
        assertThat(membership.isRebalancing()).as("joining").isTrue();
        joinSent(membership);
        membership.onJoinAnswer(joined(4, OTHER_ID), nowMs);
        assertThat(membership.isRebalancing()).as("syncing").isTrue();
        syncSent(membership);
        membership.onSyncAnswer(synced(), nowMs);
        assertThat(membership.isRebalancing()).as("synced: it commits again").isFalse();
    }

    // ---------------------------------------------------------------- rejoining

    @Test
    void testASubscriptionChangeWhileStableRejoinsOnTheNextPoll() {
        ClassicMembership membership = stable(dynamicMember(), 4);

        membership.subscribe();

        assertThat(membership.state()).isEqualTo(State.STABLE);
        assertThat(membership.polled(nowMs + 1)).isTrue();
        assertThat(membership.task()).contains(new Task.PrepareJoin(4));
    }

    @Test
    void testASubscriptionChangeWhileJoiningRejoinsOnceTheAssignmentIsReconciled() {
        ClassicMembership membership = joining(dynamicMember());
        joinSent(membership);

        membership.subscribe();
        membership.onJoinAnswer(joined(4, OTHER_ID), nowMs);
        syncSent(membership);
        assertThat(membership.polled(nowMs)).as("syncing").isFalse();
        membership.onSyncAnswer(synced(), nowMs);
        assertThat(membership.polled(nowMs)).as("not yet reconciled").isFalse();
        membership.reconciled(4);

        assertThat(membership.polled(nowMs)).isTrue();
        assertThat(membership.task()).contains(new Task.PrepareJoin(4));
    }

    @Test
    void testARejoinAskedBeforeTheMemberIsStableIsKeptForAfter() {
        ClassicMembership membership = syncing(dynamicMember(), 4);

        membership.rejoin("the leader saw the group's topics change");
        membership.onSyncAnswer(synced(), nowMs);
        assertThat(membership.polled(nowMs)).as("not yet reconciled").isFalse();
        membership.reconciled(4);

        assertThat(membership.polled(nowMs)).isTrue();
        assertThat(membership.task()).contains(new Task.PrepareJoin(4));
    }

    @Test
    void testEnforceRebalanceWhileStableRejoinsOnTheNextPoll() {
        ClassicMembership membership = stable(dynamicMember(), 4);

        membership.enforceRebalance("the application asked");

        assertThat(membership.polled(nowMs + 1)).isTrue();
        assertThat(membership.task()).contains(new Task.PrepareJoin(4));
    }

    @Test
    void testEnforceRebalanceFromOnPartitionsAssignedRejoinsOnTheNextPoll() {
        ClassicMembership membership = syncing(dynamicMember(), 4);
        membership.onSyncAnswer(synced(), nowMs);

        // The Reconcile task runs the listener before it tells the membership the assignment is taken.
        membership.enforceRebalance("the application asked");
        membership.reconciled(4);

        assertThat(membership.polled(nowMs + 1)).isTrue();
    }

    @Test
    void testEnforceRebalanceWhileARebalanceIsInProgressIsANoOpAsKafkaConsumerDocumentsIt() {
        ClassicMembership membership = joining(dynamicMember());
        membership.enforceRebalance("while joining");
        joinSent(membership);
        membership.onJoinAnswer(joined(4, OTHER_ID), nowMs);
        membership.enforceRebalance("while syncing");
        syncSent(membership);

        membership.onSyncAnswer(synced(), nowMs);
        membership.reconciled(4);

        assertThat(membership.polled(nowMs + 1)).as("the rebalance under way served").isFalse();
        assertThat(membership.state()).isEqualTo(State.STABLE);
    }

    // ---------------------------------------------------------------- helpers

    /** Subscribed, polled and prepared, at {@link #nowMs}: its JoinGroup is due. */
    private ClassicMembership joining(ClassicMembership membership) {
        membership.subscribe();
        membership.polled(nowMs);
        membership.prepared(offered());
        return membership;
    }

    /** The leader of {@code generation}, asked to assign. */
    private ClassicMembership assigning(ClassicMembership membership, int generation) {
        joining(membership);
        joinSent(membership);
        membership.onJoinAnswer(joined(generation, MEMBER_ID).setMembers(List.of(
                new JoinGroupResponseMember().setMemberId(MEMBER_ID).setMetadata(new byte[] {1}),
                new JoinGroupResponseMember().setMemberId(OTHER_ID).setMetadata(new byte[] {1}))), nowMs);
        return membership;
    }

    /** A follower of {@code generation} whose SyncGroup is in flight. */
    private ClassicMembership syncing(ClassicMembership membership, int generation) {
        joining(membership);
        joinSent(membership);
        membership.onJoinAnswer(joined(generation, OTHER_ID), nowMs);
        syncSent(membership);
        return membership;
    }

    /** A follower of {@code generation} that took its assignment. */
    private ClassicMembership stable(ClassicMembership membership, int generation) {
        syncing(membership, generation);
        membership.onSyncAnswer(synced(), nowMs);
        membership.reconciled(generation);
        return membership;
    }

    private JoinGroupRequestData joinSent(ClassicMembership membership) {
        return joinSent(membership, nowMs);
    }

    private static JoinGroupRequestData joinSent(ClassicMembership membership, long atMs) {
        return ((Exchange.Join) membership.nextExchange(atMs).orElseThrow()).request();
    }

    private SyncGroupRequestData syncSent(ClassicMembership membership) {
        return ((Exchange.Sync) membership.nextExchange(nowMs).orElseThrow()).request();
    }

    private static LeaveGroupRequestData leaveSent(ClassicMembership membership, long atMs) {
        return ((Exchange.Leave) membership.nextExchange(atMs).orElseThrow()).request();
    }

    private static RuntimeException failure(ClassicMembership membership) {
        return ((Task.Fail) membership.task().orElseThrow()).error();
    }

    /** The member lost its generation: its partitions go as lost on the next poll, then it prepares to join as {@code memberId}. */
    private void assertFencedThenRejoinsAs(ClassicMembership membership, String memberId, long atMs) {
        assertThat(membership.state()).isEqualTo(State.LOST);
        assertThat(membership.task()).contains(new Task.ReleaseLost());
        assertThat(membership.nextHeartbeat(atMs + 10 * INTERVAL_MS)).as("no heartbeat without a generation").isEmpty();
        assertThat(membership.nextExchange(atMs)).as("nothing sent before the partitions are released").isEmpty();

        membership.released(atMs);

        assertThat(membership.task()).contains(new Task.PrepareJoin(ClassicMembership.NO_GENERATION));
        membership.prepared(offered());
        assertThat(joinSent(membership, atMs).memberId()).isEqualTo(memberId);
    }

    private static JoinGroupResponseData joined(int generation, String leader) {
        return new JoinGroupResponseData().setGenerationId(generation).setMemberId(MEMBER_ID).setLeader(leader)
                .setProtocolType("consumer").setProtocolName(PROTOCOL);
    }

    private static JoinGroupResponseData joinRefused(ErrorCode error) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setGenerationId(-1).setMemberId("");
    }

    private static SyncGroupResponseData synced() {
        return new SyncGroupResponseData().setProtocolType("consumer").setProtocolName(PROTOCOL).setAssignment(ASSIGNMENT);
    }

    private static SyncGroupResponseData syncRefused(ErrorCode error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }

    private static HeartbeatResponseData heartbeatAnswer(ErrorCode error) {
        return new HeartbeatResponseData().setErrorCode(error.code());
    }
}
