package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.requests.ListOffsetsRequest;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.ClusterView;
import io.fastleader.clients.metadata.LeaderCache;

/**
 * What the consumer asks the cluster for the application, outside fetching: offsets by time
 * (ListOffsets) and topics' partitions (Metadata). Entered on the application's thread; the
 * lookups run on the state owner through {@link ApplicationCalls}.
 */
final class ClusterQueries {

    private final ApplicationCalls calls;
    private final OffsetLookup offsetLookup;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final SubscriptionState subscriptions;
    private final IsolationLevel isolationLevel;

    ClusterQueries(ApplicationCalls calls, OffsetLookup offsetLookup, ClusterMetadata metadata, SubscriptionState subscriptions,
                   IsolationLevel isolationLevel) {
        this.calls = calls;
        this.offsetLookup = offsetLookup;
        this.metadata = metadata;
        this.cache = metadata.cache();
        this.subscriptions = subscriptions;
        this.isolationLevel = isolationLevel;
    }

    /** {@code offsetsForTimes}: partitions without a record at or after their timestamp map to null. */
    Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch, Duration timeout) {
        Map<TopicPartition, ListedOffset> listed = listOffsets(timestampsToSearch, timeout, "offsets for times");
        Map<TopicPartition, OffsetAndTimestamp> result = new HashMap<>();
        listed.forEach((partition, offset) -> result.put(partition,
                offset.offset() < 0 ? null : new OffsetAndTimestamp(offset.offset(), offset.timestamp(), offset.leaderEpoch())));
        return result;
    }

    Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return offsetsAt(partitions, ListOffsetsRequest.EARLIEST_TIMESTAMP, timeout, "beginning offsets");
    }

    /** {@code endOffsets}: also the end an assigned partition's lag is counted from until a Fetch answers for it. */
    Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        boolean readCommitted = isolationLevel == IsolationLevel.READ_COMMITTED;
        return calls.callOwned(() -> {
            Map<TopicPartition, Long> ends = offsetsAt(partitions, ListOffsetsRequest.LATEST_TIMESTAMP, timeout, "end offsets");
            ends.forEach((partition, end) -> {
                PartitionState state = subscriptions.state(partition);
                if (state != null) {
                    state.endListed(end, readCommitted);
                }
            });
            return ends;
        });
    }

    /** {@code partitionsFor}: empty when the topic does not exist. */
    List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        return calls.callOwned(() -> {
            if (cache.partitionCount(topic) > 0) {
                return ClusterView.partitions(cache, topic);
            }
            long deadlineMs = calls.deadline(timeout);
            List<PartitionInfo> found = listTopics(deadlineMs).get(topic);
            return found == null ? List.of() : found;
        });
    }

    Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
        return calls.callOwned(() -> listTopics(calls.deadline(timeout)));
    }

    private Map<TopicPartition, Long> offsetsAt(Collection<TopicPartition> partitions, long timestamp, Duration timeout, String what) {
        Map<TopicPartition, Long> timestamps = new HashMap<>();
        partitions.forEach(partition -> timestamps.put(partition, timestamp));
        Map<TopicPartition, Long> result = new HashMap<>();
        listOffsets(timestamps, timeout, what).forEach((partition, listed) -> result.put(partition, listed.offset()));
        return result;
    }

    private Map<TopicPartition, ListedOffset> listOffsets(Map<TopicPartition, Long> timestamps, Duration timeout, String what) {
        return calls.callOwned(() -> {
            if (timestamps.isEmpty()) {
                return Map.of();
            }
            long deadlineMs = calls.deadline(timeout);
            return calls.await(offsetLookup.offsets(Map.copyOf(timestamps), isolationLevel, deadlineMs), deadlineMs,
                    () -> "Failed to get " + what + " of " + timestamps.keySet() + " in " + timeout.toMillis() + "ms");
        });
    }

    /** Every topic, as one broker describes it; {@code TimeoutException} with KafkaConsumer's message past {@code deadlineMs}. */
    private Map<String, List<PartitionInfo>> listTopics(long deadlineMs) {
        return ClusterView.topics(calls.await(metadata.describeAllTopics(), deadlineMs,
                () -> "Timeout expired while fetching topic metadata"));
    }
}
