package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.DeleteTopicsRequestData;
import io.fastleader.protocol.message.DeleteTopicsRequestData.DeleteTopicState;
import io.fastleader.protocol.message.DeleteTopicsResponseData;
import io.fastleader.protocol.message.DeleteTopicsResponseData.DeletableTopicResult;
import io.fastleader.protocol.message.DeleteTopicsResponseData.DeletableTopicResultCollection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * DeleteTopics, by name (every version) or by id (v6): the topic, its log and its settings are
 * gone from the next request served; a topic created again under the same name gets a new id
 * and starts at epoch 0, as on a broker. Unknown names are answered UNKNOWN_TOPIC_OR_PARTITION,
 * unknown ids UNKNOWN_TOPIC_ID, and an entry with both a name and an id, or neither, INVALID_REQUEST. A broker
 * deletes the logs in the background; here they go at once, so a create right after succeeds.
 */
final class DeleteTopicsHandler implements RequestHandler {

    private final ClusterState state;

    DeleteTopicsHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        DeleteTopicsRequestData data = (DeleteTopicsRequestData) request;
        List<DeleteTopicState> wanted = new ArrayList<>(data.topics());
        data.topicNames().forEach(name -> wanted.add(new DeleteTopicState().setName(name)));
        DeletableTopicResultCollection results = new DeletableTopicResultCollection();
        for (DeleteTopicState topic : wanted) {
            results.add(delete(topic));
        }
        return CompletableFuture.completedFuture(new DeleteTopicsResponseData().setResponses(results));
    }

    private DeletableTopicResult delete(DeleteTopicState topic) {
        boolean byId = !Uuid.ZERO_UUID.equals(topic.topicId());
        DeletableTopicResult result = new DeletableTopicResult().setName(topic.name()).setTopicId(topic.topicId());
        if (byId == (topic.name() != null)) {
            return refuse(result, ErrorCode.INVALID_REQUEST, "A topic to delete is named by its name or by its id, exactly one.");
        }
        if (byId) {
            Optional<String> name = state.deleteTopic(topic.topicId());
            return name.isPresent() ? result.setName(name.get())
                : refuse(result, ErrorCode.UNKNOWN_TOPIC_ID, "Topic id " + topic.topicId() + " not found.");
        }
        Optional<Uuid> id = state.deleteTopic(topic.name());
        return id.isPresent() ? result.setTopicId(id.get())
            : refuse(result, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic.name() + " not found.");
    }

    private static DeletableTopicResult refuse(DeletableTopicResult result, ErrorCode error, String message) {
        return result.setErrorCode(error.code()).setErrorMessage(message);
    }
}
