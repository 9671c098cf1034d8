package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.fastleader.it.sim.ClusterState.CommandOutcome;
import io.fastleader.it.sim.ClusterState.CreatedTopic;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.CreateTopicsRequestData;
import io.fastleader.protocol.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import io.fastleader.protocol.message.CreateTopicsRequestData.CreatableTopic;
import io.fastleader.protocol.message.CreateTopicsRequestData.CreatableTopicConfig;
import io.fastleader.protocol.message.CreateTopicsResponseData;
import io.fastleader.protocol.message.CreateTopicsResponseData.CreatableTopicConfigs;
import io.fastleader.protocol.message.CreateTopicsResponseData.CreatableTopicResult;
import io.fastleader.protocol.message.CreateTopicsResponseData.CreatableTopicResultCollection;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * CreateTopics: each topic from its explicit replica assignment, or from a partition count and
 * replication factor ({@code -1} for Kafka's defaults, 1 and 1) placed as
 * {@link SimulatedCluster#createTopic} places them; created whole at once, every partition led
 * by its first running replica at epoch 0, with a new topic id, or only checked with
 * {@code validateOnly}. Refusals as a broker's: TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION,
 * INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR (below 1, or more than there are running
 * brokers), INVALID_REPLICA_ASSIGNMENT (gaps in the partition indexes, an empty or repeated
 * replica list, lists of different lengths, a broker that does not exist, a partition none of
 * whose replicas runs), INVALID_CONFIG (a setting Kafka does
 * not know, or a null value) and INVALID_REQUEST (an assignment beside a count, or a topic named
 * twice). The topic's settings are kept for DescribeConfigs and returned from v5, with the few
 * defaults {@link TopicSettings} describes.
 */
final class CreateTopicsHandler implements RequestHandler {

    /** Kafka's {@code num.partitions} default, for a request that leaves the count to the broker. */
    private static final int DEFAULT_PARTITIONS = 1;
    /** Kafka's {@code default.replication.factor} default. */
    private static final int DEFAULT_REPLICATION_FACTOR = 1;

    private final ClusterState state;

    CreateTopicsHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        CreateTopicsRequestData data = (CreateTopicsRequestData) request;
        Map<String, Long> named = data.topics().stream().collect(Collectors.groupingBy(CreatableTopic::name, Collectors.counting()));
        CreatableTopicResultCollection results = new CreatableTopicResultCollection();
        Set<String> answered = new HashSet<>();
        for (CreatableTopic topic : data.topics()) {
            if (!answered.add(topic.name())) {
                continue;
            }
            CreatableTopicResult result = new CreatableTopicResult().setName(topic.name());
            if (named.get(topic.name()) > 1) {
                refuse(result, new CommandOutcome(ErrorCode.INVALID_REQUEST, "Topic " + topic.name() + " is named more than once."));
            } else {
                create(topic, data.validateOnly(), context.version(), result);
            }
            results.add(result);
        }
        return CompletableFuture.completedFuture(new CreateTopicsResponseData().setTopics(results));
    }

    private void create(CreatableTopic topic, boolean validateOnly, short version, CreatableTopicResult result) {
        try {
            Topic.validate(topic.name());
        } catch (InvalidTopicException e) {
            refuse(result, new CommandOutcome(ErrorCode.INVALID_TOPIC_EXCEPTION, e.getMessage()));
            return;
        }
        CommandOutcome invalid = invalidConfig(topic.configs());
        if (invalid.done()) {
            invalid = invalidShape(topic);
        }
        if (!invalid.done()) {
            refuse(result, invalid);
            return;
        }
        Map<String, String> configs = new LinkedHashMap<>();
        topic.configs().forEach(config -> configs.put(config.name(), config.value()));
        int partitions = topic.numPartitions() == -1 ? DEFAULT_PARTITIONS : topic.numPartitions();
        int replicationFactor = topic.replicationFactor() == -1 ? DEFAULT_REPLICATION_FACTOR : topic.replicationFactor();
        CreatedTopic created = state.createTopic(topic.name(), partitions, replicationFactor, assignment(topic), configs, validateOnly);
        if (!created.outcome().done()) {
            refuse(result, created.outcome());
            return;
        }
        if (!created.assignment().isEmpty()) {
            partitions = created.assignment().size();
            replicationFactor = created.assignment().get(0).size();
        }
        if (version >= 5) {
            List<CreatableTopicConfigs> described = new ArrayList<>();
            TopicSettings.describe(configs).forEach(setting -> described.add(new CreatableTopicConfigs()
                .setName(setting.name())
                .setValue(setting.value())
                .setConfigSource(setting.source().id())));
            result.setNumPartitions(partitions).setReplicationFactor((short) replicationFactor).setConfigs(described);
        }
        result.setTopicId(created.topicId());
    }

    /** Why the request's partition count, replication factor or assignment cannot make a topic, or DONE. */
    private static CommandOutcome invalidShape(CreatableTopic topic) {
        if (topic.assignments().isEmpty()) {
            if (topic.numPartitions() != -1 && topic.numPartitions() < 1) {
                return new CommandOutcome(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be at least 1, or -1 for the default.");
            }
            if (topic.replicationFactor() != -1 && topic.replicationFactor() < 1) {
                return new CommandOutcome(ErrorCode.INVALID_REPLICATION_FACTOR,
                    "Replication factor must be at least 1, or -1 for the default.");
            }
            return CommandOutcome.DONE;
        }
        if (topic.numPartitions() != -1 || topic.replicationFactor() != -1) {
            return new CommandOutcome(ErrorCode.INVALID_REQUEST,
                "A replica assignment was given beside a partition count or replication factor; only one may be.");
        }
        Map<Integer, List<Integer>> byPartition = new TreeMap<>();
        topic.assignments().forEach(a -> byPartition.put(a.partitionIndex(), a.brokerIds()));
        if (byPartition.size() != topic.assignments().size() || !byPartition.keySet().equals(
                IntStream.range(0, byPartition.size()).boxed().collect(Collectors.toSet()))) {
            return new CommandOutcome(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "The partition indexes of the assignment must be 0 to n - 1, each once: " + byPartition.keySet());
        }
        int replicationFactor = byPartition.get(0).size();
        for (Map.Entry<Integer, List<Integer>> entry : byPartition.entrySet()) {
            List<Integer> replicas = entry.getValue();
            if (replicas.isEmpty() || replicas.stream().distinct().count() != replicas.size() || replicas.size() != replicationFactor) {
                return new CommandOutcome(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "Partition " + entry.getKey() + "'s replicas "
                    + replicas + " are empty, name a broker twice or differ in number from partition 0's.");
            }
        }
        return CommandOutcome.DONE;
    }

    private static CommandOutcome invalidConfig(Collection<CreatableTopicConfig> configs) {
        for (CreatableTopicConfig config : configs) {
            if (!TopicSettings.isKnown(config.name())) {
                return new CommandOutcome(ErrorCode.INVALID_CONFIG, "Unknown topic config name: " + config.name());
            }
            if (config.value() == null) {
                return new CommandOutcome(ErrorCode.INVALID_CONFIG, "Null value not supported for topic config " + config.name());
            }
        }
        return CommandOutcome.DONE;
    }

    /** The request's assignment as partition {@code p}'s replicas at {@code p}; empty when it has none. */
    private static List<List<Integer>> assignment(CreatableTopic topic) {
        Map<Integer, List<Integer>> byPartition = new HashMap<>();
        for (CreatableReplicaAssignment a : topic.assignments()) {
            byPartition.put(a.partitionIndex(), List.copyOf(a.brokerIds()));
        }
        List<List<Integer>> assignment = new ArrayList<>();
        for (int p = 0; p < byPartition.size(); p++) {
            assignment.add(byPartition.get(p));
        }
        return assignment;
    }

    private static void refuse(CreatableTopicResult result, CommandOutcome outcome) {
        result.setErrorCode(outcome.error().code()).setErrorMessage(outcome.message());
    }
}
