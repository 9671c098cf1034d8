package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.ErrorCode;


class LeaderCacheTest {

    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final Uuid RECREATED_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final Metrics metrics = new Metrics();
    private final LeaderCache cache = new LeaderCache(new MetadataMetrics(metrics));

    @AfterEach
    void closeMetrics() {
        metrics.close();
    }

    @Test
    void testMetadataNeverMovesPartitionToOlderEpoch() {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 7, 2).build(), 1);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 6, 1).build(), 2);

        assertThat(cache.leadership(P0).leaderEpoch()).isEqualTo(7);
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(2);
    }

    @Test
    void testSameEpochMetadataRefreshesReplicasAndIsr() {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 1, 4, List.of(1, 2, 3)).build(), 1);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 1, 4, List.of(1, 3)).build(), 2);

        assertThat(cache.leadership(P0).isr()).containsExactly(1, 3);
        assertThat(cache.leadership(P0).view()).isEqualTo(2);
    }

    @Test
    void testSameEpochMetadataFromEarlierRequestDoesNotReplaceLaterView() {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 1, 4, List.of(1, 3)).build(), 5);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 1, 4, List.of(1, 2, 3)).build(), 4);

        assertThat(cache.leadership(P0).isr()).containsExactly(1, 3);
        assertThat(cache.leadership(P0).view()).isEqualTo(5);
    }

    @Test
    void testNewerEpochMetadataReplacesAnyView() {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 4, 1).build(), 5);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 5, 3).build(), 4);

        assertThat(cache.leadership(P0).leaderId()).isEqualTo(3);
    }

    @Test
    void testCompleteAdvancingHintMovesLeaderAtOnce() {
        trackOrders(4, 1);

        HintVerdict verdict = hint(P0, 2, 5);

        assertThat(verdict).isEqualTo(HintVerdict.ACCEPTED);
        PartitionLeadership leadership = cache.leadership(P0);
        assertThat(leadership.leaderId()).isEqualTo(2);
        assertThat(leadership.leaderEpoch()).isEqualTo(5);
        assertThat(leadership.replicas()).containsExactly(1, 2, 3);
    }

    @Test
    void testHintWithoutLeaderIdIsRejectedAsIncomplete() {
        trackOrders(4, 1);

        assertThat(hint(P0, -1, 5)).isEqualTo(HintVerdict.INCOMPLETE);
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(1);
    }

    @Test
    void testHintWithoutEpochIsRejectedAsIncomplete() {
        trackOrders(4, 1);

        assertThat(hint(P0, 2, -1)).isEqualTo(HintVerdict.INCOMPLETE);
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(1);
    }

    @Test
    void testEqualEpochHintNamingAnotherLeaderIsIgnored() {
        trackOrders(4, 1);

        assertThat(hint(P0, 2, 4)).isEqualTo(HintVerdict.NOT_ADVANCING);
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(1);
    }

    @Test
    void testOlderEpochHintIsIgnored() {
        trackOrders(4, 1);

        assertThat(hint(P0, 2, 3)).isEqualTo(HintVerdict.NOT_ADVANCING);
        assertThat(cache.leadership(P0).leaderEpoch()).isEqualTo(4);
    }

    @Test
    void testHintForUntrackedPartitionIsIgnored() {
        trackOrders(4, 1);

        assertThat(hint(new TopicPartition("payments", 0), 2, 5)).isEqualTo(HintVerdict.UNTRACKED_PARTITION);
        assertThat(cache.leadership(new TopicPartition("payments", 0))).isNull();
    }

    @Test
    void testHintForEarlierIncarnationOfTopicIsIgnored() {
        trackOrders(4, 1);

        HintVerdict verdict = apply(new LeaderHint(P0, RECREATED_ID, 2, 9));

        assertThat(verdict).isEqualTo(HintVerdict.UNTRACKED_PARTITION);
        assertThat(cache.leadership(P0).leaderEpoch()).isEqualTo(4);
    }

    @Test
    void testHintToBrokerWithNoKnownEndpointIsRejected() {
        trackOrders(4, 1);

        assertThat(hint(P0, 9, 5)).isEqualTo(HintVerdict.UNKNOWN_LEADER_ENDPOINT);
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(1);
        assertThat(cache.node(9)).isNull();
    }

    @Test
    void testHintTouchesOnlyHintedPartitions() {
        WatchedTopics watched = new WatchedTopics();
        LeaderCache watchedCache = new LeaderCache(watched, new MetadataMetrics(metrics), nodes -> { });
        int[] leaders = new int[1000];
        Arrays.fill(leaders, 1);
        watchedCache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 4, leaders).build(), 1);
        List<PartitionLeadership> before = new ArrayList<>();
        for (int index = 0; index < leaders.length; index++) {
            before.add(watchedCache.leadership("orders", index));
        }
        watched.lookedUp.clear();

        watchedCache.applyHints(List.of(new LeaderHint(P0, TOPIC_ID, 2, 5), new LeaderHint(P1, TOPIC_ID, 3, 5)), List.of());

        assertThat(watched.iterated).isFalse();
        assertThat(watched.lookedUp).containsOnly("orders");
        for (int index = 2; index < leaders.length; index++) {
            assertThat(watchedCache.leadership("orders", index)).isSameAs(before.get(index));
        }
        assertThat(watchedCache.leadership(P0).leaderEpoch()).isEqualTo(5);
        assertThat(watchedCache.leadership(P1).leaderEpoch()).isEqualTo(5);
    }

    @Test
    void testResponseEndpointNeverOverwritesNodeKnownFromMetadata() {
        trackOrders(4, 1);

        cache.applyHints(List.of(new LeaderHint(P0, TOPIC_ID, 2, 5)),
                List.of(new BrokerEndpoint(2, "unreachable.internal", 19092, null, false)));

        assertThat(cache.node(2).host()).isEqualTo("broker-2");
        assertThat(cache.node(2).provisional()).isFalse();
    }

    @Test
    void testEndpointOfUnknownNodeIsUsedProvisionally() {
        trackOrders(4, 1);

        HintVerdict verdict = cache.applyHints(List.of(new LeaderHint(P0, TOPIC_ID, 4, 5)),
                List.of(new BrokerEndpoint(4, "broker-4", 9092, "rack-b", false))).get(P0);

        assertThat(verdict).isEqualTo(HintVerdict.ACCEPTED);
        assertThat(cache.node(4)).isEqualTo(new BrokerEndpoint(4, "broker-4", 9092, "rack-b", true));
    }

    @Test
    void testMetadataConfirmsProvisionalEndpointWithItsOwnAddress() {
        trackOrders(4, 1);
        cache.applyHints(List.of(new LeaderHint(P0, TOPIC_ID, 4, 5)),
                List.of(new BrokerEndpoint(4, "stale-name", 9092, null, false)));

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).broker(4, "broker-4", 9093)
                .topic("orders", TOPIC_ID, 5, 4).build(), 2);

        assertThat(cache.node(4)).isEqualTo(new BrokerEndpoint(4, "broker-4", 9093, null, false));
        assertThat(cache.leadership(P0).view()).isEqualTo(2);
    }

    @Test
    void testProvisionalEndpointSurvivesRefreshThatDoesNotListIt() {
        trackOrders(4, 1);
        cache.applyHints(List.of(new LeaderHint(P0, TOPIC_ID, 4, 5)),
                List.of(new BrokerEndpoint(4, "broker-4", 9092, null, false)));

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 4, 1).build(), 2);

        assertThat(cache.node(4).provisional()).isTrue();
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(4);
    }

    @Test
    void testRecreatedTopicResetsEpochs() {
        trackOrders(40, 1);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", RECREATED_ID, 0, 2).build(), 2);

        assertThat(cache.leadership(P0).leaderEpoch()).isZero();
        assertThat(cache.leadership(P0).leaderId()).isEqualTo(2);
        assertThat(cache.topicId("orders")).contains(RECREATED_ID);
    }

    @Test
    void testRecreatedTopicWithFewerPartitionsDropsTheRest() {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 7, 1, 2).build(), 1);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", RECREATED_ID, 0, 3).build(), 2);

        assertThat(cache.partitionCount("orders")).isEqualTo(1);
        assertThat(cache.leadership(P1)).isNull();
    }

    @Test
    void testTopicErrorKeepsPartitionsAndRecordsError() {
        trackOrders(4, 1);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topicError("orders", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).build(), 2);

        assertThat(cache.topicError("orders")).isEqualTo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(cache.leadership(P0).leaderEpoch()).isEqualTo(4);
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 3, 2).build(), 3);
        assertThat(cache.topicError("orders")).isEqualTo(ErrorCode.NONE);
        assertThat(cache.leadership(P0).leaderEpoch()).isEqualTo(4);
    }

    @Test
    void testListenerHearsLeaderChangesFromHintsAndMetadata() {
        List<String> changes = new ArrayList<>();
        cache.addListener((partition, previous, current) ->
                changes.add(partition + ":" + (previous == null ? "none" : previous.leaderEpoch()) + "->" + current.leaderEpoch()),
                Runnable::run);

        trackOrders(4, 1);
        hint(P0, 2, 5);
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 6, 3).build(), 2);

        assertThat(changes).containsExactly("orders-0:none->4", "orders-1:none->4", "orders-0:4->5", "orders-0:5->6");
    }

    @Test
    void testListenerIsNotCalledWhenRefreshKeepsLeaderAndEpoch() {
        trackOrders(4, 1);
        List<TopicPartition> changed = new ArrayList<>();
        cache.addListener((partition, previous, current) -> changed.add(partition), Runnable::run);

        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 1, 4, List.of(1)).build(), 2);

        assertThat(changed).isEmpty();
    }

    @Test
    void testANewNodeTableIsGivenOutBeforeAnyLeadershipNamingItIsVisible() {
        List<String> seen = new ArrayList<>();
        LeaderCache[] followed = new LeaderCache[1];
        followed[0] = new LeaderCache(new MetadataMetrics(metrics), nodes -> {
            PartitionLeadership p0 = followed[0].leadership(P0);
            seen.add(new TreeSet<>(nodes.keySet()) + " while P0 is led by " + (p0 == null ? "nobody" : p0.leaderId()));
        });
        followed[0].applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 4, 1, 1).build(), 1);

        followed[0].applyHints(List.of(new LeaderHint(P0, TOPIC_ID, 4, 5)),
                List.of(new BrokerEndpoint(4, "broker-4", 9092, null, false)));

        assertThat(seen).containsExactly("[1, 2, 3] while P0 is led by nobody", "[1, 2, 3, 4] while P0 is led by 1");
        assertThat(followed[0].leadership(P0).leaderId()).isEqualTo(4);
    }

    @Test
    void testAPartitionIsRoutableOnlyToALeaderWhoseEndpointIsKnown() {
        trackOrders(4, 1);
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 1, -1, 5, List.of(1)).build(), 2);

        assertThat(cache.routable(P0)).isSameAs(cache.leadership(P0));
        assertThat(cache.routable(P1)).as("no leader during an election").isNull();
        assertThat(cache.routable(new TopicPartition("payments", 0))).as("untracked").isNull();
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 9, 6, List.of(9)).build(), 3);
        assertThat(cache.routable(P0)).as("led by a broker the node table lacks").isNull();
    }

    @Test
    void testALeadershipReadOnceIsJudgedRoutableWithoutReadingThePartitionAgain() {
        trackOrders(4, 1);
        PartitionLeadership read = cache.leadership(P0);
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).partition("orders", TOPIC_ID, 0, 2, 6, List.of(2)).build(), 2);

        assertThat(cache.routable(read)).as("the leadership as read, not as the cache has it now").isSameAs(read);
        assertThat(cache.routable((PartitionLeadership) null)).as("untracked").isNull();
        assertThat(cache.routable(cache.leadership(P1))).isSameAs(cache.leadership(P1));
    }

    @Test
    void testListenerIsToldOnItsOwnExecutorWithOneTaskPerWrite() {
        List<Runnable> tasks = new ArrayList<>();
        List<TopicPartition> changed = new ArrayList<>();
        cache.addListener((partition, previous, current) -> changed.add(partition), tasks::add);

        trackOrders(4, 1);

        assertThat(changed).as("nothing runs on the writing thread").isEmpty();
        assertThat(tasks).hasSize(1);
        tasks.get(0).run();
        assertThat(changed).containsExactly(P0, P1);
    }

    @Test
    void testWakeupRunsAfterAWriteThatChangedALeaderOnly() {
        trackOrders(4, 1);
        AtomicInteger wakeups = new AtomicInteger();
        cache.wakeOnChange(wakeups::incrementAndGet);

        trackOrders(4, 1);
        assertThat(wakeups).hasValue(0);
        hint(P0, 2, 5);
        assertThat(wakeups).hasValue(1);
    }

    @Test
    void testHintVerdictsAreCountedByReason() {
        trackOrders(4, 1);

        hint(P0, 2, 5);
        hint(P0, 3, 5);
        hint(P0, 3, 4);
        hint(P0, -1, -1);

        assertThat(count("leader-hints-accepted-total", Map.of())).isEqualTo(1.0);
        assertThat(count("leader-hints-rejected-total", Map.of("reason", "not-advancing"))).isEqualTo(2.0);
        assertThat(count("leader-hints-rejected-total", Map.of("reason", "incomplete"))).isEqualTo(1.0);
        assertThat(count("leader-hints-rejected-total", Map.of("reason", "untracked-partition"))).isZero();
    }

    @Test
    void testEachLeaderMoveIsCountedOnceUnderTheSourceThatTaughtItFirst() {
        trackOrders(4, 1);

        hint(P0, 2, 5);
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 5, 2, 3).build(), 2);

        assertThat(count("leader-moves-total", Map.of("source", "hint"))).isEqualTo(1.0);
        assertThat(count("leader-moves-total", Map.of("source", "metadata"))).isEqualTo(1.0);
    }

    @Test
    void testANewerEpochOnTheSameLeaderIsNoMove() {
        trackOrders(4, 1);

        hint(P0, 1, 5);
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, 6, 1, 1).build(), 2);

        assertThat(count("leader-moves-total", Map.of("source", "hint"))).isZero();
        assertThat(count("leader-moves-total", Map.of("source", "metadata"))).isZero();
    }

    private void trackOrders(int epoch, int leader) {
        cache.applyMetadata(MetadataResponses.brokers(1, 2, 3).topic("orders", TOPIC_ID, epoch, leader, leader).build(), 1);
    }

    private HintVerdict hint(TopicPartition partition, int leaderId, int leaderEpoch) {
        return apply(new LeaderHint(partition, TOPIC_ID, leaderId, leaderEpoch));
    }

    /** Applies one hint as a response with no {@code NodeEndpoints} would. */
    private HintVerdict apply(LeaderHint hint) {
        return cache.applyHints(List.of(hint), List.of()).get(hint.partition());
    }

    private double count(String name, Map<String, String> tags) {
        MetricName metricName = metrics.metricName(name, MetadataMetrics.GROUP, "", tags);
        return (double) metrics.metric(metricName).metricValue();
    }

    /** A topic map that records which topics were looked up and whether anyone walked it. */
    private static final class WatchedTopics extends ConcurrentHashMap<String, AtomicReferenceArray<PartitionLeadership>> {
        final Set<Object> lookedUp = ConcurrentHashMap.newKeySet();
        volatile boolean iterated;

        @Override
        public AtomicReferenceArray<PartitionLeadership> get(Object key) {
            lookedUp.add(key);
            return super.get(key);
        }

        @Override
        public KeySetView<String, AtomicReferenceArray<PartitionLeadership>> keySet() {
            iterated = true;
            return super.keySet();
        }

        @Override
        public Collection<AtomicReferenceArray<PartitionLeadership>> values() {
            iterated = true;
            return super.values();
        }

        @Override
        public Set<Map.Entry<String, AtomicReferenceArray<PartitionLeadership>>> entrySet() {
            iterated = true;
            return super.entrySet();
        }

        @Override
        public void forEach(BiConsumer<? super String, ? super AtomicReferenceArray<PartitionLeadership>> action) {
            iterated = true;
            super.forEach(action);
        }
    }
}
