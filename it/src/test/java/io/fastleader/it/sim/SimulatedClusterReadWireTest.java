package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.tuple;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchRequestData.FetchPartition;
import io.fastleader.protocol.message.FetchRequestData.FetchTopic;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.FetchResponseData.PartitionData;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsPartition;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsTopic;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulated brokers' answers to what consumers send (Fetch, ListOffsets,
 * OffsetForLeaderEpoch) on the wire, through a bare socket, one behaviour a test.
 */
class SimulatedClusterReadWireTest {

    private static final String TOPIC = "reads";
    private static final short FETCH_V18 = 18;
    private static final short LIST_OFFSETS_V11 = 11;
    private static final short OFFSET_FOR_LEADER_EPOCH_V4 = 4;

    // ---------------------------------------------------------------- Fetch: records

    @Test
    void fetchReturnsTheStoredBatchesFromTheOneHoldingTheFetchOffset() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            wire.produce(TOPIC, 0, "a", "b");
            wire.produce(TOPIC, 0, "c");
            wire.produce(TOPIC, 0, "d", "e");
            // SessionEpoch 0 asks for a session, as KafkaConsumer does: SessionId 0 says the broker keeps none
            FetchResponseData answer = fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 0, 1)
                .setSessionEpoch(0));
            assertThat(answer.errorCode()).isZero();
            assertThat(answer.sessionId()).as("no fetch session created").isZero();
            PartitionData partition = only(answer);
            assertThat(partition.errorCode()).isZero();
            assertThat(partition.highWatermark()).isEqualTo(5);
            assertThat(partition.lastStableOffset()).isEqualTo(5);
            assertThat(partition.logStartOffset()).isZero();
            assertThat(partition.preferredReadReplica()).isEqualTo(-1);
            assertThat(partition.abortedTransactions()).isNull();
            assertThat(batches(partition)).extracting(RecordBatch::baseOffset).containsExactly(0L, 2L, 3L);
            assertThat(batches(partition)).extracting(RecordBatch::partitionLeaderEpoch).containsOnly(0);
            assertThat(values(partition)).containsExactly("a", "b", "c", "d", "e");
        }
    }

    @Test
    void aReadCommittedFetchListsNoAbortedTransactionsAndReadsToTheHighWatermark() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            wire.produce(TOPIC, 0, "a", "b");
            PartitionData partition = only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 0, 0)
                .setIsolationLevel((byte) 1)));
            assertThat(partition.abortedTransactions()).isEmpty();
            assertThat(partition.lastStableOffset()).isEqualTo(2);
            assertThat(values(partition)).containsExactly("a", "b");
        }
    }

    @Test
    void fetchAnswersTopicsByNameBeforeVersion13DownToVersion4() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            cluster.createTopic(TOPIC, 1, 1);
            wire.produce(TOPIC, 0, "a");
            for (short version : new short[] {4, 12}) {
                FetchResponseData answer = fetch(wire, version, new FetchRequestData().setMaxWaitMs(0).setMinBytes(1)
                    .setTopics(List.of(new FetchTopic().setTopic(TOPIC).setPartitions(List.of(partition(0, -1, 0, 1 << 20))))));
                assertThat(answer.responses().get(0).topic()).as("v%d", version).isEqualTo(TOPIC);
                assertThat(values(only(answer))).as("v%d", version).containsExactly("a");
            }
        }
    }

    @Test
    void partitionMaxBytesBelowTheFirstBatchStillReturnsThatBatchToTheFirstPartitionWithData() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 2, 1);
            wire.produce(TOPIC, 0, "p0-a");
            wire.produce(TOPIC, 0, "p0-b");
            wire.produce(TOPIC, 1, "p1-a");
            FetchResponseData answer = fetch(wire, FETCH_V18, request(0, 1, Integer.MAX_VALUE, topicId,
                partition(0, 0, 0, 1), partition(1, 0, 0, 1)));
            List<PartitionData> partitions = answer.responses().get(0).partitions();
            assertThat(values(partitions.get(0))).as("the first batch, over the partition's limit (KIP-74)").containsExactly("p0-a");
            assertThat(values(partitions.get(1))).as("no batch over the limit after the first partition with data").isEmpty();
            assertThat(partitions.get(1).highWatermark()).isEqualTo(1);
        }
    }

    @Test
    void maxBytesBoundsTheWholeAnswerInWholeBatches() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 2, 1);
            wire.produce(TOPIC, 0, "p0-a");
            wire.produce(TOPIC, 0, "p0-b");
            wire.produce(TOPIC, 1, "p1-a");
            // partition 0 holds two batches of one size
            int batchBytes = only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 0, 0))).records().sizeInBytes() / 2;
            FetchResponseData answer = fetch(wire, FETCH_V18, request(0, 1, batchBytes + batchBytes / 2, topicId,
                partition(0, 0, 0, 1 << 20), partition(1, 0, 0, 1 << 20)));
            List<PartitionData> partitions = answer.responses().get(0).partitions();
            assertThat(values(partitions.get(0))).as("one batch and a half fit: one is returned").containsExactly("p0-a");
            assertThat(values(partitions.get(1))).as("nothing left for the next partition").isEmpty();
        }
    }

    // ---------------------------------------------------------------- Fetch: refusals

    @Test
    void fetchOfAnUnknownTopicNameIsUnknownTopicOrPartition() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            cluster.createTopic(TOPIC, 1, 1);
            FetchResponseData answer = fetch(wire, (short) 12, new FetchRequestData().setMaxWaitMs(1000).setMinBytes(1)
                .setTopics(List.of(new FetchTopic().setTopic("absent").setPartitions(List.of(partition(0, -1, 0, 1 << 20))),
                    new FetchTopic().setTopic(TOPIC).setPartitions(List.of(partition(7, -1, 0, 1 << 20))))));
            assertThat(answer.responses()).flatExtracting(FetchResponseData.FetchableTopicResponse::partitions)
                .extracting(PartitionData::errorCode, PartitionData::highWatermark)
                .as("an unknown topic, then an unknown partition, answered at once").containsExactly(
                    tuple(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code(), -1L),
                    tuple(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code(), -1L));
        }
    }

    @Test
    void fetchOfAnUnknownTopicIdIsUnknownTopicId() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            cluster.createTopic(TOPIC, 1, 1);
            Uuid absent = Uuid.randomUuid();
            FetchResponseData answer = fetch(wire, FETCH_V18, fetchOfPartition0(absent, -1, 0).setMaxWaitMs(1000));
            assertThat(answer.responses().get(0).topicId()).isEqualTo(absent);
            assertThat(only(answer).errorCode()).isEqualTo(ErrorCode.UNKNOWN_TOPIC_ID.code());
        }
    }

    @Test
    void anOlderCurrentLeaderEpochIsFencedAndANewerOneUnknown() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection wire = new WireConnection(cluster, 1, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 2);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            cluster.moveLeader(tp, 1);
            cluster.moveLeader(tp, 0);
            cluster.moveLeader(tp, 1);
            assertThat(cluster.leaderEpoch(tp)).isEqualTo(3);
            assertThat(only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 2, 0))).errorCode())
                .isEqualTo(ErrorCode.FENCED_LEADER_EPOCH.code());
            assertThat(only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 4, 0))).errorCode())
                .isEqualTo(ErrorCode.UNKNOWN_LEADER_EPOCH.code());
            assertThat(only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, -1, 0))).errorCode())
                .as("-1: not checked").isZero();
        }
    }

    @Test
    void aFollowerRefusesNotLeaderOrFollowerAfterTheEpochCheck() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection follower = new WireConnection(cluster, 1, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 0);
            assertThat(only(fetch(follower, FETCH_V18, fetchOfPartition0(topicId, 1, 0))).errorCode())
                .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(only(fetch(follower, FETCH_V18, fetchOfPartition0(topicId, 0, 0))).errorCode())
                .as("an old epoch is fenced first").isEqualTo(ErrorCode.FENCED_LEADER_EPOCH.code());
        }
    }

    @Test
    void aBrokerOutsideTheReplicasRefusesNotLeaderOrFollowerBeforeTheEpochCheck() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection outsider = new WireConnection(cluster, 1, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            assertThat(only(fetch(outsider, FETCH_V18, fetchOfPartition0(topicId, 5, 0))).errorCode())
                .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
        }
    }

    @Test
    void aFetchOffsetOutsideTheLogIsOffsetOutOfRange() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            wire.produce(TOPIC, 0, "a", "b");
            for (long offset : new long[] {3, -1}) {
                PartitionData refused = only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 0, offset).setMaxWaitMs(1000)));
                assertThat(refused.errorCode()).as("offset %d", offset).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE.code());
                assertThat(refused.highWatermark()).isEqualTo(-1);
            }
            assertThat(only(fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 0, 2))).errorCode())
                .as("the log end").isZero();
        }
    }

    @Test
    void aFetchNamingASessionIsFetchSessionIdNotFound() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            FetchResponseData answer = fetch(wire, FETCH_V18, fetchOfPartition0(topicId, 0, 0)
                .setSessionId(42).setSessionEpoch(1));
            assertThat(answer.errorCode()).isEqualTo(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code());
            assertThat(answer.responses()).isEmpty();
        }
    }

    // ---------------------------------------------------------------- Fetch: KIP-951 hints

    @Test
    void notLeaderAndFencedRefusalsOfFetchV16NameTheLeaderAndItsEndpoint() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3); WireConnection oldLeader = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 3);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 2);
            FetchResponseData notLeader = fetch(oldLeader, (short) 16, fetchOfPartition0(topicId, 1, 0));
            assertThat(only(notLeader).errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(only(notLeader).currentLeader().leaderId()).isEqualTo(2);
            assertThat(only(notLeader).currentLeader().leaderEpoch()).isEqualTo(1);
            assertThat(notLeader.nodeEndpoints()).hasSize(1);
            assertThat(notLeader.nodeEndpoints().find(2).port()).isEqualTo(WireConnection.port(cluster.brokerAddress(2)));

            FetchResponseData fenced = fetch(oldLeader, (short) 16, fetchOfPartition0(topicId, 0, 0));
            assertThat(only(fenced).errorCode()).isEqualTo(ErrorCode.FENCED_LEADER_EPOCH.code());
            assertThat(only(fenced).currentLeader().leaderId()).isEqualTo(2);
            assertThat(fenced.nodeEndpoints().find(2)).isNotNull();
        }
    }

    @Test
    void otherRefusalsCarryNoHint() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection leader = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 2);
            FetchResponseData unknownEpoch = fetch(leader, FETCH_V18, fetchOfPartition0(topicId, 3, 0));
            assertThat(only(unknownEpoch).errorCode()).isEqualTo(ErrorCode.UNKNOWN_LEADER_EPOCH.code());
            assertThat(only(unknownEpoch).currentLeader().leaderId()).isEqualTo(-1);
            assertThat(unknownEpoch.nodeEndpoints()).isEmpty();
        }
    }

    @Test
    void fetchBelowVersion16GetsNoHint() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection oldLeader = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 1);
            FetchResponseData answer = fetch(oldLeader, (short) 15, fetchOfPartition0(topicId, 1, 0));
            assertThat(only(answer).errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(only(answer).currentLeader().leaderId()).isEqualTo(-1);
            assertThat(answer.nodeEndpoints()).isEmpty();
        }
    }

    @Test
    void fetchGetsNoHintWhenTheClusterGivesNone() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection oldLeader = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 1);
            cluster.hints(false);
            FetchResponseData answer = fetch(oldLeader, FETCH_V18, fetchOfPartition0(topicId, 1, 0));
            assertThat(only(answer).errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(only(answer).currentLeader().leaderId()).isEqualTo(-1);
            assertThat(answer.nodeEndpoints()).isEmpty();
        }
    }

    // ---------------------------------------------------------------- Fetch: waiting

    @Test
    void aWaitingFetchIsAnsweredWithTheRecordAppendedThroughAnotherConnection() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1);
             WireConnection consumer = new WireConnection(cluster, 0, "read-wire-test");
             WireConnection producer = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            consumer.send(ApiKey.FETCH, FETCH_V18, fetchOfPartition0(topicId, 0, 0).setMaxWaitMs(60_000));
            awaitWaitingFetches(cluster, 1);
            assertThat(producer.produce(TOPIC, 0, "late").errorCode())
                .as("a Produce gets through while the Fetch waits").isZero();
            FetchResponseData answer = (FetchResponseData) consumer.receive(ApiKey.FETCH, FETCH_V18).body();
            assertThat(only(answer).errorCode()).isZero();
            assertThat(values(only(answer))).containsExactly("late");
            assertThat(only(answer).highWatermark()).isEqualTo(1);
            assertThat(cluster.fetchesWaiting()).isZero();
        }
    }

    @Test
    void aWaitingFetchIsAnsweredEmptyWhenItsMaxWaitRunsOut() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            wire.send(ApiKey.FETCH, FETCH_V18, fetchOfPartition0(topicId, 0, 0).setMaxWaitMs(50));
            awaitWaitingFetches(cluster, 1);
            FetchResponseData answer = (FetchResponseData) wire.receive(ApiKey.FETCH, FETCH_V18).body();
            assertThat(only(answer).errorCode()).isZero();
            assertThat(only(answer).records().sizeInBytes()).isZero();
            assertThat(only(answer).highWatermark()).isZero();
            assertThat(cluster.fetchesWaiting()).isZero();
        }
    }

    @Test
    void aFetchWithLessThanMinBytesWaitsAndIsAnsweredWithWhatThereIs() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            wire.produce(TOPIC, 0, "small");
            wire.send(ApiKey.FETCH, FETCH_V18, request(50, 1 << 20, Integer.MAX_VALUE, topicId, partition(0, 0, 0, 1 << 20)));
            awaitWaitingFetches(cluster, 1);
            FetchResponseData answer = (FetchResponseData) wire.receive(ApiKey.FETCH, FETCH_V18).body();
            assertThat(values(only(answer))).containsExactly("small");
        }
    }

    @Test
    void aWaitingFetchIsAnsweredWhenItsPartitionsLeaderMoves() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 2);
            wire.send(ApiKey.FETCH, FETCH_V18, fetchOfPartition0(topicId, 0, 0).setMaxWaitMs(60_000));
            awaitWaitingFetches(cluster, 1);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 1);
            FetchResponseData answer = (FetchResponseData) wire.receive(ApiKey.FETCH, FETCH_V18).body();
            assertThat(only(answer).errorCode()).as("its epoch is now old").isEqualTo(ErrorCode.FENCED_LEADER_EPOCH.code());
            assertThat(only(answer).currentLeader().leaderId()).isEqualTo(1);
            assertThat(only(answer).currentLeader().leaderEpoch()).isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS) // a hang's bound, not a measure
    void closeEndsAWaitingFetchAndLeavesNoThread() throws IOException {
        SimulatedCluster cluster = SimulatedCluster.start(1);
        try (WireConnection wire = new WireConnection(cluster, 0, "read-wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 1, 1);
            wire.send(ApiKey.FETCH, FETCH_V18, fetchOfPartition0(topicId, 0, 0).setMaxWaitMs(600_000));
            awaitWaitingFetches(cluster, 1);
            cluster.close();
            try {
                wire.receive(ApiKey.FETCH, FETCH_V18).body();
                fail("a Fetch answered by a closed cluster");
            } catch (EOFException | java.net.SocketException expected) {
                // the connection closed unanswered
            }
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
            .noneMatch(name -> name.startsWith(cluster.name() + "-"));
    }

    // ---------------------------------------------------------------- ListOffsets

    @Test
    void listOffsetsFindsTheEarliestTheLatestTheLargestTimestampAndATimestamp() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2)) {
            cluster.createTopic(TOPIC, 1, 2);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (WireConnection leader = new WireConnection(cluster, 0, "read-wire-test")) {
                produceAt(leader, 0, 1_000, 1_500);
                produceAt(leader, 0, 3_000, 2_000);
            }
            cluster.moveLeader(tp, 1);
            try (WireConnection leader = new WireConnection(cluster, 1, "read-wire-test")) {
                produceAt(leader, 0, 3_000, 2_500);
                assertThat(listOffset(leader, 1, ClusterState.EARLIEST_TIMESTAMP))
                    .extracting(ListOffsetsPartitionResponse::errorCode, ListOffsetsPartitionResponse::timestamp,
                        ListOffsetsPartitionResponse::offset, ListOffsetsPartitionResponse::leaderEpoch)
                    .containsExactly((short) 0, -1L, 0L, 0);
                assertThat(listOffset(leader, 1, ClusterState.LATEST_TIMESTAMP))
                    .extracting(ListOffsetsPartitionResponse::timestamp, ListOffsetsPartitionResponse::offset,
                        ListOffsetsPartitionResponse::leaderEpoch)
                    .containsExactly(-1L, 6L, 1);
                assertThat(listOffset(leader, 1, ClusterState.MAX_TIMESTAMP))
                    .extracting(ListOffsetsPartitionResponse::timestamp, ListOffsetsPartitionResponse::offset,
                        ListOffsetsPartitionResponse::leaderEpoch)
                    .as("the first record of the largest timestamp, in offset order").containsExactly(3_000L, 2L, 0);
                assertThat(listOffset(leader, 1, 2_200))
                    .extracting(ListOffsetsPartitionResponse::timestamp, ListOffsetsPartitionResponse::offset,
                        ListOffsetsPartitionResponse::leaderEpoch)
                    .as("the first record in offset order at or after 2,200, not the nearest").containsExactly(3_000L, 2L, 0);
                assertThat(listOffset(leader, 1, 1_200))
                    .extracting(ListOffsetsPartitionResponse::timestamp, ListOffsetsPartitionResponse::offset)
                    .containsExactly(1_500L, 1L);
                assertThat(listOffset(leader, 1, 9_000))
                    .extracting(ListOffsetsPartitionResponse::errorCode, ListOffsetsPartitionResponse::timestamp,
                        ListOffsetsPartitionResponse::offset, ListOffsetsPartitionResponse::leaderEpoch)
                    .as("no record that late").containsExactly((short) 0, -1L, -1L, -1);
            }
        }
    }

    @Test
    void listOffsetsIsRefusedByAFollowerAndForAnOldEpochButADebuggerMayAskAFollower() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection follower = new WireConnection(cluster, 1, "read-wire-test")) {
            cluster.createTopic(TOPIC, 1, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 0);
            assertThat(listOffset(follower, 1, ClusterState.LATEST_TIMESTAMP).errorCode())
                .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(listOffset(follower, 0, ClusterState.LATEST_TIMESTAMP).errorCode())
                .isEqualTo(ErrorCode.FENCED_LEADER_EPOCH.code());
            assertThat(listOffset(follower, 2, ClusterState.LATEST_TIMESTAMP).errorCode())
                .isEqualTo(ErrorCode.UNKNOWN_LEADER_EPOCH.code());
            ListOffsetsResponseData debugged = (ListOffsetsResponseData) follower.call(ApiKey.LIST_OFFSETS, LIST_OFFSETS_V11,
                listOffsets(-2, 1, ClusterState.LATEST_TIMESTAMP));
            assertThat(debugged.topics().get(0).partitions().get(0).errorCode()).isZero();
        }
    }

    // ---------------------------------------------------------------- OffsetForLeaderEpoch

    @Test
    void offsetForLeaderEpochFindsWhereEachEpochEndedAcrossTwoLeaderMoves() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, 1, 3);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (WireConnection leader = new WireConnection(cluster, 0, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e0-a", "e0-b");
            }
            cluster.moveLeader(tp, 1);
            try (WireConnection leader = new WireConnection(cluster, 1, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e1-a", "e1-b", "e1-c");
            }
            cluster.moveLeader(tp, 2);
            try (WireConnection leader = new WireConnection(cluster, 2, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e2-a");
                assertThat(List.of(epochEnd(leader, 2, 0), epochEnd(leader, 2, 1), epochEnd(leader, 2, 2), epochEnd(leader, 2, 3)))
                    .extracting(EpochEndOffset::errorCode, EpochEndOffset::leaderEpoch, EpochEndOffset::endOffset)
                    .containsExactly(
                        tuple((short) 0, 0, 2L),
                        tuple((short) 0, 1, 5L),
                        tuple((short) 0, 2, 6L),
                        tuple((short) 0, -1, -1L));
            }
            assertThat(cluster.records(tp)).extracting(LoggedRecord::leaderEpoch).containsExactly(0, 0, 1, 1, 1, 2);
        }
    }

    @Test
    void anEpochWithoutRecordsEndsWhereTheNextEpochStarts() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, 1, 3);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (WireConnection leader = new WireConnection(cluster, 0, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e0-a", "e0-b");
            }
            cluster.moveLeader(tp, 1);
            cluster.moveLeader(tp, 2);
            try (WireConnection leader = new WireConnection(cluster, 2, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e2-a");
                EpochEndOffset skipped = epochEnd(leader, 2, 1);
                assertThat(skipped.leaderEpoch()).as("the largest epoch at or below 1 with a start of its own").isZero();
                assertThat(skipped.endOffset()).isEqualTo(2);
            }
        }
    }

    @Test
    void offsetForLeaderEpochKnowsTheEpochsOfAStoppedLeaderAndAFailOver() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, 1, 3);
            try (WireConnection leader = new WireConnection(cluster, 0, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e0");
            }
            cluster.stopBroker(0);
            try (WireConnection leader = new WireConnection(cluster, 1, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e1-a", "e1-b");
            }
            cluster.killBroker(1);
            cluster.failOver(1);
            try (WireConnection leader = new WireConnection(cluster, 2, "read-wire-test")) {
                leader.produce(TOPIC, 0, "e2");
                assertThat(List.of(epochEnd(leader, 2, 0), epochEnd(leader, 2, 1), epochEnd(leader, 2, 2)))
                    .extracting(EpochEndOffset::errorCode, EpochEndOffset::leaderEpoch, EpochEndOffset::endOffset)
                    .containsExactly(
                        tuple((short) 0, 0, 1L),
                        tuple((short) 0, 1, 3L),
                        tuple((short) 0, 2, 4L));
            }
        }
    }

    @Test
    void offsetForLeaderEpochIsRefusedByAFollowerAndForAnOldEpoch() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection follower = new WireConnection(cluster, 1, "read-wire-test")) {
            cluster.createTopic(TOPIC, 1, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 0);
            EpochEndOffset notLeader = epochEnd(follower, 1, 0);
            assertThat(notLeader.errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(notLeader.endOffset()).isEqualTo(-1);
            assertThat(epochEnd(follower, 0, 0).errorCode()).isEqualTo(ErrorCode.FENCED_LEADER_EPOCH.code());
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A Fetch of partition 0 from {@code fetchOffset}, answered at once (MaxWaitMs 0), MinBytes 1, limits far away. */
    private static FetchRequestData fetchOfPartition0(Uuid topicId, int currentLeaderEpoch, long fetchOffset) {
        return request(0, 1, Integer.MAX_VALUE, topicId, partition(0, currentLeaderEpoch, fetchOffset, 1 << 20));
    }

    private static FetchRequestData request(int maxWaitMs, int minBytes, int maxBytes, Uuid topicId, FetchPartition... partitions) {
        return new FetchRequestData().setMaxWaitMs(maxWaitMs).setMinBytes(minBytes).setMaxBytes(maxBytes)
            .setTopics(List.of(new FetchTopic().setTopicId(topicId).setPartitions(List.of(partitions))));
    }

    private static FetchPartition partition(int index, int currentLeaderEpoch, long fetchOffset, int maxBytes) {
        return new FetchPartition().setPartition(index).setCurrentLeaderEpoch(currentLeaderEpoch).setFetchOffset(fetchOffset)
            .setPartitionMaxBytes(maxBytes);
    }

    private static ListOffsetsRequestData listOffsets(int replicaId, int currentLeaderEpoch, long timestamp) {
        return new ListOffsetsRequestData().setReplicaId(replicaId).setTopics(List.of(new ListOffsetsTopic().setName(TOPIC)
            .setPartitions(List.of(new ListOffsetsPartition().setPartitionIndex(0).setCurrentLeaderEpoch(currentLeaderEpoch)
                .setTimestamp(timestamp)))));
    }

    private static PartitionData only(FetchResponseData answer) {
        assertThat(answer.responses()).hasSize(1);
        assertThat(answer.responses().get(0).partitions()).hasSize(1);
        return answer.responses().get(0).partitions().get(0);
    }

    private static List<RecordBatch> batches(PartitionData partition) {
        List<RecordBatch> batches = new ArrayList<>();
        ((MemoryRecords) partition.records()).batches().forEach(batches::add);
        return batches;
    }

    private static List<String> values(PartitionData partition) {
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : batches(partition)) {
            for (Record record : batch) {
                values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }
        return values;
    }

    /** Waits, without sleeping, until {@code count} Fetches wait in the cluster: the order the test needs. */
    private static void awaitWaitingFetches(SimulatedCluster cluster, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cluster.fetchesWaiting() != count) {
            if (System.nanoTime() > deadline) {
                fail("%d Fetches waiting, not %d", cluster.fetchesWaiting(), count);
            }
            Thread.onSpinWait();
        }
    }

    private static FetchResponseData fetch(WireConnection wire, short version, FetchRequestData request) throws IOException {
        return (FetchResponseData) wire.call(ApiKey.FETCH, version, request);
    }

    /** Produce v12 of one batch of records timestamped {@code timestamps}, checked appended. */
    private static void produceAt(WireConnection wire, int partition, long... timestamps) throws IOException {
        SimpleRecord[] records = new SimpleRecord[timestamps.length];
        for (int i = 0; i < timestamps.length; i++) {
            records[i] = new SimpleRecord(timestamps[i], null, ("at-" + timestamps[i]).getBytes(StandardCharsets.UTF_8));
        }
        assertThat(wire.produce(TOPIC, partition, MemoryRecords.withRecords(Compression.NONE, records)).errorCode()).isZero();
    }

    /** ListOffsets v11 of partition 0 by a consumer. */
    private static ListOffsetsPartitionResponse listOffset(WireConnection wire, int currentLeaderEpoch, long timestamp)
            throws IOException {
        ListOffsetsResponseData answer = (ListOffsetsResponseData) wire.call(ApiKey.LIST_OFFSETS, LIST_OFFSETS_V11,
            listOffsets(-1, currentLeaderEpoch, timestamp));
        return answer.topics().get(0).partitions().get(0);
    }

    /** OffsetForLeaderEpoch v4 of partition 0 by a consumer. */
    private static EpochEndOffset epochEnd(WireConnection wire, int currentLeaderEpoch, int leaderEpoch) throws IOException {
        OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
        topics.add(new OffsetForLeaderTopic().setTopic(TOPIC).setPartitions(List.of(new OffsetForLeaderPartition()
            .setPartition(0).setCurrentLeaderEpoch(currentLeaderEpoch).setLeaderEpoch(leaderEpoch))));
        OffsetForLeaderEpochResponseData answer = (OffsetForLeaderEpochResponseData) wire.call(ApiKey.OFFSET_FOR_LEADER_EPOCH,
            OFFSET_FOR_LEADER_EPOCH_V4, new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(topics));
        return answer.topics().find(TOPIC).partitions().get(0);
    }
}
