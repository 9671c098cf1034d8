package io.fastleader.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class MetadataViewTest {

    private static final Duration MAX_AGE = Duration.ofMillis(1000);
    private static final Partition P0 = new Partition("orders", 0);
    private static final Uuid ORDERS_ID = Uuid.randomUuid();
    private static final String CLIENT = "producer-1";
    private static final Endpoint NODE_1 = new Endpoint(1, "proxy.example", 9093, null);

    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final MetadataView view = new MetadataView(MAX_AGE, clock::get);

    /** Records the requests a refresh sends and answers them when the test says so. */
    private static final class MetadataRequests {
        final List<Set<String>> sent = new ArrayList<>();
        final List<CompletableFuture<MetadataSnapshot>> pending = new ArrayList<>();

        CompletionStage<MetadataSnapshot> send(Set<String> topics) {
            sent.add(topics);
            CompletableFuture<MetadataSnapshot> response = new CompletableFuture<>();
            pending.add(response);
            return response;
        }
    }

    private static MetadataSnapshot snapshot(Partition partition, int leaderId, int epoch) {
        return snapshot(partition, ORDERS_ID, leaderId, epoch);
    }

    private static MetadataSnapshot snapshot(Partition partition, Uuid topicId, int leaderId, int epoch) {
        return new MetadataSnapshot(Map.of(partition, new PartitionLeader(leaderId, epoch)), Map.of(partition.topic(), topicId), List.of(NODE_1));
    }

    private void advance(Duration duration) {
        clock.addAndGet(duration.toNanos());
    }

    @Test
    void knowsTheLeaderAndAddressesOfAServedMetadataResponse() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));

        assertThat(view.leader(P0)).contains(new PartitionLeader(1, 4));
        assertThat(view.advertisedEndpoint(1)).contains(NODE_1);
        assertThat(view.topicName(ORDERS_ID)).contains("orders");
    }

    @Test
    void aServedResponseIsWhatClientsKnow() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));

        assertThat(view.served(CLIENT, P0)).contains(new PartitionLeader(1, 4));
    }

    @Test
    void eachClientIdKnowsWhatItWasServed() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));
        view.recordServed("consumer-1", snapshot(P0, 2, 5));

        assertThat(view.served(CLIENT, P0)).contains(new PartitionLeader(1, 4));
    }

    @Test
    void aClientIdNotServedThePartitionIsTakenToKnowTheNewestAnyClientWasServed() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));
        view.recordServed("consumer-1", snapshot(P0, 2, 5));

        assertThat(view.served("producer-2", P0)).contains(new PartitionLeader(2, 5));
    }

    @Test
    void remembersWhoLedAtEachRecentEpoch() {
        view.recordServed(CLIENT, snapshot(P0, 0, 4));
        view.recordRefreshed(snapshot(P0, 1, 5));

        assertThat(view.leaderAt(P0, 4)).hasValue(0);
        assertThat(view.leaderAt(P0, 5)).hasValue(1);
        assertThat(view.leaderAt(P0, 3)).isEmpty();
    }

    @Test
    void forgetsTheLeadersOfEpochsOlderThanTheRecentOnes() {
        for (int epoch = 0; epoch <= MetadataView.HISTORY_EPOCHS; epoch++) {
            view.recordRefreshed(snapshot(P0, epoch % 3, epoch));
        }

        assertThat(view.leaderAt(P0, 0)).isEmpty();
        assertThat(view.leaderAt(P0, 1)).hasValue(1);
    }

    @Test
    void aRefreshUpdatesLeadersButNotWhatClientsKnow() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));
        view.recordRefreshed(snapshot(P0, 2, 5));

        assertThat(view.leader(P0)).contains(new PartitionLeader(2, 5));
        assertThat(view.served(CLIENT, P0)).contains(new PartitionLeader(1, 4));
    }

    @Test
    void neverMovesALeaderBackToAnOlderEpoch() {
        view.recordRefreshed(snapshot(P0, 2, 5));
        view.recordServed(CLIENT, snapshot(P0, 1, 4));

        assertThat(view.leader(P0)).contains(new PartitionLeader(2, 5));
    }

    @Test
    void aRecreatedTopicStartsAgainFromItsOwnEpochs() {
        view.recordServed(CLIENT, snapshot(P0, 2, 5));
        Uuid recreated = Uuid.randomUuid();
        view.recordServed(CLIENT, snapshot(P0, recreated, 1, 0));

        assertThat(view.leader(P0)).contains(new PartitionLeader(1, 0));
        assertThat(view.served(CLIENT, P0)).contains(new PartitionLeader(1, 0));
        assertThat(view.topicName(ORDERS_ID)).isEmpty();
        assertThat(view.topicName(recreated)).contains("orders");
    }

    @Test
    void anEntryIsFreshUpToTheMaximumAge() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));
        advance(MAX_AGE);

        assertThat(view.isFresh(P0)).isTrue();
    }

    @Test
    void anEntryOlderThanTheMaximumAgeIsStale() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));
        advance(MAX_AGE.plusNanos(1));

        assertThat(view.isFresh(P0)).isFalse();
    }

    @Test
    void anEntryRecordedAfterARequestWasSentIsCurrentForIt() {
        long sent = view.nanoTime();
        advance(Duration.ofMillis(5));
        view.recordServed(CLIENT, snapshot(P0, 1, 4));

        assertThat(view.isCurrentFor(P0, sent)).isTrue();
    }

    @Test
    void anEntryRecordedBeforeARequestWasSentIsNotCurrentForIt() {
        view.recordServed(CLIENT, snapshot(P0, 1, 4));
        advance(Duration.ofMillis(5));

        assertThat(view.isCurrentFor(P0, view.nanoTime())).isFalse();
    }

    @Test
    void anUnknownPartitionIsNeitherFreshNorCurrent() {
        assertThat(view.isFresh(P0)).isFalse();
        assertThat(view.isCurrentFor(P0, view.nanoTime())).isFalse();
    }

    @Test
    void refreshesThatOverlapShareOneMetadataRequest() {
        MetadataRequests requests = new MetadataRequests();

        CompletionStage<Void> first = view.refresh(Set.of("orders"), requests::send);
        CompletionStage<Void> second = view.refresh(Set.of("orders"), requests::send);
        CompletionStage<Void> third = view.refresh(Set.of("payments"), requests::send);

        assertThat(requests.sent).hasSize(1);
        assertThat(second).isSameAs(first);
        assertThat(third).isSameAs(first);
    }

    @Test
    void everyWaiterSeesTheRefreshedLeaderOnceTheResponseArrives() {
        MetadataRequests requests = new MetadataRequests();
        CompletableFuture<Void> first = view.refresh(Set.of("orders"), requests::send).toCompletableFuture();
        CompletableFuture<Void> second = view.refresh(Set.of("orders"), requests::send).toCompletableFuture();

        requests.pending.get(0).complete(snapshot(P0, 2, 5));

        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
        assertThat(view.leader(P0)).contains(new PartitionLeader(2, 5));
    }

    @Test
    void aRefreshAfterTheLastOneCompletedSendsANewRequest() {
        MetadataRequests requests = new MetadataRequests();
        view.refresh(Set.of("orders"), requests::send);
        requests.pending.get(0).complete(snapshot(P0, 2, 5));

        view.refresh(Set.of("orders"), requests::send);

        assertThat(requests.sent).hasSize(2);
    }

    @Test
    void aRefreshAsksForEveryTopicTheViewKnowsAsWellAsTheWantedOnes() {
        view.recordServed(CLIENT, snapshot(new Partition("payments", 0), Uuid.randomUuid(), 1, 0));
        MetadataRequests requests = new MetadataRequests();

        view.refresh(Set.of("orders"), requests::send);

        assertThat(requests.sent).containsExactly(Set.of("orders", "payments"));
    }

    @Test
    void aFailedRefreshFailsItsWaitersAndLetsTheNextOneThrough() {
        MetadataRequests requests = new MetadataRequests();
        CompletableFuture<Void> waiter = view.refresh(Set.of("orders"), requests::send).toCompletableFuture();

        requests.pending.get(0).completeExceptionally(new IllegalStateException("broker went away"));
        view.refresh(Set.of("orders"), requests::send);

        assertThat(waiter).isCompletedExceptionally();
        assertThat(requests.sent).hasSize(2);
    }

    @Test
    void aSnapshotLeavesOutPartitionsWithErrorsOrWithoutALeader() {
        MetadataResponseData response = new MetadataResponseData();
        response.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1).setHost("proxy.example").setPort(9093));
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic().setName("orders").setTopicId(ORDERS_ID);
        topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0).setLeaderId(1).setLeaderEpoch(4));
        topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(1).setLeaderId(-1).setLeaderEpoch(4)
            .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()));
        topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(2).setLeaderId(1).setLeaderEpoch(-1));
        response.topics().add(topic);

        MetadataSnapshot snapshot = MetadataSnapshot.of(response);

        assertThat(snapshot.leaders()).containsOnlyKeys(P0);
        assertThat(snapshot.topicIds()).containsEntry("orders", ORDERS_ID);
        assertThat(snapshot.endpoints()).containsExactly(NODE_1);
    }
}
