package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.consumer.group.GroupRequests.Fetched;
import io.fastleader.clients.consumer.group.GroupRequests.FetchedOffset;
import io.fastleader.clients.network.VersionedRequest;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import io.fastleader.protocol.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchResponseData;

class GroupRequestsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    @Test
    void testCommitsFromOutsideTheGroupWithEpochAndMetadata() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        offsets.put(A0, new OffsetAndMetadata(10, Optional.of(4), "m"));
        offsets.put(B0, new OffsetAndMetadata(20));
        offsets.put(A1, new OffsetAndMetadata(11, Optional.empty(), "n"));

        OffsetCommitRequestData request = GroupRequests.commit("g", MemberIdentity.OUTSIDE_THE_GROUP, offsets);

        assertThat(request.groupId()).isEqualTo("g");
        assertThat(request.generationIdOrMemberEpoch()).isEqualTo(-1);
        assertThat(request.memberId()).isEmpty();
        assertThat(request.groupInstanceId()).isNull();
        assertThat(request.topics()).extracting(OffsetCommitRequestData.OffsetCommitRequestTopic::name).containsExactly("a", "b");
        List<OffsetCommitRequestPartition> a = request.topics().get(0).partitions();
        assertThat(a).extracting(OffsetCommitRequestPartition::partitionIndex).containsExactly(0, 1);
        assertThat(a).extracting(OffsetCommitRequestPartition::committedOffset).containsExactly(10L, 11L);
        assertThat(a).extracting(OffsetCommitRequestPartition::committedLeaderEpoch).containsExactly(4, -1);
        assertThat(a).extracting(OffsetCommitRequestPartition::committedMetadata).containsExactly("m", "n");
        assertThat(request.topics().get(1).partitions().get(0).committedMetadata()).isEmpty();
        for (short version = ApiKey.OFFSET_COMMIT.lowestVersion(); version <= ApiKey.OFFSET_COMMIT.highestVersion(); version++) {
            assertSerializable(request, version);
        }
    }

    @Test
    void testAMembersCommitCarriesItsIdEpochAndInstanceId() {
        MemberIdentity member = new MemberIdentity("member-a", 7, Optional.of("instance-1"));

        OffsetCommitRequestData request = GroupRequests.commit("g", member, Map.of(A0, new OffsetAndMetadata(10)));

        assertThat(request.memberId()).isEqualTo("member-a");
        assertThat(request.generationIdOrMemberEpoch()).isEqualTo(7);
        assertThat(request.groupInstanceId()).isEqualTo("instance-1");
        for (short version = 7; version <= ApiKey.OFFSET_COMMIT.highestVersion(); version++) {
            assertSerializable(request, version);
        }
        // Static members came with v7; every broker that serves the consumer group protocol speaks v9.
        assertThatThrownBy(() -> assertSerializable(request, (short) 6)).isInstanceOf(UnsupportedVersionException.class);
    }

    @Test
    void testADynamicMembersCommitIsSerializableAtEveryVersion() {
        MemberIdentity member = new MemberIdentity("member-a", 7, Optional.empty());

        OffsetCommitRequestData request = GroupRequests.commit("g", member, Map.of(A0, new OffsetAndMetadata(10)));

        assertThat(request.memberId()).isEqualTo("member-a");
        assertThat(request.generationIdOrMemberEpoch()).isEqualTo(7);
        assertThat(request.groupInstanceId()).isNull();
        for (short version = ApiKey.OFFSET_COMMIT.lowestVersion(); version <= ApiKey.OFFSET_COMMIT.highestVersion(); version++) {
            assertSerializable(request, version);
        }
    }

    @Test
    void testAMembersOffsetFetchCarriesItsIdAndEpochFromV9() {
        MemberIdentity member = new MemberIdentity("member-a", 7, Optional.empty());

        OffsetFetchRequestData v9 = (OffsetFetchRequestData) GroupRequests.fetch("g", member, List.of(A0), StableOffsets.NOT_ASKED).at((short) 9);
        OffsetFetchRequestData outside = (OffsetFetchRequestData) GroupRequests.fetch("g", MemberIdentity.OUTSIDE_THE_GROUP, List.of(A0), StableOffsets.NOT_ASKED)
                .at((short) 9);

        assertThat(v9.groups().get(0).memberId()).isEqualTo("member-a");
        assertThat(v9.groups().get(0).memberEpoch()).isEqualTo(7);
        assertThat(outside.groups().get(0).memberId()).as("no member to check").isNull();
        assertThat(outside.groups().get(0).memberEpoch()).isEqualTo(-1);
        for (short version = ApiKey.OFFSET_FETCH.lowestVersion(); version <= ApiKey.OFFSET_FETCH.highestVersion(); version++) {
            assertSerializable(GroupRequests.fetch("g", member, List.of(A0), StableOffsets.NOT_ASKED).at(version), version);
        }
    }

    @Test
    void testReadsEachPartitionsCommitErrorInOrder() {
        OffsetCommitResponseData response = new OffsetCommitResponseData().setTopics(List.of(
                new OffsetCommitResponseTopic().setName("a").setPartitions(List.of(
                        new OffsetCommitResponsePartition().setPartitionIndex(1).setErrorCode(ErrorCode.NONE.code()),
                        new OffsetCommitResponsePartition().setPartitionIndex(0).setErrorCode(ErrorCode.OFFSET_METADATA_TOO_LARGE.code())))));

        assertThat(GroupRequests.commitErrors(response))
                .containsExactly(Map.entry(A1, ErrorCode.NONE), Map.entry(A0, ErrorCode.OFFSET_METADATA_TOO_LARGE));
    }

    @Test
    void testFetchUsesTheTopLevelLayoutBeforeV8AndTheBatchedGroupsFrom() {
        List<TopicPartition> partitions = List.of(A0, B0, A1);
        for (short version = ApiKey.OFFSET_FETCH.lowestVersion(); version <= ApiKey.OFFSET_FETCH.highestVersion(); version++) {
            boolean requireStable = version >= 7;
            StableOffsets stable = requireStable ? StableOffsets.ASKED : StableOffsets.NOT_ASKED;
            OffsetFetchRequestData request = (OffsetFetchRequestData) GroupRequests.fetch("g", MemberIdentity.OUTSIDE_THE_GROUP, partitions, stable).at(version);

            assertThat(request.requireStable()).isEqualTo(requireStable);
            if (version >= 8) {
                assertThat(request.groups()).hasSize(1);
                OffsetFetchRequestData.OffsetFetchRequestGroup group = request.groups().get(0);
                assertThat(group.groupId()).isEqualTo("g");
                assertThat(group.memberId()).isNull();
                assertThat(group.memberEpoch()).isEqualTo(-1);
                assertThat(group.topics()).extracting(OffsetFetchRequestData.OffsetFetchRequestTopics::name).containsExactly("a", "b");
                assertThat(group.topics().get(0).partitionIndexes()).containsExactly(0, 1);
            } else {
                assertThat(request.groupId()).isEqualTo("g");
                assertThat(request.topics()).extracting(OffsetFetchRequestData.OffsetFetchRequestTopic::name).containsExactly("a", "b");
                assertThat(request.topics().get(0).partitionIndexes()).containsExactly(0, 1);
            }
            assertSerializable(request, version);
        }
    }

    @Test
    void testRequiringStableOffsetsOfABrokerTooOldFailsTheFetch() {
        assertThatThrownBy(() -> GroupRequests.fetch("g", MemberIdentity.OUTSIDE_THE_GROUP, List.of(A0), StableOffsets.ASKED).at((short) 6))
                .isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("v6");
    }

    @Test
    void testStableOffsetsAskedWhereSpokenAreNotAskedOfABrokerTooOld() {
        VersionedRequest fetch = GroupRequests.fetch("g", MemberIdentity.OUTSIDE_THE_GROUP, List.of(A0), StableOffsets.ASKED_WHERE_SPOKEN);

        assertThat(((OffsetFetchRequestData) fetch.at((short) 6)).requireStable()).as("v6").isFalse();
        assertThat(((OffsetFetchRequestData) fetch.at((short) 7)).requireStable()).as("v7").isTrue();
    }

    @Test
    void testReadsCommittedOffsetsFromEitherLayout() {
        OffsetFetchResponseData topLevel = new OffsetFetchResponseData()
                .setErrorCode(ErrorCode.NONE.code())
                .setTopics(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopic().setName("a").setPartitions(List.of(
                        new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(0)
                                .setCommittedOffset(10).setCommittedLeaderEpoch(4).setMetadata("m"),
                        new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(1)
                                .setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("")))));
        OffsetFetchResponseData batched = new OffsetFetchResponseData().setGroups(List.of(
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("other")
                        .setErrorCode(ErrorCode.GROUP_AUTHORIZATION_FAILED.code()),
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("g")
                        .setErrorCode(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code())
                        .setTopics(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopics().setName("b").setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(0)
                                        .setCommittedOffset(7).setCommittedLeaderEpoch(2).setMetadata("x")
                                        .setErrorCode(ErrorCode.UNSTABLE_OFFSET_COMMIT.code())))))));

        assertThat(GroupRequests.fetched(topLevel, "g")).isEqualTo(new Fetched(ErrorCode.NONE, List.of(
                new FetchedOffset(A0, 10, 4, "m", ErrorCode.NONE), new FetchedOffset(A1, -1, -1, "", ErrorCode.NONE))));
        assertThat(GroupRequests.fetched(batched, "g")).isEqualTo(new Fetched(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, List.of(
                new FetchedOffset(B0, 7, 2, "x", ErrorCode.UNSTABLE_OFFSET_COMMIT))));
    }

    private static void assertSerializable(ApiMessage request, short version) {
        assertThat(MessageUtil.toByteBufferAccessor(request, version).buffer().remaining()).as("written at v%d", version).isPositive();
    }
}
