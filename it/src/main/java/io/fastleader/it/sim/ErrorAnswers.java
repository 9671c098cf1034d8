package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.CreateTopicsRequestData;
import io.fastleader.protocol.message.CreateTopicsResponseData;
import io.fastleader.protocol.message.CreateTopicsResponseData.CreatableTopicResult;
import io.fastleader.protocol.message.CreateTopicsResponseData.CreatableTopicResultCollection;
import io.fastleader.protocol.message.DeleteTopicsRequestData;
import io.fastleader.protocol.message.DeleteTopicsResponseData;
import io.fastleader.protocol.message.DeleteTopicsResponseData.DeletableTopicResult;
import io.fastleader.protocol.message.DeleteTopicsResponseData.DeletableTopicResultCollection;
import io.fastleader.protocol.message.DescribeConfigsRequestData;
import io.fastleader.protocol.message.DescribeConfigsResponseData;
import io.fastleader.protocol.message.DescribeConfigsResponseData.DescribeConfigsResult;
import io.fastleader.protocol.message.ElectLeadersRequestData;
import io.fastleader.protocol.message.ElectLeadersResponseData;
import io.fastleader.protocol.message.ElectLeadersResponseData.PartitionResult;
import io.fastleader.protocol.message.ElectLeadersResponseData.ReplicaElectionResult;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.FetchResponseData.FetchableTopicResponse;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import io.fastleader.protocol.message.ListPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopicCollection;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponseCollection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The error answer of each API that can be refused on command ({@code SimulatedCluster.injectError}),
 * built from the request as a broker's {@code getErrorResponse} builds it: the error wherever the
 * response has an error field for what was asked (each partition of a Produce, Fetch, ListOffsets,
 * OffsetForLeaderEpoch, AlterPartitionReassignments or ElectLeaders; each topic of a Metadata,
 * CreateTopics or DeleteTopics; each resource of a DescribeConfigs), offsets and epochs -1, and in
 * the response's own error field where it has one. One builder per API, registered in the
 * constructor: an API served later gets its error answer by one more entry there. An API without
 * one cannot have errors injected.
 */
final class ErrorAnswers {

    /** Builds one API's answer refusing a request with an error. */
    @FunctionalInterface
    interface ErrorAnswer {
        /** The answer refusing {@code request}, or {@code null} when the request gets no answer. */
        ApiMessage build(RequestContext context, ApiMessage request, ErrorCode error);
    }

    private final Map<ApiKey, ErrorAnswer> builders = new EnumMap<>(ApiKey.class);

    ErrorAnswers() {
        builders.put(ApiKey.PRODUCE, (context, request, error) -> produce((ProduceRequestData) request, error));
        builders.put(ApiKey.METADATA, (context, request, error) -> metadata(context, (MetadataRequestData) request, error));
        builders.put(ApiKey.INIT_PRODUCER_ID, (context, request, error) -> new InitProducerIdResponseData()
            .setErrorCode(error.code())
            .setProducerId(-1)
            .setProducerEpoch((short) -1));
        builders.put(ApiKey.API_VERSIONS, (context, request, error) -> new ApiVersionsResponseData().setErrorCode(error.code()));
        builders.put(ApiKey.FETCH, (context, request, error) -> fetch((FetchRequestData) request, error));
        builders.put(ApiKey.LIST_OFFSETS, (context, request, error) -> listOffsets((ListOffsetsRequestData) request, error));
        builders.put(ApiKey.OFFSET_FOR_LEADER_EPOCH, (context, request, error) ->
            offsetForLeaderEpoch((OffsetForLeaderEpochRequestData) request, error));
        builders.put(ApiKey.CREATE_TOPICS, (context, request, error) -> createTopics((CreateTopicsRequestData) request, error));
        builders.put(ApiKey.DELETE_TOPICS, (context, request, error) -> deleteTopics((DeleteTopicsRequestData) request, error));
        builders.put(ApiKey.DESCRIBE_CONFIGS, (context, request, error) ->
            describeConfigs((DescribeConfigsRequestData) request, error));
        builders.put(ApiKey.ALTER_PARTITION_REASSIGNMENTS, (context, request, error) ->
            alterPartitionReassignments((AlterPartitionReassignmentsRequestData) request, error));
        builders.put(ApiKey.LIST_PARTITION_REASSIGNMENTS, (context, request, error) ->
            new ListPartitionReassignmentsResponseData().setErrorCode(error.code()));
        builders.put(ApiKey.ELECT_LEADERS, (context, request, error) -> electLeaders(context, (ElectLeadersRequestData) request, error));
        GroupErrorAnswers.register(builders);
    }

    /** The APIs whose error answers this builds. */
    Set<ApiKey> apis() {
        return builders.keySet();
    }

    /**
     * The answer refusing {@code request} with {@code error}, or {@code null} when the request gets
     * no answer (Produce with acks=0).
     */
    ApiMessage build(RequestContext context, ApiMessage request, ErrorCode error) {
        ErrorAnswer builder = builders.get(context.api());
        if (builder == null) {
            throw new IllegalArgumentException("no error answer is built for " + context.api().displayName());
        }
        return builder.build(context, request, error);
    }

    private static ApiMessage produce(ProduceRequestData request, ErrorCode error) {
        if (request.acks() == 0) {
            return null;
        }
        TopicProduceResponseCollection topics = new TopicProduceResponseCollection();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            List<PartitionProduceResponse> partitions = new ArrayList<>();
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                partitions.add(new PartitionProduceResponse()
                    .setIndex(partition.index())
                    .setErrorCode(error.code())
                    .setBaseOffset(-1)
                    .setLogStartOffset(-1));
            }
            topics.add(new TopicProduceResponse().setName(topic.name()).setPartitionResponses(partitions));
        }
        return new ProduceResponseData().setResponses(topics);
    }

    /** Each topic asked for refused; a request for every topic refused as a whole (v13+) or answered with no topic. */
    private static ApiMessage metadata(RequestContext context, MetadataRequestData request, ErrorCode error) {
        MetadataResponseTopicCollection topics = new MetadataResponseTopicCollection();
        if (request.topics() != null) {
            for (MetadataRequestData.MetadataRequestTopic wanted : request.topics()) {
                MetadataResponseTopic topic = new MetadataResponseTopic()
                    .setName(wanted.name())
                    .setErrorCode(error.code());
                if (context.version() >= 10) {
                    topic.setTopicId(wanted.topicId());
                }
                topics.add(topic);
            }
        }
        MetadataResponseData response = new MetadataResponseData().setTopics(topics);
        if (context.version() >= 13) {
            response.setErrorCode(error.code());
        }
        return response;
    }

    /** Each partition refused with no records and -1 offsets; the response's error too, as a broker sets it. */
    private static ApiMessage fetch(FetchRequestData request, ErrorCode error) {
        List<FetchableTopicResponse> topics = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            List<FetchResponseData.PartitionData> partitions = new ArrayList<>();
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                partitions.add(new FetchResponseData.PartitionData()
                    .setPartitionIndex(partition.partition())
                    .setErrorCode(error.code())
                    .setHighWatermark(-1)
                    .setLastStableOffset(-1)
                    .setLogStartOffset(-1)
                    .setRecords(MemoryRecords.EMPTY));
            }
            topics.add(new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId()).setPartitions(partitions));
        }
        return new FetchResponseData().setErrorCode(error.code()).setSessionId(0).setResponses(topics);
    }

    private static ApiMessage listOffsets(ListOffsetsRequestData request, ErrorCode error) {
        List<ListOffsetsTopicResponse> topics = new ArrayList<>();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
            List<ListOffsetsPartitionResponse> partitions = new ArrayList<>();
            for (ListOffsetsRequestData.ListOffsetsPartition partition : topic.partitions()) {
                partitions.add(new ListOffsetsPartitionResponse()
                    .setPartitionIndex(partition.partitionIndex())
                    .setErrorCode(error.code())
                    .setTimestamp(-1)
                    .setOffset(-1)
                    .setLeaderEpoch(-1));
            }
            topics.add(new ListOffsetsTopicResponse().setName(topic.name()).setPartitions(partitions));
        }
        return new ListOffsetsResponseData().setTopics(topics);
    }

    private static ApiMessage offsetForLeaderEpoch(OffsetForLeaderEpochRequestData request, ErrorCode error) {
        OffsetForLeaderTopicResultCollection topics = new OffsetForLeaderTopicResultCollection();
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : request.topics()) {
            OffsetForLeaderTopicResult result = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition partition : topic.partitions()) {
                result.partitions().add(new EpochEndOffset()
                    .setPartition(partition.partition())
                    .setErrorCode(error.code())
                    .setLeaderEpoch(-1)
                    .setEndOffset(-1));
            }
            topics.add(result);
        }
        return new OffsetForLeaderEpochResponseData().setTopics(topics);
    }

    private static ApiMessage createTopics(CreateTopicsRequestData request, ErrorCode error) {
        CreatableTopicResultCollection topics = new CreatableTopicResultCollection();
        for (CreateTopicsRequestData.CreatableTopic topic : request.topics()) {
            if (topics.find(topic.name()) == null) {
                topics.add(new CreatableTopicResult().setName(topic.name()).setErrorCode(error.code()));
            }
        }
        return new CreateTopicsResponseData().setTopics(topics);
    }

    /** Each topic refused, named as the request named it: by name, or (v6+) by id. */
    private static ApiMessage deleteTopics(DeleteTopicsRequestData request, ErrorCode error) {
        DeletableTopicResultCollection topics = new DeletableTopicResultCollection();
        for (DeleteTopicsRequestData.DeleteTopicState topic : request.topics()) {
            topics.add(new DeletableTopicResult().setName(topic.name()).setTopicId(topic.topicId()).setErrorCode(error.code()));
        }
        for (String name : request.topicNames()) {
            topics.add(new DeletableTopicResult().setName(name).setErrorCode(error.code()));
        }
        return new DeleteTopicsResponseData().setResponses(topics);
    }

    private static ApiMessage describeConfigs(DescribeConfigsRequestData request, ErrorCode error) {
        List<DescribeConfigsResult> results = new ArrayList<>();
        for (DescribeConfigsRequestData.DescribeConfigsResource resource : request.resources()) {
            results.add(new DescribeConfigsResult()
                .setResourceType(resource.resourceType())
                .setResourceName(resource.resourceName())
                .setErrorCode(error.code()));
        }
        return new DescribeConfigsResponseData().setResults(results);
    }

    private static ApiMessage alterPartitionReassignments(AlterPartitionReassignmentsRequestData request, ErrorCode error) {
        List<ReassignableTopicResponse> topics = new ArrayList<>();
        for (AlterPartitionReassignmentsRequestData.ReassignableTopic topic : request.topics()) {
            List<ReassignablePartitionResponse> partitions = new ArrayList<>();
            for (AlterPartitionReassignmentsRequestData.ReassignablePartition partition : topic.partitions()) {
                partitions.add(new ReassignablePartitionResponse().setPartitionIndex(partition.partitionIndex()).setErrorCode(error.code()));
            }
            topics.add(new ReassignableTopicResponse().setName(topic.name()).setPartitions(partitions));
        }
        return new AlterPartitionReassignmentsResponseData()
            .setAllowReplicationFactorChange(request.allowReplicationFactorChange())
            .setErrorCode(error.code())
            .setResponses(topics);
    }

    /** Each partition named refused (none for a request of every partition); the response's error from v1, which has one. */
    private static ApiMessage electLeaders(RequestContext context, ElectLeadersRequestData request, ErrorCode error) {
        List<ReplicaElectionResult> topics = new ArrayList<>();
        if (request.topicPartitions() != null) {
            for (ElectLeadersRequestData.TopicPartitions topic : request.topicPartitions()) {
                List<PartitionResult> partitions = new ArrayList<>();
                topic.partitions().forEach(p -> partitions.add(new PartitionResult().setPartitionId(p).setErrorCode(error.code())));
                topics.add(new ReplicaElectionResult().setTopic(topic.topic()).setPartitionResult(partitions));
            }
        }
        ElectLeadersResponseData response = new ElectLeadersResponseData().setReplicaElectionResults(topics);
        if (context.version() >= 1) {
            response.setErrorCode(error.code());
        }
        return response;
    }
}
