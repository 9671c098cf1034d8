package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.PartitionLeadership;

class SendPlanTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);
    private static final TopicPartition C0 = new TopicPartition("c", 0);

    @Test
    void testGroupsReadyPartitionsByLeaderInReadyOrder() {
        Map<TopicPartition, PartitionLeadership> leaders = Map.of(A0, led(1), A1, led(2), B0, led(1));

        SendPlan plan = SendPlan.of(ordered(A0, A1, B0), leaders::get, (partition, node) -> null);

        assertThat(plan.byLeader()).containsOnlyKeys(1, 2);
        assertThat(plan.byLeader().get(1)).containsExactly(A0, B0);
        assertThat(plan.byLeader().get(2)).containsExactly(A1);
        assertThat(plan.topicsWithoutLeader()).isEmpty();
    }

    @Test
    void testPartitionsThatCannotGoToTheirLeaderAskForTheirTopics() {
        Map<TopicPartition, PartitionLeadership> routable = Map.of(A1, led(1));

        SendPlan plan = SendPlan.of(ordered(A0, B0, C0, A1), routable::get, (partition, node) -> null);

        assertThat(plan.topicsWithoutLeader()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(plan.byLeader()).containsOnlyKeys(1);
        assertThat(plan.byLeader().get(1)).containsExactly(A1);
        assertThat(plan.held()).containsOnly(entry(A0, BatchPhase.METADATA), entry(B0, BatchPhase.METADATA),
                entry(C0, BatchPhase.METADATA));
    }

    @Test
    void testAPartitionThatMayNotGoToItsLeaderYetIsHeldForItsReasonAndNeedsNoRefresh() {
        Map<TopicPartition, PartitionLeadership> leaders = Map.of(A0, led(1), A1, led(2), B0, led(2));

        SendPlan plan = SendPlan.of(ordered(A0, A1, B0), leaders::get,
                (partition, node) -> node == 1 ? BatchPhase.QUEUED : partition.equals(B0) ? BatchPhase.BEHIND_IN_FLIGHT : null);

        assertThat(plan.byLeader()).containsOnlyKeys(2);
        assertThat(plan.byLeader().get(2)).containsExactly(A1);
        assertThat(plan.topicsWithoutLeader()).isEmpty();
        assertThat(plan.held()).containsOnly(entry(A0, BatchPhase.QUEUED), entry(B0, BatchPhase.BEHIND_IN_FLIGHT));
    }

    private static Set<TopicPartition> ordered(TopicPartition... partitions) {
        return new LinkedHashSet<>(List.of(partitions));
    }

    private static PartitionLeadership led(int leader) {
        return new PartitionLeadership(Uuid.ZERO_UUID, leader, 3, List.of(1, 2, 3), List.of(1, 2, 3), List.of(), 1);
    }
}
