package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;

/**
 * {@link FastLeaderConsumer} against scripted brokers: what it sends after each answer. The retry
 * backoff is a minute, so a fetch that arrives within a poll of a few seconds proves it was not
 * backed off; the assertions are on the requests and the metrics.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FastLeaderConsumerTest {

    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final String GROUP = "readers";
    private static final long COMMITTED = 42;
    /**
     * A consumer of {@link #GROUP}. A short retry backoff: the group's coordinator may be found
     * before Metadata names its node, and is then looked for again after a backoff. No auto-commit:
     * the brokers do not answer commits.
     */
    private static final Map<String, Object> IN_GROUP = Map.of(ConsumerConfig.GROUP_ID_CONFIG, GROUP,
            ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer", ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 10, ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 10,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    private static final Duration POLL = Duration.ofSeconds(10);
    private static final Map<String, String> PARTITION_TAGS = Map.of("topic", TOPIC, "partition", "0");

    /** Every request the brokers saw, in arrival order. */
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile int leader = 0;
    private volatile int leaderEpoch = 5;
    private volatile FetchScript fetches;
    private volatile long committedOffset = COMMITTED;
    private volatile boolean offsetFetchesAnswered = true;
    /** Answers a joining member with the partition at epoch 1, and a leaving one with its leave epoch; null leaves it unanswered. */
    private volatile HeartbeatScript heartbeats = request -> new ConsumerGroupHeartbeatResponseData()
            .setMemberId(request.memberId())
            .setMemberEpoch(request.memberEpoch() < 0 ? request.memberEpoch() : 1)
            .setHeartbeatIntervalMs(60_000)
            .setAssignment(request.memberEpoch() == 0 ? new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(
                    List.of(new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(TOPIC_ID).setPartitions(List.of(0))))
                    : null);
    private volatile EpochScript epochs = (node, request) -> {
        throw new AssertionError("no OffsetsForLeaderEpoch expected");
    };
    private Deserializer<String> valueDeserializer = new StringDeserializer();
    private ScriptedBrokers brokers;
    private FastLeaderConsumer<String, String> consumer;

    private record Seen(int node, ApiKey api, ApiMessage request) {
    }

    @FunctionalInterface
    private interface FetchScript {
        FetchResponseData answer(int node, int index, FetchRequestData.FetchPartition asked);
    }

    @FunctionalInterface
    private interface EpochScript {
        OffsetForLeaderEpochResponseData answer(int node, OffsetForLeaderEpochRequestData.OffsetForLeaderPartition asked);
    }

    @FunctionalInterface
    private interface HeartbeatScript {
        ConsumerGroupHeartbeatResponseData answer(ConsumerGroupHeartbeatRequestData request);
    }

    @AfterEach
    void close() throws Exception {
        if (consumer != null) {
            consumer.close(Duration.ZERO);
        }
        if (brokers != null) {
            brokers.close();
        }
    }

    @Test
    void testFetchesFromTheHintedLeaderAtOnceWhenTheEpochAdvances() throws Exception {
        start(Map.of(), (node, index, asked) -> node == 0
                ? refused(ErrorCode.NOT_LEADER_OR_FOLLOWER, 1, 6)
                : records(asked.fetchOffset(), 6, "a", "b"));
        consumer.seek(PARTITION, 0);

        ConsumerRecords<String, String> records = consumer.poll(POLL);

        assertThat(values(records)).containsExactly("a", "b");
        List<Seen> fetched = requests(ApiKey.FETCH);
        // The next fetch may already be out: poll sends it before returning.
        assertThat(fetched).extracting(Seen::node).startsWith(0, 1).containsOnlyOnce(0);
        assertThat(asked(fetched.get(1)).currentLeaderEpoch()).isEqualTo(6);
        assertThat(requests(ApiKey.METADATA)).as("no Metadata round trip before following the hint").hasSize(1);
        assertThat(metric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-backoffs-skipped-total")).isEqualTo(1);
        assertThat(metric(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isEqualTo(1);
    }

    @Test
    void testBacksOffWhenTheHintDoesNotAdvanceTheEpoch() throws Exception {
        start(Map.of(), (node, index, asked) -> refused(ErrorCode.NOT_LEADER_OR_FOLLOWER, 0, 5));
        consumer.seek(PARTITION, 0);

        assertThat(consumer.poll(Duration.ofSeconds(2)).isEmpty()).isTrue();

        assertThat(requests(ApiKey.FETCH)).as("one fetch, then a minute's backoff").hasSize(1);
        assertThat(metric(MetadataMetrics.GROUP, "leader-hints-rejected-total")).isEqualTo(1);
        assertThat(metric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-backoffs-skipped-total")).isZero();
    }

    @Test
    void testHoldsAPartitionBackWhileItsLeadersHighWatermarkIsBehindThePosition() throws Exception {
        // A new leader that has not caught up with what its predecessor let the consumer read answers at once, with nothing.
        start(Map.of(), (node, index, asked) -> nothingNew(8));
        consumer.seek(PARTITION, 10);

        assertThat(consumer.poll(Duration.ofSeconds(2)).isEmpty()).isTrue();

        assertThat(requests(ApiKey.FETCH)).as("one fetch, then retry.backoff.ms (a minute here) before asking again").hasSize(1);
        assertThat(metric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-ahead-of-leader-total")).isEqualTo(1);
    }

    @Test
    void testAsksAgainAtOnceForAPartitionAtItsLeadersHighWatermark() throws Exception {
        start(Map.of(), (node, index, asked) -> nothingNew(10));
        consumer.seek(PARTITION, 10);

        assertThat(consumer.poll(Duration.ofMillis(200)).isEmpty()).isTrue();
        awaitFetches(3);

        assertThat(metric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-ahead-of-leader-total")).isZero();
    }

    @Test
    void testSendsTheLastFetchedEpochOfTheRecordsItReturned() throws Exception {
        start(Map.of(), (node, index, asked) -> index == 0 ? records(0, 5, "a", "b", "c") : records(asked.fetchOffset(), 5));
        consumer.seek(PARTITION, 0);

        assertThat(values(consumer.poll(POLL))).containsExactly("a", "b", "c");
        awaitFetches(2);

        FetchRequestData.FetchPartition second = asked(requests(ApiKey.FETCH).get(1));
        assertThat(second.fetchOffset()).isEqualTo(3);
        assertThat(second.lastFetchedEpoch()).isEqualTo(5);
        assertThat(consumer.position(PARTITION)).isEqualTo(3);
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testAPollThatOnlyStepsOverATransactionMarkerReturnsTheNewPositionInItsNextOffsets() throws Exception {
        start(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                (node, index, asked) -> index == 0 ? commitMarker(3, 5) : nothingNew(4));
        consumer.seek(PARTITION, 3);

        ConsumerRecords<String, String> polled = consumer.poll(POLL);

        assertThat(polled.isEmpty()).isTrue();
        assertThat(polled.nextOffsets()).containsExactly(Map.entry(PARTITION, new OffsetAndMetadata(4, Optional.of(5), "")));
    }

    @Test
    void testMovesBackToTheDivergingOffsetWithoutAnOffsetsForLeaderEpochRequest() throws Exception {
        start(Map.of(), (node, index, asked) -> index == 0 ? diverged(4, 90) : records(asked.fetchOffset(), 6, "x"));
        consumer.seek(PARTITION, new OffsetAndMetadata(100, Optional.of(5), ""));

        ConsumerRecords<String, String> records = consumer.poll(POLL);

        assertThat(records.records(PARTITION)).extracting(ConsumerRecord::offset).containsExactly(90L);
        FetchRequestData.FetchPartition refetch = asked(requests(ApiKey.FETCH).get(1));
        assertThat(refetch.fetchOffset()).isEqualTo(90);
        assertThat(refetch.lastFetchedEpoch()).isEqualTo(4);
        assertThat(requests(ApiKey.OFFSET_FOR_LEADER_EPOCH)).isEmpty();
        assertThat(metric(ConsumerMetrics.FASTLEADER_GROUP, "truncations-detected-total")).isEqualTo(1);
    }

    @Test
    void testRaisesLogTruncationWhenResetIsNone() throws Exception {
        start(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"), (node, index, asked) -> diverged(4, 90));
        consumer.seek(PARTITION, new OffsetAndMetadata(100, Optional.of(5), ""));

        assertThatThrownBy(() -> consumer.poll(POLL))
                .isInstanceOfSatisfying(LogTruncationException.class,
                        e -> assertThat(e.divergentOffsets()).containsEntry(PARTITION, new OffsetAndMetadata(90, Optional.of(4), null)));
        assertThat(consumer.poll(Duration.ofMillis(200)).isEmpty()).as("stopped until the application seeks").isTrue();
        assertThat(requests(ApiKey.FETCH)).hasSize(1);
    }

    @Test
    void testValidatesWithOffsetsForLeaderEpochWhenLastFetchedEpochIsDisabled() throws Exception {
        start(Map.of(ConsumerSettings.LAST_FETCHED_EPOCH_ENABLED, false), (node, index, asked) -> node == 0
                ? refused(ErrorCode.NOT_LEADER_OR_FOLLOWER, 1, 6)
                : records(asked.fetchOffset(), 6, "after"));
        epochs = (node, asked) -> epochEnd(asked.partition(), 5, 150);
        consumer.seek(PARTITION, new OffsetAndMetadata(100, Optional.of(5), ""));

        assertThat(values(consumer.poll(POLL))).containsExactly("after");

        assertThat(seen).filteredOn(s -> s.api() != ApiKey.METADATA).extracting(Seen::api, Seen::node).startsWith(
                tuple(ApiKey.FETCH, 0), tuple(ApiKey.OFFSET_FOR_LEADER_EPOCH, 1), tuple(ApiKey.FETCH, 1));
        FetchRequestData.FetchPartition refetch = asked(requests(ApiKey.FETCH).get(1));
        assertThat(refetch.fetchOffset()).isEqualTo(100);
        assertThat(refetch.lastFetchedEpoch()).isEqualTo(-1);
        assertThat(metric(ConsumerMetrics.FASTLEADER_GROUP, "offset-validations-total")).isEqualTo(1);
    }

    @Test
    void testValidatesWithOffsetsForLeaderEpochWhenTheBrokerIsTooOldForLastFetchedEpoch() throws Exception {
        start(Map.of(ApiKey.FETCH, (short) 11), Map.of(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 10), (node, index, asked) -> {
            if (node == 0) {
                // Fetch v11 carries no hint: the move is learned from Metadata.
                leader = 1;
                leaderEpoch = 6;
                return refused(ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1);
            }
            boolean firstToNewLeader = requests(ApiKey.FETCH).stream().filter(fetch -> fetch.node() == 1).count() == 1;
            return records(asked.fetchOffset(), 6, firstToNewLeader ? "unvalidated" : "validated");
        });
        epochs = (node, asked) -> epochEnd(asked.partition(), 5, 150);
        consumer.seek(PARTITION, new OffsetAndMetadata(100, Optional.of(5), ""));

        assertThat(values(consumer.poll(POLL))).containsExactly("validated");

        // The old leader may be asked again if its backoff ends before the refresh names the new one.
        List<Seen> sent = seen.stream().filter(s -> s.api() != ApiKey.METADATA).toList();
        int firstToNewLeader = sent.indexOf(sent.stream().filter(s -> s.node() == 1).findFirst().orElseThrow());
        assertThat(sent.subList(0, firstToNewLeader)).extracting(Seen::api, Seen::node).containsOnly(tuple(ApiKey.FETCH, 0));
        assertThat(sent.subList(firstToNewLeader, sent.size())).extracting(Seen::api, Seen::node).startsWith(
                tuple(ApiKey.FETCH, 1), tuple(ApiKey.OFFSET_FOR_LEADER_EPOCH, 1), tuple(ApiKey.FETCH, 1));
        assertThat(requests(ApiKey.OFFSET_FOR_LEADER_EPOCH)).hasSize(1);
    }

    @Test
    void testRecordsLagIsHighWatermarkMinusPosition() throws Exception {
        startTwoRecordsAPollBehindTheLog(1_000, 0);

        assertThat(values(consumer.poll(POLL))).containsExactly("a", "b");

        assertThat(metric(ConsumerMetrics.KAFKA_GROUP, "records-lag-max", Map.of())).isEqualTo(998);
        assertThat(metric(ConsumerMetrics.KAFKA_GROUP, "records-lag", PARTITION_TAGS)).isEqualTo(998);
    }

    @Test
    void testRecordsLeadIsPositionMinusLogStartOffset() throws Exception {
        startTwoRecordsAPollBehindTheLog(1_000, 1);

        consumer.poll(POLL);

        assertThat(metric(ConsumerMetrics.KAFKA_GROUP, "records-lead-min", Map.of())).isEqualTo(1);
        assertThat(metric(ConsumerMetrics.KAFKA_GROUP, "records-lead", PARTITION_TAGS)).isEqualTo(1);
    }

    @Test
    void testAPartitionsMetricsGoWhenItIsUnassigned() throws Exception {
        start(Map.of(), (node, index, asked) -> index == 0 ? behindTheLog(1_000, 0, "a") : records(asked.fetchOffset(), 5));
        consumer.seek(PARTITION, 0);
        consumer.poll(POLL);
        assertThat(partitionMetrics()).contains("records-lag", "records-lead", "preferred-read-replica");

        consumer.assign(List.of());

        assertThat(partitionMetrics()).isEmpty();
    }

    @Test
    void testSubscribeWithoutAGroupIdFails() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> consumer.subscribe(List.of(TOPIC)))
                .isInstanceOf(InvalidGroupIdException.class)
                .hasMessageContaining("group.id");
    }

    @Test
    void testCommittingWithoutAGroupIdFails() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> consumer.commitSync(Map.of(PARTITION, new OffsetAndMetadata(1))))
                .isInstanceOf(InvalidGroupIdException.class);
    }

    @Test
    void testAPollOnAnInterruptedThreadThrowsInterruptExceptionAndLeavesTheThreadInterrupted() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5, "a"));
        consumer.seek(PARTITION, 0);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> consumer.poll(POLL)).isInstanceOf(InterruptException.class);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept, as InterruptException keeps it").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(values(consumer.poll(POLL))).as("the next poll, not interrupted, reads").containsExactly("a");
    }

    @Test
    void testWakeupInterruptsAWaitingPoll() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));
        consumer.seek(PARTITION, 0);
        consumer.wakeup();

        assertThatThrownBy(() -> consumer.poll(POLL)).isInstanceOf(WakeupException.class);
        assertThat(consumer.poll(Duration.ZERO).isEmpty()).as("a wakeup is used once").isTrue();
    }

    @Test
    void testPollWithLongTimeoutReturnsRecordsAsPollDurationDoes() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5, "a", "b"));
        consumer.seek(PARTITION, 0);

        assertThat(values(pollOfKafkaClients3(10_000))).containsExactly("a", "b");
    }

    @Test
    void testPollWithANegativeLongTimeoutIsRefusedAsInKafkaConsumer() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> pollOfKafkaClients3(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid negative timeout -1");
    }

    @Test
    void testPollWithANegativeDurationIsRefusedAsInKafkaConsumer() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> consumer.poll(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid negative timeout -1");
    }

    @Test
    void testPollWithLongTimeoutWaitsBeyondItForTheCommittedOffsets() throws Exception {
        start(IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));

        pollOfKafkaClients3(0);

        assertThat(requests(ApiKey.OFFSET_FETCH)).hasSize(1);
        assertThat(consumer.position(PARTITION, Duration.ZERO)).as("known without waiting").isEqualTo(COMMITTED);
    }

    @Test
    void testCommittedOffsetsUnderReadCommittedComeAsTheyAreFromABrokerTooOldForStableOffsets() throws Exception {
        create(Map.of(ApiKey.OFFSET_FETCH, (short) 6), readCommitted(Map.of()), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThat(consumer.committed(Set.of(PARTITION), POLL)).containsEntry(PARTITION, new OffsetAndMetadata(COMMITTED, ""));
        assertThat(requests(ApiKey.OFFSET_FETCH)).map(fetch -> ((OffsetFetchRequestData) fetch.request()).requireStable()).containsOnly(false);
    }

    @Test
    void testCommittedOffsetsUnderReadCommittedFailOnABrokerTooOldForStableOffsetsWithTheInternalKeyTrue() throws Exception {
        create(Map.of(ApiKey.OFFSET_FETCH, (short) 6), readCommitted(Map.of("internal.throw.on.fetch.stable.offset.unsupported", true)),
                (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> consumer.committed(Set.of(PARTITION), POLL)).isInstanceOf(UnsupportedVersionException.class);
    }

    /** {@link #IN_GROUP} under {@code isolation.level=read_committed}, with {@code overrides} on top. */
    private static Map<String, Object> readCommitted(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(IN_GROUP);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.putAll(overrides);
        return config;
    }

    @Test
    void testPollWithLongTimeoutWaitsBeyondItForTheGroupAssignment() throws Exception {
        create(Map.of(), IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));
        consumer.subscribe(List.of(TOPIC));

        pollOfKafkaClients3(0);

        assertThat(consumer.assignment()).containsExactly(PARTITION);
        assertThat(consumer.position(PARTITION, Duration.ZERO)).isEqualTo(COMMITTED);
    }

    @Test
    void testPollWithDurationDoesNotWaitBeyondItForTheGroupAssignment() throws Exception {
        create(Map.of(), IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));
        heartbeats = request -> null;
        consumer.subscribe(List.of(TOPIC));

        assertThat(consumer.poll(Duration.ZERO).isEmpty()).isTrue();
        assertThat(consumer.assignment()).isEmpty();
    }

    @Test
    void testListenerCallbacksRunOnThePollingThread() throws Exception {
        create(Map.of(), IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5, "a"));
        List<String> callbacksOn = new CopyOnWriteArrayList<>();
        consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                callbacksOn.add("revoked on " + Thread.currentThread().getName());
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                callbacksOn.add("assigned on " + Thread.currentThread().getName());
            }
        });

        assertThat(pollOfKafkaClients3(10_000)).isNotEmpty();
        consumer.unsubscribe();

        String polling = Thread.currentThread().getName();
        assertThat(callbacksOn).containsExactly("assigned on " + polling, "revoked on " + polling);
    }

    @Test
    void testCommitAsyncCallsBackInALaterCallEvenWhenItsCommitIsDoneAtOnce() throws Exception {
        start(IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));
        List<Map<TopicPartition, OffsetAndMetadata>> calledBackWith = new CopyOnWriteArrayList<>();

        consumer.commitAsync(Map.of(), (offsets, failure) -> calledBackWith.add(offsets));
        assertThat(calledBackWith).as("called back within commitAsync").isEmpty();
        consumer.commitSync(Map.of());

        assertThat(calledBackWith).containsExactly(Map.of());
    }

    @Test
    void testCommittedOfOnePartitionIsItsCommittedOffset() throws Exception {
        start(IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThat(committedOfKafkaClients3(PARTITION)).isEqualTo(new OffsetAndMetadata(COMMITTED, Optional.empty(), ""));
        assertThat(committedOfKafkaClients3(PARTITION, POLL)).isEqualTo(new OffsetAndMetadata(COMMITTED, Optional.empty(), ""));
    }

    @Test
    void testCommittedOfOnePartitionWithoutACommittedOffsetIsNull() throws Exception {
        start(IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));
        committedOffset = -1;

        assertThat(committedOfKafkaClients3(PARTITION)).isNull();
    }

    @Test
    void testCommittedOfOnePartitionTimesOutAsCommittedOfASetDoes() throws Exception {
        start(IN_GROUP, (node, index, asked) -> records(asked.fetchOffset(), 5));
        offsetFetchesAnswered = false;

        assertThatThrownBy(() -> committedOfKafkaClients3(PARTITION, Duration.ofMillis(200)))
                .isExactlyInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }

    @Test
    void testCommittedOfOnePartitionWithoutAGroupIdFails() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> committedOfKafkaClients3(PARTITION)).isInstanceOf(InvalidGroupIdException.class);
    }

    /** kafka-clients 3.x's {@code Consumer.poll(long)}, deprecated there and gone in 4.0. */
    @SuppressWarnings("deprecation")
    private ConsumerRecords<String, String> pollOfKafkaClients3(long timeoutMs) {
        return consumer.poll(timeoutMs);
    }

    /** kafka-clients 3.x's {@code Consumer.committed(TopicPartition)}, deprecated there and gone in 4.0. */
    @SuppressWarnings("deprecation")
    private OffsetAndMetadata committedOfKafkaClients3(TopicPartition partition) {
        return consumer.committed(partition);
    }

    /** kafka-clients 3.x's {@code Consumer.committed(TopicPartition, Duration)}, deprecated there and gone in 4.0. */
    @SuppressWarnings("deprecation")
    private OffsetAndMetadata committedOfKafkaClients3(TopicPartition partition, Duration timeout) {
        return consumer.committed(partition, timeout);
    }

    @Test
    void testPositionOfAnUnassignedPartitionIsRefused() throws Exception {
        start(Map.of(), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> consumer.position(new TopicPartition(TOPIC, 7)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No current assignment");
    }

    @Test
    void testListTopicsPassesOverADeadBootstrapAddress() throws Exception {
        ScriptedBrokers live = new ScriptedBrokers(2, Map.of(), this::answer);
        String bootstrap = "127.0.0.1:" + closedPort() + "," + live.bootstrap();
        try {
            start(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), (node, index, asked) -> records(asked.fetchOffset(), 5));

            assertThat(consumer.listTopics(Duration.ofSeconds(20))).containsOnlyKeys(TOPIC);
            assertThat(consumer.partitionsFor("other", Duration.ofSeconds(20))).isEmpty();
        } finally {
            consumer.close(Duration.ZERO);
            consumer = null;
            live.close();
        }
    }

    @Test
    void testListTopicsThrowsKafkasTimeoutExceptionWhenNoBrokerAnswers() throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort();
        start(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), (node, index, asked) -> records(asked.fetchOffset(), 5));

        assertThatThrownBy(() -> consumer.listTopics(Duration.ofMillis(500)))
                .isExactlyInstanceOf(org.apache.kafka.common.errors.TimeoutException.class)
                .hasMessage("Timeout expired while fetching topic metadata");
        assertThatThrownBy(() -> consumer.partitionsFor("other", Duration.ofMillis(500)))
                .isExactlyInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private void start(Map<String, Object> overrides, FetchScript script) throws Exception {
        start(Map.of(), overrides, script);
    }

    private void start(Map<ApiKey, Short> maxVersions, Map<String, Object> overrides, FetchScript script) throws Exception {
        create(maxVersions, overrides, script);
        consumer.assign(List.of(PARTITION));
    }

    /** A consumer with neither assignment nor subscription. */
    private void create(Map<ApiKey, Short> maxVersions, Map<String, Object> overrides, FetchScript script) throws Exception {
        fetches = script;
        brokers = new ScriptedBrokers(2, maxVersions, this::answer);
        Map<String, Object> configs = new HashMap<>();
        configs.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        configs.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 60_000);
        configs.put(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 60_000);
        configs.put(FastLeaderConfigs.HINT_CONFIRMATION_DELAY_MS, 60_000);
        configs.put(FastLeaderConfigs.CONNECTIONS_PREWARM, false);
        configs.putAll(overrides);
        consumer = new FastLeaderConsumer<>(configs, new StringDeserializer(), valueDeserializer);
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        int index = (int) seen.stream().filter(s -> s.api() == api).count();
        seen.add(new Seen(node, api, request));
        return switch (api) {
            case METADATA -> brokers.metadataAnswer(TOPIC, TOPIC_ID, leader, leaderEpoch);
            case FETCH -> {
                FetchResponseData response = fetches.answer(node, index, asked(new Seen(node, api, request)));
                FetchResponseData.FetchableTopicResponse topic = response.responses().get(0);
                topic.setTopic(TOPIC).setTopicId(TOPIC_ID);
                yield response;
            }
            case OFFSET_FOR_LEADER_EPOCH -> epochs.answer(node,
                    ((OffsetForLeaderEpochRequestData) request).topics().iterator().next().partitions().get(0));
            case FIND_COORDINATOR -> new FindCoordinatorResponseData().setCoordinators(List.of(new FindCoordinatorResponseData.Coordinator()
                    .setKey(GROUP).setNodeId(0).setHost("127.0.0.1").setPort(brokers.port(0))));
            case OFFSET_FETCH -> offsetFetchesAnswered ? committed((OffsetFetchRequestData) request, committedOffset) : null;
            case CONSUMER_GROUP_HEARTBEAT -> heartbeats.answer((ConsumerGroupHeartbeatRequestData) request);
            default -> throw new IllegalArgumentException("unexpected " + api);
        };
    }


    private static FetchResponseData response(FetchResponseData.PartitionData partition) {
        FetchResponseData response = new FetchResponseData();
        response.responses().add(new FetchResponseData.FetchableTopicResponse().setPartitions(new ArrayList<>(List.of(partition))));
        return response;
    }

    private FetchResponseData refused(ErrorCode error, int hintedLeader, int hintedEpoch) {
        FetchResponseData response = response(new FetchResponseData.PartitionData().setPartitionIndex(0)
                .setErrorCode(error.code())
                .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(hintedLeader).setLeaderEpoch(hintedEpoch)));
        if (hintedLeader >= 0) {
            response.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(hintedLeader).setHost("127.0.0.1")
                    .setPort(brokers.port(hintedLeader)));
        }
        return response;
    }

    private static FetchResponseData records(long baseOffset, int epoch, String... values) {
        MemoryRecords records = MemoryRecords.EMPTY;
        if (values.length > 0) {
            MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE,
                    Compression.NONE, TimestampType.CREATE_TIME, baseOffset, 1_000L, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, epoch);
            for (String value : values) {
                builder.append(1_000L, null, value.getBytes());
            }
            records = builder.build();
        }
        long end = baseOffset + values.length;
        return response(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(end)
                .setLastStableOffset(end).setRecords(records));
    }

    /** A transaction's COMMIT marker at {@code offset}, the last offset of the log, written at leader epoch {@code epoch}. */
    private static FetchResponseData commitMarker(long offset, int epoch) {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(offset, 1_000L, epoch, 7L, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        return response(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(offset + 1)
                .setLastStableOffset(offset + 1).setRecords(marker));
    }

    /** An answer with no records from a leader whose high watermark is {@code highWatermark}. */
    private static FetchResponseData nothingNew(long highWatermark) {
        return response(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(highWatermark)
                .setLastStableOffset(highWatermark).setRecords(MemoryRecords.EMPTY));
    }

    /** A consumer taking two records a poll from offset 0, fetching "a", "b", "c" first and then nothing, of a longer log. */
    private void startTwoRecordsAPollBehindTheLog(long highWatermark, long logStartOffset) throws Exception {
        start(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2), (node, index, asked) -> index == 0
                ? behindTheLog(highWatermark, logStartOffset, "a", "b", "c")
                : records(asked.fetchOffset(), 5));
        consumer.seek(PARTITION, 0);
    }

    /** Records from offset 0 of a log that holds more: its high watermark and log start offset as given. */
    private static FetchResponseData behindTheLog(long highWatermark, long logStartOffset, String... values) {
        FetchResponseData response = records(0, 5, values);
        response.responses().get(0).partitions().get(0).setHighWatermark(highWatermark).setLastStableOffset(highWatermark)
                .setLogStartOffset(logStartOffset);
        return response;
    }

    private static FetchResponseData diverged(int epoch, long endOffset) {
        return response(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(200)
                .setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(epoch).setEndOffset(endOffset))
                .setRecords(MemoryRecords.EMPTY));
    }

    /** The group's committed offset of {@link #PARTITION}: -1 for none. */
    /** The committed offset of {@link #PARTITION}, in the layout the request's version has: groups (v8+) or top-level topics. */
    private static OffsetFetchResponseData committed(OffsetFetchRequestData request, long offset) {
        if (request.groups().isEmpty()) {
            return new OffsetFetchResponseData().setTopics(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(TOPIC)
                    .setPartitions(List.of(new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(0)
                            .setCommittedOffset(offset).setMetadata("")))));
        }
        return new OffsetFetchResponseData().setGroups(List.of(new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(GROUP)
                .setTopics(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(TOPIC).setPartitions(List.of(
                        new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(0).setCommittedOffset(offset)
                                .setMetadata("")))))));
    }

    private static OffsetForLeaderEpochResponseData epochEnd(int partition, int epoch, long endOffset) {
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic =
                new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(TOPIC);
        topic.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(partition)
                .setLeaderEpoch(epoch).setEndOffset(endOffset));
        response.topics().add(topic);
        return response;
    }

    private List<Seen> requests(ApiKey api) {
        return seen.stream().filter(s -> s.api() == api).toList();
    }

    private static FetchRequestData.FetchPartition asked(Seen fetch) {
        return ((FetchRequestData) fetch.request()).topics().get(0).partitions().get(0);
    }

    /** Waits until the consumer has sent {@code count} fetches: the next one goes out as poll returns. */
    private void awaitFetches(int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (requests(ApiKey.FETCH).size() < count) {
            assertThat(System.nanoTime()).as("fetch %d sent", count).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static List<String> values(ConsumerRecords<String, String> records) {
        List<String> values = new ArrayList<>();
        records.forEach(record -> values.add(record.value()));
        return values;
    }

    private double metric(String group, String name, Map<String, String> tags) {
        Map<String, String> withClient = new HashMap<>(tags);
        withClient.put("client-id", consumer.metrics().keySet().iterator().next().tags().get("client-id"));
        return consumer.metrics().entrySet().stream()
                .filter(entry -> entry.getKey().group().equals(group) && entry.getKey().name().equals(name)
                        && entry.getKey().tags().equals(withClient))
                .mapToDouble(entry -> ((Number) entry.getValue().metricValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no " + group + " " + name + " " + tags));
    }

    private List<String> partitionMetrics() {
        return consumer.metrics().keySet().stream().filter(name -> name.tags().containsKey("partition")).map(MetricName::name).toList();
    }

    private double metric(String group, String name) {
        return consumer.metrics().entrySet().stream()
                .filter(entry -> entry.getKey().group().equals(group) && entry.getKey().name().equals(name))
                .mapToDouble(entry -> ((Number) entry.getValue().metricValue()).doubleValue())
                .sum();
    }
}
