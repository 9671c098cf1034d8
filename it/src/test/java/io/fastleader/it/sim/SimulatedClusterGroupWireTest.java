package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.ResponseFrame;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;
import io.fastleader.protocol.message.FindCoordinatorRequestData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.FindCoordinatorResponseData.Coordinator;
import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.JoinGroupResponseData.JoinGroupResponseMember;
import io.fastleader.protocol.message.LeaveGroupRequestData;
import io.fastleader.protocol.message.LeaveGroupRequestData.MemberIdentity;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.LeaveGroupResponseData.MemberResponse;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import io.fastleader.protocol.message.OffsetFetchResponseData;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import io.fastleader.protocol.message.SyncGroupResponseData;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The simulated brokers' group coordination on the wire, through bare sockets: FindCoordinator,
 * the classic protocol's JoinGroup, SyncGroup, Heartbeat and LeaveGroup, KIP-848's
 * ConsumerGroupHeartbeat, and OffsetCommit and OffsetFetch. A request that waits is sent on its own connection and its answer read later; what
 * the answer holds shows that it waited (a join answered with a member that joined after it).
 */
class SimulatedClusterGroupWireTest {

    private static final String GROUP = "wire-group";
    private static final short JOIN_V9 = 9;
    private static final int LONG_TIMEOUT_MS = 60_000;

    @Test
    void everyBrokerNamesTheSameCoordinator() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            int coordinator = cluster.coordinator(GROUP);
            for (int broker : cluster.brokerIds()) {
                try (Wire wire = new Wire(cluster, broker)) {
                    FindCoordinatorResponseData v0 = (FindCoordinatorResponseData) wire.call(ApiKey.FIND_COORDINATOR, (short) 0,
                        new FindCoordinatorRequestData().setKey(GROUP));
                    FindCoordinatorResponseData v3 = (FindCoordinatorResponseData) wire.call(ApiKey.FIND_COORDINATOR, (short) 3,
                        new FindCoordinatorRequestData().setKey(GROUP).setKeyType((byte) 0));
                    for (FindCoordinatorResponseData answer : List.of(v0, v3)) {
                        assertThat(answer.errorCode()).isZero();
                        assertThat(answer.nodeId()).isEqualTo(coordinator);
                        assertThat(answer.host() + ":" + answer.port()).isEqualTo(cluster.brokerAddress(coordinator));
                    }
                }
            }
        }
    }

    @Test
    void batchedFindCoordinatorAnswersEachKeyAndRefusesTransactions() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3); Wire wire = new Wire(cluster, 0)) {
            List<String> groups = List.of("g-a", "g-b", "g-c", "g-d");
            FindCoordinatorResponseData answer = (FindCoordinatorResponseData) wire.call(ApiKey.FIND_COORDINATOR, (short) 6,
                new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(groups));
            assertThat(answer.coordinators()).extracting(Coordinator::key, Coordinator::nodeId, Coordinator::errorCode)
                .containsExactly(groups.stream().map(g -> tuple(g, cluster.coordinator(g), (short) 0)).toArray(Tuple[]::new));

            FindCoordinatorResponseData transaction = (FindCoordinatorResponseData) wire.call(ApiKey.FIND_COORDINATOR, (short) 4,
                new FindCoordinatorRequestData().setKeyType((byte) 1).setCoordinatorKeys(List.of("txn")));
            assertThat(transaction.coordinators()).singleElement().satisfies(c -> {
                assertThat(c.errorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE.code());
                assertThat(c.errorMessage()).contains("not simulated");
            });
        }
    }

    @Test
    void theOldCoordinatorAnswersNotCoordinatorAfterMoveCoordinator() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            int before = cluster.coordinator(GROUP);
            int after = (before + 1) % 3;
            TopicPartition tp = new TopicPartition("t", 0);
            try (Wire old = new Wire(cluster, before); Wire moved = new Wire(cluster, after)) {
                assertThat(old.commit((short) 9, -1, "", tp, 5)).isEqualTo(ErrorCode.NONE);
                assertThat(moved.commit((short) 9, -1, "", tp, 6)).isEqualTo(ErrorCode.NOT_COORDINATOR);

                cluster.moveCoordinator(GROUP, after);
                assertThat(cluster.coordinator(GROUP)).isEqualTo(after);
                assertThat(old.commit((short) 9, -1, "", tp, 7)).isEqualTo(ErrorCode.NOT_COORDINATOR);
                assertThat(old.fetchV7(tp).errorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR.code());
                FindCoordinatorResponseData found = (FindCoordinatorResponseData) old.call(ApiKey.FIND_COORDINATOR, (short) 3,
                    new FindCoordinatorRequestData().setKey(GROUP));
                assertThat(found.nodeId()).isEqualTo(after);
                assertThat(moved.commit((short) 9, -1, "", tp, 8)).isEqualTo(ErrorCode.NONE);
            }
            assertThat(cluster.committed(GROUP, tp)).map(OffsetAndMetadata::offset).contains(8L);
        }
    }

    @Test
    void theGroupMovesToAnotherBrokerWhenItsCoordinatorStopsOrFailsOver() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            TopicPartition tp = new TopicPartition("t", 0);
            int first = cluster.coordinator(GROUP);
            try (Wire wire = new Wire(cluster, first)) {
                assertThat(wire.commit((short) 9, -1, "", tp, 5)).isEqualTo(ErrorCode.NONE);
            }
            cluster.stopBroker(first);
            int second = cluster.coordinator(GROUP);
            assertThat(second).isNotEqualTo(first);
            assertThatThrownBy(() -> cluster.moveCoordinator(GROUP, first)).as("onto a stopped broker")
                .isInstanceOf(IllegalArgumentException.class);
            try (Wire wire = new Wire(cluster, second)) {
                assertThat(wire.fetchV7(tp).topics().get(0).partitions().get(0).committedOffset()).as("offsets stay").isEqualTo(5);
                assertThat(wire.commit((short) 9, -1, "", tp, 6)).isEqualTo(ErrorCode.NONE);
            }

            cluster.killBroker(second);
            assertThat(cluster.coordinator(GROUP)).as("a killed broker keeps its groups until failed over").isEqualTo(second);
            cluster.failOver(second);
            int third = cluster.coordinator(GROUP);
            assertThat(third).isNotIn(first, second);
            try (Wire wire = new Wire(cluster, third)) {
                FindCoordinatorResponseData found = (FindCoordinatorResponseData) wire.call(ApiKey.FIND_COORDINATOR, (short) 3,
                    new FindCoordinatorRequestData().setKey(GROUP));
                assertThat(found.nodeId()).isEqualTo(third);
                assertThat(wire.fetchV7(tp).topics().get(0).partitions().get(0).committedOffset()).isEqualTo(6);
            }
        }
    }

    @Test
    void aGroupRequestCanBeRefusedWithAnInjectedError() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire wire = new Wire(cluster, 0)) {
            cluster.injectError(0, ApiKey.JOIN_GROUP, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 1);
            cluster.injectError(0, ApiKey.OFFSET_FETCH, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 1);
            assertThat(wire.join("", LONG_TIMEOUT_MS, "range").errorCode()).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code());
            assertThat(wire.join("", LONG_TIMEOUT_MS, "range").errorCode()).as("once").isEqualTo(ErrorCode.MEMBER_ID_REQUIRED.code());

            OffsetFetchResponseData refused = (OffsetFetchResponseData) wire.call(ApiKey.OFFSET_FETCH, (short) 9,
                new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(null),
                    new OffsetFetchRequestGroup().setGroupId("other").setTopics(null))));
            assertThat(refused.groups()).extracting(OffsetFetchResponseData.OffsetFetchResponseGroup::errorCode)
                .containsExactly(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code(), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code());
            assertThat(wire.fetchV7(new TopicPartition("t", 0)).errorCode()).isZero();
        }
    }

    @Test
    void aJoinWaitsForTheOtherKnownMemberAndTheSecondJoinCompletesIt() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            JoinGroupResponseData idA = a.join("", LONG_TIMEOUT_MS, "range");
            JoinGroupResponseData idB = b.join("", LONG_TIMEOUT_MS, "range");
            assertThat(List.of(idA.errorCode(), idB.errorCode())).containsOnly(ErrorCode.MEMBER_ID_REQUIRED.code());
            assertThat(idA.memberId()).startsWith("wire-test-").isNotEqualTo(idB.memberId());

            a.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(idA.memberId(), LONG_TIMEOUT_MS, "range"));
            JoinGroupResponseData joinedB = b.join(idB.memberId(), LONG_TIMEOUT_MS, "range");
            JoinGroupResponseData joinedA = (JoinGroupResponseData) a.receive(ApiKey.JOIN_GROUP, JOIN_V9);

            assertThat(joinedA.errorCode()).isZero();
            assertThat(joinedB.errorCode()).isZero();
            assertThat(joinedA.generationId()).isEqualTo(1);
            assertThat(joinedB.generationId()).isEqualTo(1);
            assertThat(joinedA.protocolName()).isEqualTo("range");
            // the two joins race to the broker: the first one served waits for the second, and its member leads
            assertThat(joinedA.leader()).isIn(idA.memberId(), idB.memberId()).isEqualTo(joinedB.leader());
            JoinGroupResponseData leader = joinedA.leader().equals(idA.memberId()) ? joinedA : joinedB;
            JoinGroupResponseData follower = leader == joinedA ? joinedB : joinedA;
            assertThat(leader.members()).as("the leader's answer names both members")
                .extracting(JoinGroupResponseMember::memberId).containsExactly(leader.memberId(), follower.memberId());
            assertThat(follower.members()).as("a follower is not told the members").isEmpty();
        }
    }

    @Test
    void theProtocolChosenIsOneEveryMemberSupports() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            String memberA = a.join("", LONG_TIMEOUT_MS, "cooperative-sticky", "range").memberId();
            String memberB = b.join("", LONG_TIMEOUT_MS, "roundrobin", "range").memberId();
            a.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberA, LONG_TIMEOUT_MS, "cooperative-sticky", "range"));
            assertThat(b.join(memberB, LONG_TIMEOUT_MS, "roundrobin", "range").protocolName()).isEqualTo("range");
            assertThat(((JoinGroupResponseData) a.receive(ApiKey.JOIN_GROUP, JOIN_V9)).protocolName()).isEqualTo("range");

            try (Wire c = new Wire(cluster, 0)) {
                assertThat(c.join("", LONG_TIMEOUT_MS, "roundrobin").errorCode())
                    .isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL.code());
            }
        }
    }

    @Test
    void syncHandsEachMemberTheLeadersAssignment() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Pair pair = twoMemberGroup(a, b);
            pair.follower().send(ApiKey.SYNC_GROUP, (short) 5, syncRequest(pair.followerId(), 1));
            SyncGroupResponseData leader = (SyncGroupResponseData) pair.leader().call(ApiKey.SYNC_GROUP, (short) 5,
                syncRequest(pair.leaderId(), 1).setAssignments(List.of(
                    new SyncGroupRequestAssignment().setMemberId(pair.leaderId()).setAssignment(bytes("for-leader")),
                    new SyncGroupRequestAssignment().setMemberId(pair.followerId()).setAssignment(bytes("for-follower")))));
            SyncGroupResponseData follower = (SyncGroupResponseData) pair.follower().receive(ApiKey.SYNC_GROUP, (short) 5);

            assertThat(leader.errorCode()).isZero();
            assertThat(follower.errorCode()).isZero();
            assertThat(new String(leader.assignment(), StandardCharsets.UTF_8)).isEqualTo("for-leader");
            assertThat(new String(follower.assignment(), StandardCharsets.UTF_8)).isEqualTo("for-follower");
            assertThat(follower.protocolName()).isEqualTo("range");
            assertThat(pair.leader().heartbeat(pair.leaderId(), 1)).isEqualTo(ErrorCode.NONE);
            assertThat(pair.follower().heartbeat(pair.followerId(), 1)).isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void heartbeatSaysRebalanceInProgressWhenAThirdMemberJoins() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(1);
             Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0); Wire c = new Wire(cluster, 0)) {
            Pair pair = stableTwoMemberGroup(a, b);
            String memberC = c.join("", LONG_TIMEOUT_MS, "range").memberId();
            c.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberC, LONG_TIMEOUT_MS, "range"));
            assertThat(cluster.awaitGroupMembers(GROUP, 3, Duration.ofSeconds(10))).endsWith(memberC);

            assertThat(pair.leader().heartbeat(pair.leaderId(), 1)).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
            assertThat(pair.follower().heartbeat(pair.followerId(), 1)).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);

            pair.leader().send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(pair.leaderId(), LONG_TIMEOUT_MS, "range"));
            JoinGroupResponseData follower = pair.follower().join(pair.followerId(), LONG_TIMEOUT_MS, "range");
            JoinGroupResponseData leader = (JoinGroupResponseData) pair.leader().receive(ApiKey.JOIN_GROUP, JOIN_V9);
            JoinGroupResponseData third = (JoinGroupResponseData) c.receive(ApiKey.JOIN_GROUP, JOIN_V9);
            assertThat(List.of(leader.generationId(), follower.generationId(), third.generationId())).containsOnly(2);
            assertThat(third.leader()).as("the leader stays").isEqualTo(pair.leaderId());
            assertThat(leader.members()).extracting(JoinGroupResponseMember::memberId)
                .containsExactly(pair.leaderId(), pair.followerId(), memberC);
            assertThat(pair.leader().heartbeat(pair.leaderId(), 1)).as("the old generation").isEqualTo(ErrorCode.ILLEGAL_GENERATION);
            assertThat(pair.leader().heartbeat(pair.leaderId(), 2)).as("joined, not yet synced").isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void aSilentMemberIsRemovedWhenItsSessionExpires() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            String memberA = a.join("", LONG_TIMEOUT_MS, "range").memberId();
            assertThat(a.join(memberA, LONG_TIMEOUT_MS, "range").generationId()).isEqualTo(1);
            a.call(ApiKey.SYNC_GROUP, (short) 5, syncRequest(memberA, 1));
            String memberB = b.join("", 300, "range").memberId();
            b.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberB, 300, "range"));
            JoinGroupResponseData second = a.join(memberA, LONG_TIMEOUT_MS, "range");
            assertThat(second.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(memberA, memberB);
            assertThat(((JoinGroupResponseData) b.receive(ApiKey.JOIN_GROUP, JOIN_V9)).generationId()).isEqualTo(2);
            a.call(ApiKey.SYNC_GROUP, (short) 5, syncRequest(memberA, 2));

            // B falls silent: A's rejoin waits for it (the rebalance timeout is 60 s) until B's 300 ms session expires
            long start = System.nanoTime();
            JoinGroupResponseData third = a.join(memberA, LONG_TIMEOUT_MS, "range");
            long waitedMs = (System.nanoTime() - start) / 1_000_000;

            assertThat(third.errorCode()).isZero();
            assertThat(third.generationId()).isEqualTo(3);
            assertThat(third.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(memberA);
            assertThat(waitedMs).isLessThan(LONG_TIMEOUT_MS / 2);
            assertThat(b.heartbeat(memberB, 2)).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        }
    }

    @Test
    void aMemberThatDoesNotJoinAgainWithinTheRebalanceTimeoutIsExpelled() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Pair pair = stableTwoMemberGroup(a, b, 1_000);
            // the leader joins again; the follower stays away, and its session (60 s) does not run out
            long start = System.nanoTime();
            JoinGroupResponseData rejoined = (JoinGroupResponseData) pair.leader().call(ApiKey.JOIN_GROUP, JOIN_V9,
                joinRequest(pair.leaderId(), LONG_TIMEOUT_MS, "range").setRebalanceTimeoutMs(1_000));
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(LONG_TIMEOUT_MS / 2);
            assertThat(rejoined.generationId()).isEqualTo(2);
            assertThat(rejoined.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(pair.leaderId());
            assertThat(pair.follower().heartbeat(pair.followerId(), 1)).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        }
    }

    @Test
    void aJoinWaitingAtTheOldCoordinatorIsAnsweredNotCoordinatorAndCompletesAtTheNewOne() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(2)) {
            int before = cluster.coordinator(GROUP);
            int after = 1 - before;
            try (Wire a = new Wire(cluster, before); Wire b = new Wire(cluster, before)) {
                String memberA = a.join("", LONG_TIMEOUT_MS, "range").memberId();
                assertThat(a.join(memberA, LONG_TIMEOUT_MS, "range").generationId()).isEqualTo(1);
                a.call(ApiKey.SYNC_GROUP, (short) 5, syncRequest(memberA, 1));
                String memberB = b.join("", LONG_TIMEOUT_MS, "range").memberId();
                b.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberB, LONG_TIMEOUT_MS, "range"));
                cluster.awaitGroupMembers(GROUP, 2, Duration.ofSeconds(10));

                cluster.moveCoordinator(GROUP, after);
                JoinGroupResponseData refused = (JoinGroupResponseData) b.receive(ApiKey.JOIN_GROUP, JOIN_V9);
                assertThat(refused.errorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR.code());
            }
            try (Wire a = new Wire(cluster, after); Wire b = new Wire(cluster, after)) {
                String memberA = cluster.groupMembers(GROUP).get(0);
                String memberB = cluster.groupMembers(GROUP).get(1);
                assertThat(a.heartbeat(memberA, 1)).as("the members moved with the group").isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
                b.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberB, LONG_TIMEOUT_MS, "range"));
                JoinGroupResponseData joinedA = a.join(memberA, LONG_TIMEOUT_MS, "range");
                JoinGroupResponseData joinedB = (JoinGroupResponseData) b.receive(ApiKey.JOIN_GROUP, JOIN_V9);
                assertThat(List.of(joinedA.generationId(), joinedB.generationId())).containsOnly(2);
                assertThat(joinedA.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(memberA, memberB);
            }
        }
    }

    @Test
    void leaveGroupAnswersEachMemberOfABatch() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Pair pair = stableTwoMemberGroup(a, b);
            LeaveGroupResponseData answer = (LeaveGroupResponseData) pair.follower().call(ApiKey.LEAVE_GROUP, (short) 5,
                new LeaveGroupRequestData().setGroupId(GROUP).setMembers(List.of(
                    new MemberIdentity().setMemberId(pair.followerId()), new MemberIdentity().setMemberId("stranger"))));
            assertThat(answer.errorCode()).isZero();
            assertThat(answer.members()).extracting(MemberResponse::memberId, MemberResponse::errorCode)
                .containsExactly(tuple(pair.followerId(), (short) 0), tuple("stranger", ErrorCode.UNKNOWN_MEMBER_ID.code()));

            assertThat(pair.leader().heartbeat(pair.leaderId(), 1)).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
            JoinGroupResponseData rejoined = pair.leader().join(pair.leaderId(), LONG_TIMEOUT_MS, "range");
            assertThat(rejoined.generationId()).isEqualTo(2);
            assertThat(rejoined.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(pair.leaderId());
        }
    }

    @Test
    void offsetsCommittedOutsideAGroupAreFetchedBackSingleAndBatched() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire wire = new Wire(cluster, 0)) {
            TopicPartition tp0 = new TopicPartition("t", 0);
            TopicPartition tp1 = new TopicPartition("t", 1);
            OffsetCommitResponseData committed = (OffsetCommitResponseData) wire.call(ApiKey.OFFSET_COMMIT, (short) 9,
                new OffsetCommitRequestData().setGroupId(GROUP).setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(
                    new OffsetCommitRequestTopic().setName("t").setPartitions(List.of(new OffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(42).setCommittedLeaderEpoch(3).setCommittedMetadata("meta"))))));
            assertThat(committed.topics().get(0).partitions().get(0).errorCode()).isZero();
            assertThat(cluster.committed(GROUP, tp0)).contains(new OffsetAndMetadata(42, Optional.of(3), "meta"));

            OffsetFetchResponseData single = wire.fetchV7(tp0, tp1);
            assertThat(single.errorCode()).isZero();
            assertThat(single.topics().get(0).partitions())
                .extracting(OffsetFetchResponsePartition::partitionIndex, OffsetFetchResponsePartition::committedOffset,
                    OffsetFetchResponsePartition::committedLeaderEpoch, OffsetFetchResponsePartition::metadata)
                .containsExactly(tuple(0, 42L, 3, "meta"), tuple(1, -1L, -1, ""));

            OffsetFetchResponseData batched = (OffsetFetchResponseData) wire.call(ApiKey.OFFSET_FETCH, (short) 9,
                new OffsetFetchRequestData().setGroups(List.of(
                    new OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(null),
                    new OffsetFetchRequestGroup().setGroupId("other").setTopics(List.of(
                        new OffsetFetchRequestTopics().setName("t").setPartitionIndexes(List.of(0)))))));
            assertThat(batched.groups()).hasSize(2);
            assertThat(batched.groups().get(0).topics()).singleElement().satisfies(t -> assertThat(t.partitions())
                .extracting(OffsetFetchResponsePartitions::partitionIndex, OffsetFetchResponsePartitions::committedOffset)
                .containsExactly(tuple(0, 42L)));
            assertThat(batched.groups().get(1).errorCode()).isZero();
            assertThat(batched.groups().get(1).topics().get(0).partitions().get(0).committedOffset()).isEqualTo(-1);
        }
    }

    @Test
    void aCommitOfAnOldGenerationOrAStrangerIsRefused() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            TopicPartition tp = new TopicPartition("t", 0);
            assertThat(a.commit((short) 8, 1, "nobody", tp, 1)).as("no such group, before v9").isEqualTo(ErrorCode.ILLEGAL_GENERATION);
            assertThat(a.commit((short) 9, 1, "nobody", tp, 1)).as("no such group, v9").isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);

            Pair pair = stableTwoMemberGroup(a, b);
            assertThat(pair.leader().commit((short) 9, 1, pair.leaderId(), tp, 10)).isEqualTo(ErrorCode.NONE);
            assertThat(pair.follower().commit((short) 9, 0, pair.followerId(), tp, 11)).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
            assertThat(b.commit((short) 9, 1, "stranger", tp, 12)).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
            assertThat(b.commit((short) 9, -1, "", tp, 13)).as("outside the group while it has members")
                .isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
            assertThat(cluster.committed(GROUP, tp)).map(OffsetAndMetadata::offset).contains(10L);
        }
    }

    @Test
    void aConsumerGroupMemberJoinsAtEpochOneWithEveryPartition() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0)) {
            Uuid topic = cluster.createTopic("t", 4, 1);
            ConsumerGroupHeartbeatResponseData joined = a.consumerHeartbeat(join("a"));
            assertThat(joined.errorCode()).isZero();
            assertThat(joined.memberId()).isEqualTo("a");
            assertThat(joined.memberEpoch()).isEqualTo(1);
            assertThat(joined.heartbeatIntervalMs()).isPositive();
            assertThat(partitions(joined, topic)).containsExactly(0, 1, 2, 3);

            ConsumerGroupHeartbeatResponseData steady = a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1, 2, 3)));
            assertThat(steady.memberEpoch()).isEqualTo(1);
            assertThat(steady.assignment()).as("unchanged, so not sent").isNull();
            assertThat(cluster.groupMembers(GROUP)).containsExactly("a");
        }
    }

    @Test
    void aPartitionGoesToItsNewOwnerOnlyOnceTheOldOwnerNoLongerHoldsIt() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Uuid topic = cluster.createTopic("t", 4, 1);
            a.consumerHeartbeat(join("a"));

            ConsumerGroupHeartbeatResponseData bJoined = b.consumerHeartbeat(join("b"));
            assertThat(bJoined.memberEpoch()).as("the new group epoch").isEqualTo(2);
            assertThat(partitions(bJoined, topic)).as("its target partitions are still a's").isEmpty();

            ConsumerGroupHeartbeatResponseData revoke = a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1, 2, 3)));
            assertThat(revoke.memberEpoch()).as("a keeps its epoch until it revokes").isEqualTo(1);
            assertThat(partitions(revoke, topic)).containsExactly(0, 2);

            ConsumerGroupHeartbeatResponseData bWaits = b.consumerHeartbeat(heartbeat("b", 2, owned(topic)));
            assertThat(bWaits.assignment()).as("a still holds 1 and 3").isNull();

            ConsumerGroupHeartbeatResponseData revoked = a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 2)));
            assertThat(revoked.memberEpoch()).isEqualTo(2);
            assertThat(revoked.assignment()).isNull();

            ConsumerGroupHeartbeatResponseData bGets = b.consumerHeartbeat(heartbeat("b", 2, owned(topic)));
            assertThat(bGets.memberEpoch()).isEqualTo(2);
            assertThat(partitions(bGets, topic)).containsExactly(1, 3);
        }
    }

    @Test
    void theRangeAssignorGivesContiguousPartitionsAndARegexSubscribesByName() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Uuid topic = cluster.createTopic("t", 5, 1);
            cluster.createTopic("other", 1, 1);
            a.consumerHeartbeat(join("a").setServerAssignor("range"));
            ConsumerGroupHeartbeatResponseData bJoined = b.consumerHeartbeat(join("b").setServerAssignor("range")
                .setSubscribedTopicNames(null).setSubscribedTopicRegex("t|x.*"));
            assertThat(bJoined.errorCode()).isZero();
            ConsumerGroupHeartbeatResponseData aRevokes = a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1, 2, 3, 4)));
            assertThat(partitions(aRevokes, topic)).as("the first member, the longer range").containsExactly(0, 1, 2);
            a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1, 2)));
            ConsumerGroupHeartbeatResponseData bGets = b.consumerHeartbeat(heartbeat("b", 2, owned(topic)));
            assertThat(bGets.assignment().topicPartitions()).as("nothing of topic other").hasSize(1);
            assertThat(partitions(bGets, topic)).containsExactly(3, 4);

            assertThat(a.consumerHeartbeat(join("c").setServerAssignor("sticky")).errorCode())
                .isEqualTo(ErrorCode.UNSUPPORTED_ASSIGNOR.code());
        }
    }

    @Test
    void aMemberLeavingWithEpochMinusOneHandsItsPartitionsOn() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Uuid topic = cluster.createTopic("t", 2, 1);
            b.consumerHeartbeat(join("b"));
            a.consumerHeartbeat(join("a"));
            b.consumerHeartbeat(heartbeat("b", 1, owned(topic, 0, 1)));
            b.consumerHeartbeat(heartbeat("b", 1, owned(topic, 1)));
            assertThat(partitions(a.consumerHeartbeat(heartbeat("a", 2, owned(topic))), topic)).containsExactly(0);

            ConsumerGroupHeartbeatResponseData left = b.consumerHeartbeat(heartbeat("b", -1, null));
            assertThat(left.errorCode()).isZero();
            assertThat(left.memberEpoch()).isEqualTo(-1);
            ConsumerGroupHeartbeatResponseData all = a.consumerHeartbeat(heartbeat("a", 2, owned(topic, 0)));
            assertThat(all.memberEpoch()).isEqualTo(3);
            assertThat(partitions(all, topic)).containsExactly(0, 1);
            assertThat(cluster.groupMembers(GROUP)).containsExactly("a");
        }
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsRemoved() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Uuid topic = cluster.createTopic("t", 2, 1);
            a.consumerHeartbeat(join("a").setRebalanceTimeoutMs(300));
            b.consumerHeartbeat(join("b"));
            assertThat(partitions(a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1))), topic)).containsExactly(0);

            // a never acknowledges giving up partition 1
            assertThat(cluster.awaitGroupMembers(GROUP, 1, Duration.ofSeconds(10))).containsExactly("b");
            ConsumerGroupHeartbeatResponseData all = b.consumerHeartbeat(heartbeat("b", 2, owned(topic)));
            assertThat(all.memberEpoch()).isEqualTo(3);
            assertThat(partitions(all, topic)).containsExactly(0, 1);
            assertThat(a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0))).errorCode())
                .isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID.code());
        }
    }

    @Test
    void aHeartbeatAtAnotherEpochIsFencedAndAnUnknownMemberIsRefused() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0); Wire b = new Wire(cluster, 0)) {
            Uuid topic = cluster.createTopic("t", 2, 1);
            a.consumerHeartbeat(join("a"));
            b.consumerHeartbeat(join("b"));
            a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1)));
            assertThat(a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0))).memberEpoch()).isEqualTo(2);

            assertThat(a.consumerHeartbeat(heartbeat("a", 3, owned(topic, 0))).errorCode())
                .as("ahead of the coordinator").isEqualTo(ErrorCode.FENCED_MEMBER_EPOCH.code());
            assertThat(a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0, 1))).errorCode())
                .as("the previous epoch, holding a partition no longer its own").isEqualTo(ErrorCode.FENCED_MEMBER_EPOCH.code());
            ConsumerGroupHeartbeatResponseData lostAnswer = a.consumerHeartbeat(heartbeat("a", 1, owned(topic, 0)));
            assertThat(lostAnswer.errorCode()).as("the previous epoch, holding only its own").isZero();
            assertThat(lostAnswer.memberEpoch()).isEqualTo(2);
            assertThat(a.consumerHeartbeat(heartbeat("stranger", 2, owned(topic))).errorCode())
                .isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID.code());

            ConsumerGroupHeartbeatResponseData rejoined = a.consumerHeartbeat(join("a"));
            assertThat(rejoined.errorCode()).as("a fenced member rejoins at epoch 0").isZero();
            assertThat(rejoined.memberEpoch()).isEqualTo(2);
            assertThat(partitions(rejoined, topic)).containsExactly(0);
        }
    }

    @Test
    void aConsumerGroupMembersCommitAndFetchAreCheckedAgainstItsEpoch() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); Wire a = new Wire(cluster, 0)) {
            cluster.createTopic("t", 1, 1);
            TopicPartition tp = new TopicPartition("t", 0);
            assertThat(a.consumerHeartbeat(join("a")).memberEpoch()).isEqualTo(1);

            assertThat(a.commit((short) 9, 1, "a", tp, 5)).isEqualTo(ErrorCode.NONE);
            assertThat(a.commit((short) 9, 0, "a", tp, 6)).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH);
            assertThat(a.commit((short) 9, 1, "stranger", tp, 7)).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
            assertThat(a.commit((short) 9, -1, "", tp, 8)).as("outside the group while it has members")
                .isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
            assertThat(a.commit((short) 8, 1, "a", tp, 9)).as("a KIP-848 member commits at v9+")
                .isEqualTo(ErrorCode.UNSUPPORTED_VERSION);

            OffsetFetchResponseData stale = (OffsetFetchResponseData) a.call(ApiKey.OFFSET_FETCH, (short) 9,
                new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestGroup().setGroupId(GROUP)
                    .setMemberId("a").setMemberEpoch(0).setTopics(null))));
            assertThat(stale.groups().get(0).errorCode()).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH.code());
            OffsetFetchResponseData current = (OffsetFetchResponseData) a.call(ApiKey.OFFSET_FETCH, (short) 9,
                new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestGroup().setGroupId(GROUP)
                    .setMemberId("a").setMemberEpoch(1).setTopics(null))));
            assertThat(current.groups().get(0).topics().get(0).partitions().get(0).committedOffset()).isEqualTo(5);
        }
    }

    /** A v1 join: member id chosen by the member, epoch 0, subscribed to topic "t". */
    private static ConsumerGroupHeartbeatRequestData join(String memberId) {
        return new ConsumerGroupHeartbeatRequestData().setGroupId(GROUP).setMemberId(memberId).setMemberEpoch(0)
            .setRebalanceTimeoutMs(LONG_TIMEOUT_MS).setSubscribedTopicNames(List.of("t")).setTopicPartitions(List.of());
    }

    /** A heartbeat that changes nothing but reports the partitions held (null: unchanged). */
    private static ConsumerGroupHeartbeatRequestData heartbeat(String memberId, int epoch,
                                                               List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        return new ConsumerGroupHeartbeatRequestData().setGroupId(GROUP).setMemberId(memberId).setMemberEpoch(epoch)
            .setTopicPartitions(owned);
    }

    private static List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned(Uuid topic, Integer... partitions) {
        return List.of(new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(topic).setPartitions(List.of(partitions)));
    }

    /** The partitions of {@code topic} the answer assigns; fails if it carries no assignment. */
    private static List<Integer> partitions(ConsumerGroupHeartbeatResponseData answer, Uuid topic) {
        assertThat(answer.errorCode()).isZero();
        assertThat(answer.assignment()).as("an assignment").isNotNull();
        return answer.assignment().topicPartitions().stream().filter(t -> t.topicId().equals(topic))
            .flatMap(t -> t.partitions().stream()).toList();
    }

    /** Two members of the group, each with its connection; the leader first. */
    private record Pair(Wire leader, String leaderId, Wire follower, String followerId) {
    }

    /** Two members joined at generation 1, not yet synced. */
    private static Pair twoMemberGroup(Wire a, Wire b) throws IOException {
        return twoMemberGroup(a, b, LONG_TIMEOUT_MS);
    }

    /** Two members, each with this rebalance timeout, joined at generation 1, not yet synced. */
    private static Pair twoMemberGroup(Wire a, Wire b, int rebalanceTimeoutMs) throws IOException {
        String memberA = a.join("", LONG_TIMEOUT_MS, "range").memberId();
        String memberB = b.join("", LONG_TIMEOUT_MS, "range").memberId();
        a.send(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberA, LONG_TIMEOUT_MS, "range").setRebalanceTimeoutMs(rebalanceTimeoutMs));
        JoinGroupResponseData joinedB = (JoinGroupResponseData) b.call(ApiKey.JOIN_GROUP, JOIN_V9,
            joinRequest(memberB, LONG_TIMEOUT_MS, "range").setRebalanceTimeoutMs(rebalanceTimeoutMs));
        assertThat(joinedB.generationId()).isEqualTo(1);
        assertThat(((JoinGroupResponseData) a.receive(ApiKey.JOIN_GROUP, JOIN_V9)).generationId()).isEqualTo(1);
        return joinedB.leader().equals(memberA) ? new Pair(a, memberA, b, memberB) : new Pair(b, memberB, a, memberA);
    }

    /** Two members synced at generation 1. */
    private static Pair stableTwoMemberGroup(Wire a, Wire b) throws IOException {
        return stableTwoMemberGroup(a, b, LONG_TIMEOUT_MS);
    }

    /** Two members, each with this rebalance timeout, synced at generation 1. */
    private static Pair stableTwoMemberGroup(Wire a, Wire b, int rebalanceTimeoutMs) throws IOException {
        Pair pair = twoMemberGroup(a, b, rebalanceTimeoutMs);
        pair.follower().send(ApiKey.SYNC_GROUP, (short) 5, syncRequest(pair.followerId(), 1));
        assertThat(((SyncGroupResponseData) pair.leader().call(ApiKey.SYNC_GROUP, (short) 5, syncRequest(pair.leaderId(), 1)))
            .errorCode()).isZero();
        assertThat(((SyncGroupResponseData) pair.follower().receive(ApiKey.SYNC_GROUP, (short) 5)).errorCode()).isZero();
        return pair;
    }

    private static JoinGroupRequestData joinRequest(String memberId, int sessionTimeoutMs, String... protocols) {
        JoinGroupRequestProtocolCollection supported = new JoinGroupRequestProtocolCollection();
        for (String protocol : protocols) {
            supported.add(new JoinGroupRequestProtocol().setName(protocol).setMetadata(bytes(protocol + "-metadata")));
        }
        return new JoinGroupRequestData().setGroupId(GROUP).setMemberId(memberId).setSessionTimeoutMs(sessionTimeoutMs)
            .setRebalanceTimeoutMs(LONG_TIMEOUT_MS).setProtocolType("consumer").setProtocols(supported);
    }

    private static SyncGroupRequestData syncRequest(String memberId, int generation) {
        return new SyncGroupRequestData().setGroupId(GROUP).setMemberId(memberId).setGenerationId(generation)
            .setProtocolType("consumer").setProtocolName("range");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A {@link WireConnection} with the group RPCs' requests; a request may be sent and its answer read later. */
    private static final class Wire implements AutoCloseable {
        private final WireConnection connection;

        Wire(SimulatedCluster cluster, int brokerId) throws IOException {
            connection = new WireConnection(cluster, brokerId, "wire-test");
        }

        void send(ApiKey api, short version, ApiMessage request) throws IOException {
            connection.send(api, version, request);
        }

        /** The next answer on the connection, which must answer the last request sent. */
        ApiMessage receive(ApiKey api, short version) throws IOException {
            ResponseFrame answer = connection.receive(api, version);
            assertThat(answer.correlationId()).isEqualTo(connection.lastCorrelationId());
            return answer.body();
        }

        ApiMessage call(ApiKey api, short version, ApiMessage request) throws IOException {
            send(api, version, request);
            return receive(api, version);
        }

        ConsumerGroupHeartbeatResponseData consumerHeartbeat(ConsumerGroupHeartbeatRequestData request) throws IOException {
            return (ConsumerGroupHeartbeatResponseData) call(ApiKey.CONSUMER_GROUP_HEARTBEAT, (short) 1, request);
        }

        JoinGroupResponseData join(String memberId, int sessionTimeoutMs, String... protocols) throws IOException {
            return (JoinGroupResponseData) call(ApiKey.JOIN_GROUP, JOIN_V9, joinRequest(memberId, sessionTimeoutMs, protocols));
        }

        ErrorCode heartbeat(String memberId, int generation) throws IOException {
            HeartbeatResponseData answer = (HeartbeatResponseData) call(ApiKey.HEARTBEAT, (short) 4,
                new HeartbeatRequestData().setGroupId(GROUP).setMemberId(memberId).setGenerationId(generation));
            return ErrorCode.forCode(answer.errorCode());
        }

        ErrorCode commit(short version, int generation, String memberId, TopicPartition tp, long offset) throws IOException {
            OffsetCommitResponseData answer = (OffsetCommitResponseData) call(ApiKey.OFFSET_COMMIT, version, new OffsetCommitRequestData()
                .setGroupId(GROUP).setGenerationIdOrMemberEpoch(generation).setMemberId(memberId).setTopics(List.of(
                    new OffsetCommitRequestTopic().setName(tp.topic()).setPartitions(List.of(new OffsetCommitRequestPartition()
                        .setPartitionIndex(tp.partition()).setCommittedOffset(offset))))));
            return ErrorCode.forCode(answer.topics().get(0).partitions().get(0).errorCode());
        }

        OffsetFetchResponseData fetchV7(TopicPartition... partitions) throws IOException {
            return (OffsetFetchResponseData) call(ApiKey.OFFSET_FETCH, (short) 7, new OffsetFetchRequestData().setGroupId(GROUP)
                .setTopics(List.of(new OffsetFetchRequestTopic().setName(partitions[0].topic())
                    .setPartitionIndexes(Arrays.stream(partitions).map(TopicPartition::partition).toList()))));
        }

        @Override
        public void close() throws IOException {
            connection.close();
        }
    }
}
