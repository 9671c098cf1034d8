package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import io.fastleader.protocol.message.OffsetFetchResponseData;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import io.fastleader.protocol.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * OffsetFetch, v1-v9: the offsets a group committed for the partitions asked for (every
 * partition it committed for a null topic list, v2+), a partition without a commit answered
 * with offset -1 and no error, as a broker does, and from v8 a batch of groups, each answered on
 * its own. A group error is top-level from v2 (each partition's at v1). {@code RequireStable}
 * changes nothing: without transactions no offset is ever pending.
 */
final class OffsetFetchHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    OffsetFetchHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        OffsetFetchRequestData data = (OffsetFetchRequestData) request;
        int brokerId = context.brokerId();
        if (context.version() >= 8) {
            List<OffsetFetchResponseGroup> groups = new ArrayList<>();
            for (OffsetFetchRequestGroup group : data.groups()) {
                List<TopicPartition> wanted = group.topics() == null ? null : group.topics().stream()
                    .flatMap(t -> t.partitionIndexes().stream().map(p -> new TopicPartition(t.name(), p))).toList();
                GroupCoordinator.FetchedOffsets fetched =
                    coordinator.fetch(brokerId, group.groupId(), group.memberId(), group.memberEpoch(), wanted);
                groups.add(new OffsetFetchResponseGroup()
                    .setGroupId(group.groupId())
                    .setErrorCode(fetched.error().code())
                    .setTopics(fetched.error() == ErrorCode.NONE ? batchedTopics(wanted, fetched.offsets()) : List.of()));
            }
            return CompletableFuture.completedFuture(new OffsetFetchResponseData().setGroups(groups));
        }
        List<TopicPartition> wanted = data.topics() == null ? null : data.topics().stream()
            .flatMap(t -> t.partitionIndexes().stream().map(p -> new TopicPartition(t.name(), p))).toList();
        GroupCoordinator.FetchedOffsets fetched = coordinator.fetch(brokerId, data.groupId(), null, -1, wanted);
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (fetched.error() == ErrorCode.NONE) {
            return CompletableFuture.completedFuture(response.setTopics(topics(wanted, fetched.offsets(), ErrorCode.NONE)));
        }
        if (context.version() >= 2) {
            return CompletableFuture.completedFuture(response.setErrorCode(fetched.error().code()));
        }
        return CompletableFuture.completedFuture(response.setTopics(topics(wanted, Map.of(), fetched.error())));
    }

    /** Topics in the order asked (or of the offsets found, for all), each partition with its offset or -1. */
    private static List<OffsetFetchResponseTopic> topics(List<TopicPartition> wanted, Map<TopicPartition, OffsetAndMetadata> found,
                                                         ErrorCode error) {
        Map<String, OffsetFetchResponseTopic> topics = new LinkedHashMap<>();
        for (TopicPartition tp : wanted == null ? found.keySet() : wanted) {
            OffsetAndMetadata committed = found.get(tp);
            topics.computeIfAbsent(tp.topic(), name -> new OffsetFetchResponseTopic().setName(name)).partitions()
                .add(new OffsetFetchResponsePartition()
                    .setPartitionIndex(tp.partition())
                    .setCommittedOffset(committed == null ? -1 : committed.offset())
                    .setCommittedLeaderEpoch(committed == null ? -1 : committed.leaderEpoch().orElse(-1))
                    .setMetadata(committed == null ? "" : committed.metadata())
                    .setErrorCode(error.code()));
        }
        return new ArrayList<>(topics.values());
    }

    private static List<OffsetFetchResponseTopics> batchedTopics(List<TopicPartition> wanted,
                                                                 Map<TopicPartition, OffsetAndMetadata> found) {
        Map<String, OffsetFetchResponseTopics> topics = new LinkedHashMap<>();
        for (TopicPartition tp : wanted == null ? found.keySet() : wanted) {
            OffsetAndMetadata committed = found.get(tp);
            topics.computeIfAbsent(tp.topic(), name -> new OffsetFetchResponseTopics().setName(name)).partitions()
                .add(new OffsetFetchResponsePartitions()
                    .setPartitionIndex(tp.partition())
                    .setCommittedOffset(committed == null ? -1 : committed.offset())
                    .setCommittedLeaderEpoch(committed == null ? -1 : committed.leaderEpoch().orElse(-1))
                    .setMetadata(committed == null ? "" : committed.metadata()));
        }
        return new ArrayList<>(topics.values());
    }
}
