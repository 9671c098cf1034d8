package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class SubscriptionStateTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition PAYMENTS_0 = new TopicPartition("payments", 0);

    private final SubscriptionState subscriptions = new SubscriptionState();

    @Test
    void aKeptPartitionKeepsItsPositionAndARemovedOneIsForgotten() {
        subscriptions.assign(List.of(ORDERS_0, ORDERS_1));
        PartitionState kept = subscriptions.assigned(ORDERS_0);
        kept.seek(FetchPosition.at(42));

        SubscriptionState.Change change = subscriptions.assign(List.of(ORDERS_0, PAYMENTS_0));

        assertThat(subscriptions.assigned(ORDERS_0)).isSameAs(kept);
        assertThat(kept.position()).isEqualTo(FetchPosition.at(42));
        assertThat(subscriptions.state(ORDERS_1)).isNull();
        assertThat(change.removed()).containsExactly(ORDERS_1);
        assertThat(change.added()).containsExactly(PAYMENTS_0);
    }

    @Test
    void aPartitionAssignedAgainGetsANewStateAndTheOldOneIsNoLongerCurrent() {
        subscriptions.assign(List.of(ORDERS_0));
        PartitionState first = subscriptions.assigned(ORDERS_0);

        subscriptions.assign(List.of());
        subscriptions.assign(List.of(ORDERS_0));

        assertThat(subscriptions.isCurrent(first)).isFalse();
        assertThat(subscriptions.isCurrent(subscriptions.assigned(ORDERS_0))).isTrue();
        assertThat(subscriptions.assigned(ORDERS_0).phase()).isEqualTo(PartitionState.Phase.INITIALIZING);
    }

    @Test
    void aSeekEvenToTheSameOffsetCountsAsAMoveOfThePosition() {
        subscriptions.assign(List.of(ORDERS_0));
        PartitionState state = subscriptions.assigned(ORDERS_0);
        state.seek(FetchPosition.at(10));
        int moves = state.moves();

        state.seek(FetchPosition.at(10));

        assertThat(state.moves()).isEqualTo(moves + 1);
        state.advance(FetchPosition.at(12));
        assertThat(state.moves()).as("consuming is no move").isEqualTo(moves + 1);
    }

    @Test
    void usesTopicFollowsTheAssignmentAndAssignSaysWhichTopicsCameAndWent() {
        SubscriptionState.Change first = subscriptions.assign(List.of(ORDERS_0, ORDERS_1));
        SubscriptionState.Change second = subscriptions.assign(List.of(PAYMENTS_0));

        assertThat(first.topicsAdded()).containsExactly("orders");
        assertThat(second.topicsDropped()).containsExactly("orders");
        assertThat(second.topicsAdded()).containsExactly("payments");
        assertThat(subscriptions.usesTopic("orders")).isFalse();
        assertThat(subscriptions.usesTopic("payments")).isTrue();
    }

    @Test
    void anUnassignedPartitionIsRefusedWithKafkasMessage() {
        subscriptions.assign(List.of(ORDERS_0));

        assertThatThrownBy(() -> subscriptions.assigned(ORDERS_1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("No current assignment for partition orders-1");
    }

    @Test
    void onlyPartitionsBeingFetchedHavePositionsToCommit() {
        subscriptions.assign(List.of(ORDERS_0, ORDERS_1, PAYMENTS_0));
        subscriptions.assigned(ORDERS_0).seek(new FetchPosition(7, Optional.of(3)));
        subscriptions.assigned(PAYMENTS_0).requestReset(ResetStrategy.EARLIEST);

        assertThat(subscriptions.positionsToCommit()).containsExactly(
                Map.entry(ORDERS_0, new OffsetAndMetadata(7, Optional.of(3), "")));
    }

    @Test
    void pausedListsThePausedPartitionsOnly() {
        subscriptions.assign(List.of(ORDERS_0, ORDERS_1));
        subscriptions.assigned(ORDERS_1).pause();

        assertThat(subscriptions.paused()).containsExactly(ORDERS_1);
    }
}
