package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopicCollection;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponseCollection;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The error answer of each API that can be refused on command ({@code SimulatedCluster.injectError}),
 * built from the request, as a broker refusing it would answer: the error wherever the response
 * has an error field for what was asked (each partition of a Produce, each topic of a Metadata).
 * One builder per API, registered in the constructor: an API served later gets its error answer
 * by one more entry there. An API without one cannot have errors injected.
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
}
