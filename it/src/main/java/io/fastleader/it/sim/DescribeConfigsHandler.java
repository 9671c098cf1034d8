package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.DescribeConfigsRequestData;
import io.fastleader.protocol.message.DescribeConfigsRequestData.DescribeConfigsResource;
import io.fastleader.protocol.message.DescribeConfigsResponseData;
import io.fastleader.protocol.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import io.fastleader.protocol.message.DescribeConfigsResponseData.DescribeConfigsResult;
import io.fastleader.protocol.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * DescribeConfigs for topics and brokers. A topic's settings are those given at its creation
 * (source TOPIC_CONFIG, which Admin reports as {@code DYNAMIC_TOPIC_CONFIG}) over the few Kafka
 * defaults {@link TopicSettings} lists (DEFAULT_CONFIG); a broker lists every topic setting. An
 * unknown topic is answered UNKNOWN_TOPIC_OR_PARTITION. A broker resource is this broker's id (or
 * empty, for the cluster-wide defaults) and has no settings in the simulation; another broker's id
 * is INVALID_REQUEST, as a broker answers, since Admin sends each broker's resource to that
 * broker. Other resource types are INVALID_REQUEST. Synonyms, when asked for, are the setting
 * itself; no documentation or types are given.
 */
final class DescribeConfigsHandler implements RequestHandler {

    private final ClusterState state;

    DescribeConfigsHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        DescribeConfigsRequestData data = (DescribeConfigsRequestData) request;
        List<DescribeConfigsResult> results = new ArrayList<>();
        for (DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult()
                .setResourceType(resource.resourceType())
                .setResourceName(resource.resourceName());
            ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
            if (type == ConfigResource.Type.TOPIC) {
                describeTopic(resource, data.includeSynonyms(), result);
            } else if (type == ConfigResource.Type.BROKER) {
                describeBroker(resource, context.brokerId(), result);
            } else {
                refuse(result, ErrorCode.INVALID_REQUEST, "The simulated cluster describes no " + type + " resource.");
            }
            results.add(result);
        }
        return CompletableFuture.completedFuture(new DescribeConfigsResponseData().setResults(results));
    }

    private void describeTopic(DescribeConfigsResource resource, boolean includeSynonyms, DescribeConfigsResult result) {
        Optional<Map<String, String>> own = state.topicConfigs(resource.resourceName());
        if (own.isEmpty()) {
            refuse(result, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + resource.resourceName() + " not found.");
            return;
        }
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        for (TopicSettings.Setting setting : TopicSettings.describe(own.get())) {
            if (resource.configurationKeys() != null && !resource.configurationKeys().contains(setting.name())) {
                continue;
            }
            DescribeConfigsResourceResult config = new DescribeConfigsResourceResult()
                .setName(setting.name())
                .setValue(setting.value())
                .setConfigSource(setting.source().id());
            if (includeSynonyms) {
                config.setSynonyms(new ArrayList<>(List.of(new DescribeConfigsSynonym()
                    .setName(setting.name()).setValue(setting.value()).setSource(setting.source().id()))));
            }
            configs.add(config);
        }
        result.setConfigs(configs);
    }

    private static void describeBroker(DescribeConfigsResource resource, int brokerId, DescribeConfigsResult result) {
        String name = resource.resourceName();
        if (!name.isEmpty() && !name.equals(Integer.toString(brokerId))) {
            refuse(result, ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected " + brokerId + " or empty string, but received " + name);
        }
    }

    private static void refuse(DescribeConfigsResult result, ErrorCode error, String message) {
        result.setErrorCode(error.code()).setErrorMessage(message);
    }
}
