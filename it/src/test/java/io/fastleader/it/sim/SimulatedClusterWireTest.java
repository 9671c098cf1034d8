package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.ResponseFrame;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataRequestData.MetadataRequestTopic;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** The simulated brokers' answers on the wire, request by request, through a bare socket. */
class SimulatedClusterWireTest {

    private static final String TOPIC = "wire";

    @Test
    void apiVersionsAdvertisesTheWindowsOfMessageSchemas() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "wire-test")) {
            ApiVersionsResponseData answer = (ApiVersionsResponseData) wire.call(ApiKey.API_VERSIONS, (short) 4,
                new ApiVersionsRequestData().setClientSoftwareName("wire-test").setClientSoftwareVersion("1"));
            assertThat(answer.errorCode()).isZero();
            List<ApiKey> served = List.of(ApiKey.API_VERSIONS, ApiKey.METADATA, ApiKey.PRODUCE, ApiKey.INIT_PRODUCER_ID,
                ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.DESCRIBE_CONFIGS, ApiKey.ALTER_PARTITION_REASSIGNMENTS,
                ApiKey.LIST_PARTITION_REASSIGNMENTS, ApiKey.ELECT_LEADERS, ApiKey.FETCH, ApiKey.LIST_OFFSETS,
                ApiKey.OFFSET_FOR_LEADER_EPOCH, ApiKey.FIND_COORDINATOR, ApiKey.OFFSET_COMMIT, ApiKey.OFFSET_FETCH,
                ApiKey.JOIN_GROUP, ApiKey.SYNC_GROUP, ApiKey.HEARTBEAT, ApiKey.LEAVE_GROUP, ApiKey.CONSUMER_GROUP_HEARTBEAT);
            for (ApiKey api : served) {
                assertThat(answer.apiKeys().find(api.id())).as(api.displayName()).isNotNull()
                    .satisfies(v -> {
                        assertThat(v.minVersion()).isEqualTo(api.lowestVersion());
                        assertThat(v.maxVersion()).isEqualTo(api.highestVersion());
                    });
            }
            assertThat(answer.apiKeys()).hasSize(served.size());
        }
    }

    @Test
    void metadataNamesLeadersEpochsReplicasAndTopicIds() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3); WireConnection wire = new WireConnection(cluster, 2, "wire-test")) {
            Uuid topicId = cluster.createTopic(TOPIC, 3, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 1), 2);
            MetadataResponseData answer = (MetadataResponseData) wire.call(ApiKey.METADATA, (short) 12, new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestTopic().setName(TOPIC), new MetadataRequestTopic().setName("absent"))));
            assertThat(answer.brokers()).hasSize(3);
            assertThat(answer.brokers().find(1).port()).isEqualTo(WireConnection.port(cluster.brokerAddress(1)));
            MetadataResponseTopic topic = answer.topics().find(TOPIC);
            assertThat(topic.errorCode()).isZero();
            assertThat(topic.topicId()).isEqualTo(topicId);
            MetadataResponsePartition moved = topic.partitions().get(1);
            assertThat(moved.leaderId()).isEqualTo(2);
            assertThat(moved.leaderEpoch()).isEqualTo(1);
            assertThat(moved.replicaNodes()).containsExactly(1, 2);
            assertThat(moved.isrNodes()).containsExactly(1, 2);
            assertThat(topic.partitions().get(2).leaderId()).isEqualTo(2);
            assertThat(topic.partitions().get(2).leaderEpoch()).isZero();
            assertThat(answer.topics().find("absent").errorCode()).isEqualTo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
    }

    @Test
    void produceAppendsWithOffsetsAndLeaderEpochsAssignedByTheLeader() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2)) {
            cluster.createTopic(TOPIC, 1, 2);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (WireConnection leader = new WireConnection(cluster, 0, "wire-test")) {
                assertThat(appended(leader, (short) 12, (short) -1, "a", "b").baseOffset()).isZero();
                assertThat(appended(leader, (short) 12, (short) 1, "c").baseOffset()).isEqualTo(2);
            }
            cluster.moveLeader(tp, 1);
            try (WireConnection leader = new WireConnection(cluster, 1, "wire-test")) {
                assertThat(appended(leader, (short) 3, (short) -1, "d", "e").baseOffset()).isEqualTo(3);
            }
            assertThat(cluster.records(tp)).extracting(LoggedRecord::offset, LoggedRecord::leaderEpoch, LoggedRecord::valueString)
                .containsExactly(
                    tuple(0L, 0, "a"), tuple(1L, 0, "b"),
                    tuple(2L, 0, "c"),
                    tuple(3L, 1, "d"), tuple(4L, 1, "e"));
            assertThat(cluster.records(tp).get(0).keyString()).isEqualTo("key-a");
            assertThat(cluster.highWatermark(tp)).isEqualTo(5);
        }
    }

    @Test
    void aRefusalNamesTheNewLeaderFromV10WhenHintsAreOn() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3); WireConnection oldLeader = new WireConnection(cluster, 0, "wire-test")) {
            cluster.createTopic(TOPIC, 1, 3);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            cluster.moveLeader(tp, 2);

            ProduceResponseData hinted = produceResponse(oldLeader, (short) 10, (short) -1, "x");
            PartitionProduceResponse refusal = hinted.responses().find(TOPIC).partitionResponses().get(0);
            assertThat(refusal.errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(refusal.currentLeader().leaderId()).isEqualTo(2);
            assertThat(refusal.currentLeader().leaderEpoch()).isEqualTo(1);
            assertThat(hinted.nodeEndpoints()).hasSize(1);
            assertThat(hinted.nodeEndpoints().find(2).port()).isEqualTo(WireConnection.port(cluster.brokerAddress(2)));

            PartitionProduceResponse v9 = produceResponse(oldLeader, (short) 9, (short) -1, "x")
                .responses().find(TOPIC).partitionResponses().get(0);
            assertThat(v9.errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(v9.currentLeader().leaderId()).as("no hint before v10").isEqualTo(-1);

            cluster.hints(false);
            ProduceResponseData unhinted = produceResponse(oldLeader, (short) 12, (short) -1, "x");
            assertThat(unhinted.responses().find(TOPIC).partitionResponses().get(0).currentLeader().leaderId()).isEqualTo(-1);
            assertThat(unhinted.nodeEndpoints()).isEmpty();
            assertThat(cluster.records(tp)).isEmpty();
        }
    }

    @Test
    void idempotentSequencesAreCheckedAcrossALeaderMove() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2)) {
            cluster.createTopic(TOPIC, 1, 2);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (WireConnection leader = new WireConnection(cluster, 0, "wire-test")) {
                assertThat(idempotent(leader, 7, 1, "seq-ahead").errorCode())
                    .as("a new producer starts at sequence 0").isEqualTo(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
                assertThat(idempotent(leader, 7, 0, "a", "b").baseOffset()).isZero();
                assertThat(idempotent(leader, 7, 2, "c").baseOffset()).isEqualTo(2);
            }
            cluster.moveLeader(tp, 1);
            try (WireConnection leader = new WireConnection(cluster, 1, "wire-test")) {
                assertThat(idempotent(leader, 7, 4, "e").errorCode())
                    .as("a gap after the move").isEqualTo(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
                PartitionProduceResponse duplicate = idempotent(leader, 7, 0, "a", "b");
                assertThat(duplicate.errorCode()).isZero();
                assertThat(duplicate.baseOffset()).as("a duplicate answered with its first offset").isZero();
                assertThat(idempotent(leader, 7, 3, "d").baseOffset()).isEqualTo(3);
            }
            assertThat(cluster.records(tp)).extracting(LoggedRecord::valueString).containsExactly("a", "b", "c", "d");
        }
    }

    @Test
    void acksZeroIsAppendedAndNotAnswered() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "wire-test")) {
            cluster.createTopic(TOPIC, 1, 1);
            wire.send(ApiKey.PRODUCE, (short) 12, produce((short) 0, "silent"));
            // the next answer on the connection is the Metadata's: the Produce got none
            ResponseFrame next = wire.callFrame(ApiKey.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            assertThat(next.correlationId()).isEqualTo(wire.lastCorrelationId());
            assertThat(cluster.records(new TopicPartition(TOPIC, 0))).extracting(LoggedRecord::valueString).containsExactly("silent");
        }
    }

    @Test
    void anAcksZeroProduceToAFollowerClosesTheConnection() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection wire = new WireConnection(cluster, 0, "wire-test")) {
            cluster.createTopic(TOPIC, 1, 2);
            cluster.moveLeader(new TopicPartition(TOPIC, 0), 1);

            wire.send(ApiKey.PRODUCE, (short) 12, produce((short) 0, "refused"));

            // the broker's only way to tell an acks=0 client: the connection ends, with no answer
            assertThat(wire.closedByBroker()).isTrue();
            assertThat(cluster.records(new TopicPartition(TOPIC, 0))).isEmpty();
        }
    }

    private static ProduceRequestData produce(short acks, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(("key-" + values[i]).getBytes(StandardCharsets.UTF_8), values[i].getBytes(StandardCharsets.UTF_8));
        }
        return WireConnection.produceRequest(TOPIC, 0, MemoryRecords.withRecords(Compression.NONE, records)).setAcks(acks);
    }

    private static ProduceResponseData produceResponse(WireConnection wire, short version, short acks, String... values)
            throws IOException {
        return (ProduceResponseData) wire.call(ApiKey.PRODUCE, version, produce(acks, values));
    }

    private static PartitionProduceResponse appended(WireConnection wire, short version, short acks, String... values)
            throws IOException {
        PartitionProduceResponse answer = produceResponse(wire, version, acks, values).responses().find(TOPIC).partitionResponses().get(0);
        assertThat(answer.errorCode()).isZero();
        return answer;
    }

    /** Produce v12, acks=-1, of one idempotent batch of producer {@code producerId} at epoch 0 from {@code baseSequence}. */
    private static PartitionProduceResponse idempotent(WireConnection wire, long producerId, int baseSequence, String... values)
            throws IOException {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return wire.produce(TOPIC, 0, MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, (short) 0, baseSequence, records));
    }
}
