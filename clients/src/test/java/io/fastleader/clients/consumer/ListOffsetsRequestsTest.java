package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.consumer.ListOffsetsRequests.Plan;
import io.fastleader.clients.consumer.ListOffsetsRequests.Target;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsPartition;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsTopicResponse;

class ListOffsetsRequestsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);
    private static final TopicPartition C0 = new TopicPartition("c", 0);

    @Test
    void testGroupsLookupsByLeaderWithTheEpochTheCacheKnows() {
        Map<TopicPartition, PartitionLeadership> leaders = Map.of(A0, led(1, 5), A1, led(2, 7), B0, led(1, 3));

        Plan plan = ListOffsetsRequests.plan(ordered(A0, -2L, A1, -1L, B0, 1000L), leaders::get);

        assertThat(plan.byLeader()).containsOnlyKeys(1, 2);
        assertThat(plan.byLeader().get(1)).containsExactly(new Target(A0, -2, 5), new Target(B0, 1000, 3));
        assertThat(plan.byLeader().get(2)).containsExactly(new Target(A1, -1, 7));
        assertThat(plan.withoutLeader()).isEmpty();
    }

    @Test
    void testPartitionsThatCannotGoToTheirLeaderWaitApart() {
        Map<TopicPartition, PartitionLeadership> routable = Map.of(A1, led(1, 1));

        Plan plan = ListOffsetsRequests.plan(ordered(A0, -1L, B0, -1L, C0, -1L, A1, -1L), routable::get);

        assertThat(plan.withoutLeader()).containsExactly(A0, B0, C0);
        assertThat(plan.byLeader()).containsOnlyKeys(1);
    }

    @Test
    void testRequestAsksAsAConsumerWithIsolationAndCurrentLeaderEpoch() {
        ListOffsetsRequestData request = ListOffsetsRequests.request(
                List.of(new Target(A0, ListOffsetsRequest.LATEST_TIMESTAMP, 5), new Target(B0, 1234, -1), new Target(A1, -2, 6)),
                IsolationLevel.READ_COMMITTED, 30_000);

        assertThat(request.replicaId()).isEqualTo(-1);
        assertThat(request.isolationLevel()).isEqualTo(IsolationLevel.READ_COMMITTED.id());
        assertThat(request.timeoutMs()).isEqualTo(30_000);
        assertThat(request.topics()).extracting(ListOffsetsRequestData.ListOffsetsTopic::name).containsExactly("a", "b");
        List<ListOffsetsPartition> a = request.topics().get(0).partitions();
        assertThat(a).extracting(ListOffsetsPartition::partitionIndex).containsExactly(0, 1);
        assertThat(a).extracting(ListOffsetsPartition::currentLeaderEpoch).containsExactly(5, 6);
        assertThat(a).extracting(ListOffsetsPartition::timestamp).containsExactly(-1L, -2L);
        assertThat(request.topics().get(1).partitions().get(0).timestamp()).isEqualTo(1234);
        for (short version = 2; version <= ApiKey.LIST_OFFSETS.highestVersion(); version++) {
            assertThat(MessageUtil.toByteBufferAccessor(request, version).buffer().remaining()).isPositive();
        }
        // v1 has no isolation level: read_committed cannot be asked of a broker that old.
        assertThatThrownBy(() -> MessageUtil.toByteBufferAccessor(request, (short) 1))
                .isInstanceOf(UnsupportedVersionException.class);
    }

    @Test
    void testAnswersAreFoundByPartitionAndAnUnknownEpochIsEmpty() {
        ListOffsetsResponseData response = new ListOffsetsResponseData().setTopics(List.of(new ListOffsetsTopicResponse()
                .setName("a")
                .setPartitions(List.of(
                        new ListOffsetsPartitionResponse().setPartitionIndex(0).setOffset(42).setTimestamp(1000).setLeaderEpoch(3),
                        new ListOffsetsPartitionResponse().setPartitionIndex(1).setOffset(-1).setTimestamp(-1).setLeaderEpoch(-1)))));

        Map<TopicPartition, ListOffsetsPartitionResponse> answers = ListOffsetsRequests.answers(response);

        assertThat(ListOffsetsRequests.listed(answers.get(A0))).isEqualTo(new ListedOffset(42, 1000, Optional.of(3)));
        ListedOffset none = ListOffsetsRequests.listed(answers.get(A1));
        assertThat(none).isEqualTo(new ListedOffset(ListedOffset.NOT_FOUND, -1, Optional.empty()));
        assertThat(none.found()).isFalse();
    }

    private static Map<TopicPartition, Long> ordered(Object... partitionsAndTimestamps) {
        Map<TopicPartition, Long> ordered = new LinkedHashMap<>();
        for (int i = 0; i < partitionsAndTimestamps.length; i += 2) {
            ordered.put((TopicPartition) partitionsAndTimestamps[i], (Long) partitionsAndTimestamps[i + 1]);
        }
        return ordered;
    }

    private static PartitionLeadership led(int leader, int epoch) {
        return new PartitionLeadership(Uuid.ZERO_UUID, leader, epoch, List.of(), List.of(), List.of(), 1);
    }
}
