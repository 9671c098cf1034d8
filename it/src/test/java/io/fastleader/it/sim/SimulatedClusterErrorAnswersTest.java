package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.CreateTopicsRequestData;
import io.fastleader.protocol.message.CreateTopicsRequestData.CreatableTopic;
import io.fastleader.protocol.message.CreateTopicsRequestData.CreatableTopicCollection;
import io.fastleader.protocol.message.CreateTopicsResponseData;
import io.fastleader.protocol.message.DeleteTopicsRequestData;
import io.fastleader.protocol.message.DeleteTopicsRequestData.DeleteTopicState;
import io.fastleader.protocol.message.DeleteTopicsResponseData;
import io.fastleader.protocol.message.DescribeConfigsRequestData;
import io.fastleader.protocol.message.DescribeConfigsRequestData.DescribeConfigsResource;
import io.fastleader.protocol.message.DescribeConfigsResponseData;
import io.fastleader.protocol.message.ElectLeadersRequestData;
import io.fastleader.protocol.message.ElectLeadersRequestData.TopicPartitions;
import io.fastleader.protocol.message.ElectLeadersRequestData.TopicPartitionsCollection;
import io.fastleader.protocol.message.ElectLeadersResponseData;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchRequestData.FetchPartition;
import io.fastleader.protocol.message.FetchRequestData.FetchTopic;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsPartition;
import io.fastleader.protocol.message.ListOffsetsRequestData.ListOffsetsTopic;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListPartitionReassignmentsRequestData;
import io.fastleader.protocol.message.ListPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;

/**
 * An error injected into each served API that Produce, Metadata and InitProducerId's own tests
 * (in {@link SimulatedClusterFaultWireTest}) do not cover is answered as a broker's
 * {@code getErrorResponse} answers: every partition, topic or resource the request names carries
 * the error (two partitions or topics each, so none is missed), as does the response's own error
 * field where it has one, and the request is not served. Each API at its highest version.
 */
class SimulatedClusterErrorAnswersTest {

    private static final String TOPIC = "refused";
    private static final ErrorCode ERROR = ErrorCode.NOT_CONTROLLER;

    /** One API's request and where its answer carries errors: each error field, in order. */
    record Case(ApiKey api, ApiMessage request, Function<ApiMessage, List<Short>> errors, int errorFields) {
        @Override
        public String toString() {
            return api.displayName();
        }
    }

    static Stream<Case> cases() {
        Uuid topicId = Uuid.randomUuid();
        return Stream.of(
            new Case(ApiKey.API_VERSIONS, new ApiVersionsRequestData().setClientSoftwareName("w").setClientSoftwareVersion("1"),
                answer -> List.of(((ApiVersionsResponseData) answer).errorCode()), 1),
            new Case(ApiKey.FETCH, new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setTopics(List.of(new FetchTopic()
                    .setTopicId(topicId).setPartitions(List.of(fetchPartition(0), fetchPartition(1))))),
                answer -> {
                    FetchResponseData fetch = (FetchResponseData) answer;
                    List<Short> errors = new ArrayList<>(List.of(fetch.errorCode()));
                    fetch.responses().forEach(t -> {
                        assertThat(t.topicId()).isEqualTo(topicId);
                        t.partitions().forEach(p -> {
                            assertThat(p.highWatermark()).isEqualTo(-1);
                            errors.add(p.errorCode());
                        });
                    });
                    return errors;
                }, 3),
            new Case(ApiKey.LIST_OFFSETS, new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsTopic()
                    .setName(TOPIC).setPartitions(List.of(listOffsetsPartition(0), listOffsetsPartition(1))))),
                answer -> {
                    List<Short> errors = new ArrayList<>();
                    ((ListOffsetsResponseData) answer).topics().forEach(t -> t.partitions().forEach(p -> {
                        assertThat(p.offset()).isEqualTo(-1);
                        errors.add(p.errorCode());
                    }));
                    return errors;
                }, 2),
            new Case(ApiKey.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochRequestData().setReplicaId(-1)
                    .setTopics(offsetForLeaderTopics()),
                answer -> {
                    List<Short> errors = new ArrayList<>();
                    ((OffsetForLeaderEpochResponseData) answer).topics().forEach(t -> t.partitions().forEach(p -> {
                        assertThat(p.endOffset()).isEqualTo(-1);
                        errors.add(p.errorCode());
                    }));
                    return errors;
                }, 2),
            new Case(ApiKey.CREATE_TOPICS, new CreateTopicsRequestData().setTimeoutMs(1000).setTopics(creatableTopics()),
                answer -> ((CreateTopicsResponseData) answer).topics().stream().map(t -> t.errorCode()).toList(), 2),
            new Case(ApiKey.DELETE_TOPICS, new DeleteTopicsRequestData().setTimeoutMs(1000).setTopics(List.of(
                    new DeleteTopicState().setName(TOPIC), new DeleteTopicState().setTopicId(topicId))),
                answer -> ((DeleteTopicsResponseData) answer).responses().stream().map(t -> t.errorCode()).toList(), 2),
            new Case(ApiKey.DESCRIBE_CONFIGS, new DescribeConfigsRequestData().setResources(List.of(
                    configResource(ConfigResource.Type.TOPIC, TOPIC), configResource(ConfigResource.Type.BROKER, "0"))),
                answer -> ((DescribeConfigsResponseData) answer).results().stream().map(r -> r.errorCode()).toList(), 2),
            new Case(ApiKey.ALTER_PARTITION_REASSIGNMENTS, new AlterPartitionReassignmentsRequestData().setTimeoutMs(1000)
                    .setTopics(List.of(new ReassignableTopic().setName(TOPIC).setPartitions(List.of(
                        new ReassignablePartition().setPartitionIndex(0).setReplicas(List.of(0)),
                        new ReassignablePartition().setPartitionIndex(1).setReplicas(List.of(0)))))),
                answer -> {
                    AlterPartitionReassignmentsResponseData alter = (AlterPartitionReassignmentsResponseData) answer;
                    List<Short> errors = new ArrayList<>(List.of(alter.errorCode()));
                    alter.responses().forEach(t -> t.partitions().forEach(p -> errors.add(p.errorCode())));
                    return errors;
                }, 3),
            new Case(ApiKey.LIST_PARTITION_REASSIGNMENTS, new ListPartitionReassignmentsRequestData().setTimeoutMs(1000),
                answer -> List.of(((ListPartitionReassignmentsResponseData) answer).errorCode()), 1),
            new Case(ApiKey.ELECT_LEADERS, new ElectLeadersRequestData().setElectionType((byte) 0).setTimeoutMs(1000)
                    .setTopicPartitions(electedPartitions()),
                answer -> {
                    ElectLeadersResponseData elect = (ElectLeadersResponseData) answer;
                    List<Short> errors = new ArrayList<>(List.of(elect.errorCode()));
                    elect.replicaElectionResults().forEach(t -> t.partitionResult().forEach(p -> errors.add(p.errorCode())));
                    return errors;
                }, 3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void anInjectedErrorIsAnsweredInEveryErrorFieldAndTheRequestIsNotServed(Case refused) throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "refused")) {
            cluster.injectError(0, refused.api(), ERROR, 1);

            ApiMessage answer = wire.call(refused.api(), refused.api().highestVersion(), refused.request());

            assertThat(refused.errors().apply(answer)).hasSize(refused.errorFields()).containsOnly(ERROR.code());
            assertThat(cluster.requestLog()).singleElement()
                .satisfies(logged -> assertThat(logged.faults()).containsExactly(LoggedRequest.Fault.ERROR_INJECTED));
        }
    }

    private static FetchPartition fetchPartition(int partition) {
        return new FetchPartition().setPartition(partition).setFetchOffset(0).setPartitionMaxBytes(1024);
    }

    private static ListOffsetsPartition listOffsetsPartition(int partition) {
        return new ListOffsetsPartition().setPartitionIndex(partition).setTimestamp(-1);
    }

    private static OffsetForLeaderTopicCollection offsetForLeaderTopics() {
        OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
        topics.add(new OffsetForLeaderTopic().setTopic(TOPIC).setPartitions(List.of(
            new OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0),
            new OffsetForLeaderPartition().setPartition(1).setLeaderEpoch(0))));
        return topics;
    }

    private static CreatableTopicCollection creatableTopics() {
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName(TOPIC).setNumPartitions(1).setReplicationFactor((short) 1));
        topics.add(new CreatableTopic().setName(TOPIC + "-2").setNumPartitions(1).setReplicationFactor((short) 1));
        return topics;
    }

    private static DescribeConfigsResource configResource(ConfigResource.Type type, String name) {
        return new DescribeConfigsResource().setResourceType(type.id()).setResourceName(name);
    }

    private static TopicPartitionsCollection electedPartitions() {
        TopicPartitionsCollection topics = new TopicPartitionsCollection();
        topics.add(new TopicPartitions().setTopic(TOPIC).setPartitions(List.of(0, 1)));
        return topics;
    }
}
