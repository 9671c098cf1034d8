package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.LeaveOperation;

/**
 * What {@link FastLeaderConsumer} does by default: the overloads of {@link Consumer} that only call
 * another with a default (no callback, {@code default.api.timeout.ms}, 30 seconds to close), and
 * what it does not support (rebalances the application enforces). The consumer
 * implements the rest; these run on the thread that calls them, as the overload they call does.
 */
abstract class ConsumerDefaults<K, V> implements Consumer<K, V> {

    /** {@code KafkaConsumer}'s close timeout when none is given. */
    static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

    // The consumer's logger: this line was always the consumer's, and logging is configured by its name.
    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConsumer.class);

    /** {@code default.api.timeout.ms}: how long the blocking calls without a timeout argument wait. */
    abstract Duration defaultApiTimeout();

    /**
     * {@code close}: a group member leaves its group as {@code leave} says, as {@code KafkaConsumer} 4.3 does.
     *
     * @param leave {@code CloseOptions}' group membership operation; {@link LeaveOperation#DEFAULT} without one
     */
    abstract void close(Duration timeout, LeaveOperation leave);

    /**
     * {@code poll(Duration)}, and {@code poll(long)} of kafka-clients 3.x.
     *
     * @param awaitAssignment whether to wait, without limit, for the assignment and committed offsets
     *                        first ({@link #poll(long)})
     */
    abstract ConsumerRecords<K, V> poll(Duration timeout, boolean awaitAssignment);

    /**
     * {@code Consumer.poll(long)} of kafka-clients 3.x (deprecated there, gone in 4.0), for
     * applications on 3.7 to 3.9. As {@code KafkaConsumer} 3.x's under its default, classic,
     * protocol, and unlike {@link #poll(Duration)}, it first waits for as long as it takes until a
     * subscribed consumer has joined its group and taken its assignment, and until every assigned
     * partition's committed offset is known; records are then waited for until {@code timeoutMs}
     * after the call. So {@code poll(0)} right after {@code subscribe} returns a member with its
     * partitions. ({@code KafkaConsumer} 3.x refuses the call under the consumer protocol.)
     *
     * @param timeoutMs how long to wait for records, counted from the call
     * @throws IllegalArgumentException for a negative timeout, with {@code KafkaConsumer}'s message
     * @throws WakeupException          if {@link #wakeup()} was called, also while waiting for the group
     * @deprecated as in kafka-clients 3.x: {@link #poll(Duration)} does not wait beyond its timeout
     */
    @Deprecated
    public ConsumerRecords<K, V> poll(long timeoutMs) {
        return poll(Duration.ofMillis(timeoutMs), true);
    }

    @Override
    public void enforceRebalance() {
        enforceRebalance(null);
    }

    @Override
    public long position(TopicPartition partition) {
        return position(partition, defaultApiTimeout());
    }

    @Override
    public void commitSync() {
        commitSync(defaultApiTimeout());
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitSync(offsets, defaultApiTimeout());
    }

    @Override
    public void commitAsync() {
        commitAsync(null);
    }

    /**
     * {@code Consumer.committed(TopicPartition)} of kafka-clients 3.x (deprecated there, gone in
     * 4.0), for applications on 3.7 to 3.9: the partition's committed offset, null if none,
     * waiting up to {@code default.api.timeout.ms}.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     * @throws TimeoutException        if not known within {@code default.api.timeout.ms}
     * @deprecated as in kafka-clients 3.x: use {@link #committed(Set)}
     */
    @Deprecated
    public OffsetAndMetadata committed(TopicPartition partition) {
        return committed(partition, defaultApiTimeout());
    }

    /**
     * {@code Consumer.committed(TopicPartition, Duration)} of kafka-clients 3.x (deprecated there,
     * gone in 4.0), for applications on 3.7 to 3.9: the partition's committed offset, null if none.
     *
     * @throws InvalidGroupIdException without a {@code group.id}
     * @throws TimeoutException        if not known within {@code timeout}
     * @deprecated as in kafka-clients 3.x: use {@link #committed(Set, Duration)}
     */
    @Deprecated
    public OffsetAndMetadata committed(TopicPartition partition, Duration timeout) {
        return committed(Set.of(partition), timeout).get(partition);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        return committed(partitions, defaultApiTimeout());
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch) {
        return offsetsForTimes(timestampsToSearch, defaultApiTimeout());
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return beginningOffsets(partitions, defaultApiTimeout());
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return endOffsets(partitions, defaultApiTimeout());
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return partitionsFor(topic, defaultApiTimeout());
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        return listTopics(defaultApiTimeout());
    }

    /** {@inheritDoc} Waits up to 30 seconds, as {@code KafkaConsumer} does. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT, LeaveOperation.DEFAULT);
    }

    /** {@inheritDoc} Deprecated as in {@code Consumer} 4.1+: use {@link #close(org.apache.kafka.clients.consumer.CloseOptions)}. */
    @Deprecated
    @Override
    public void close(Duration timeout) {
        close(timeout, LeaveOperation.DEFAULT);
    }
}
