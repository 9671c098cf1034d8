package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.consumer.group.LeaveOperation;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.ReplicaPrewarm;

/**
 * Who decides the consumer's assignment: the application ({@code assign}) or the group
 * ({@code subscribe}), never both; and what a change of it sets going: metrics, the topics in
 * use, connections prewarmed. Runs on the state owner.
 */
final class Assignment {

    private final SubscriptionState subscriptions;
    private final OptionalGroup group;
    private final AutoCommit autoCommit;
    private final ConsumerMetrics consumerMetrics;
    private final ClusterMetadata metadata;
    /** Null when {@code fastleader.connections.prewarm} is off. */
    private final ReplicaPrewarm prewarm;
    private final ConsumerThread stateOwner;
    /** {@code default.api.timeout.ms}: how long {@code unsubscribe} waits for the coordinator's answer to its leave. */
    private final Duration leaveTimeout;

    Assignment(SubscriptionState subscriptions, OptionalGroup group, AutoCommit autoCommit, ConsumerMetrics consumerMetrics,
               ClusterMetadata metadata, ReplicaPrewarm prewarm, ConsumerThread stateOwner, Duration leaveTimeout) {
        this.subscriptions = subscriptions;
        this.group = group;
        this.autoCommit = autoCommit;
        this.consumerMetrics = consumerMetrics;
        this.metadata = metadata;
        this.prewarm = prewarm;
        this.stateOwner = stateOwner;
        this.leaveTimeout = leaveTimeout;
    }

    /** {@code assign(partitions)}: refused in a group; with auto-commit, the old assignment's positions are committed first. */
    void assign(Collection<TopicPartition> partitions) {
        if (group.isSubscribed()) {
            throw new IllegalStateException(ConsumerGroup.MUTUALLY_EXCLUSIVE);
        }
        if (partitions == null) {
            throw new IllegalArgumentException("Topic partitions collection to assign to cannot be null");
        }
        for (TopicPartition partition : partitions) {
            if (partition == null || Utils.isBlank(partition.topic())) {
                throw new IllegalArgumentException("Topic partitions to assign to cannot have null or empty topic");
            }
        }
        autoCommit.beforeAssigning();
        change(partitions);
    }

    /**
     * {@code KafkaConsumer} refuses a null listener before anything else: called on the
     * application's thread, before the call is handed to the state owner.
     */
    static void requireListener(ConsumerRebalanceListener callback) {
        if (callback == null) {
            throw new IllegalArgumentException("RebalanceListener cannot be null");
        }
    }

    /** {@code subscribe(topics, listener)}: an empty collection unsubscribes. */
    void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
        group.require();
        if (topics == null) {
            throw new IllegalArgumentException("Topic collection to subscribe to cannot be null");
        }
        if (topics.isEmpty()) {
            unsubscribe();
            return;
        }
        for (String topic : topics) {
            if (Utils.isBlank(topic)) {
                throw new IllegalArgumentException("Topic collection to subscribe to cannot contain null or empty topic");
            }
        }
        groupToSubscribe().subscribe(topics, listener);
    }

    /** {@code subscribe(pattern, listener)}. */
    void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
        group.require();
        if (pattern == null || pattern.toString().isEmpty()) {
            throw new IllegalArgumentException("Topic pattern to subscribe to cannot be " + (pattern == null ? "null" : "empty"));
        }
        groupToSubscribe().subscribe(pattern, listener);
    }

    /** {@code subscribe(subscriptionPattern, listener)}. */
    void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener listener) {
        group.require();
        if (pattern == null || pattern.pattern() == null || pattern.pattern().isEmpty()) {
            throw new IllegalArgumentException("Topic pattern to subscribe to cannot be " + (pattern == null ? "null" : "empty"));
        }
        groupToSubscribe().subscribe(pattern, listener);
    }

    /** {@code unsubscribe()}: a member leaves its group (see {@link #leaveTimeout}); otherwise nothing stays assigned. */
    void unsubscribe() {
        if (group.isSubscribed()) {
            group.leave(LeaveOperation.DEFAULT, leaveTimeout);
        } else {
            assign(List.of());
        }
    }

    /** The group, for {@code subscribe}: refused while partitions assigned by {@code assign} are held. */
    private ConsumerGroup groupToSubscribe() {
        ConsumerGroup joining = group.require();
        if (!group.isSubscribed() && !subscriptions.isEmpty()) {
            throw new IllegalStateException(ConsumerGroup.MUTUALLY_EXCLUSIVE);
        }
        return joining;
    }

    /** {@code seekToBeginning}, {@code seekToEnd}: an empty collection means every assigned partition. */
    void reset(Collection<TopicPartition> partitions, ResetStrategy strategy) {
        for (TopicPartition partition : partitions.isEmpty() ? subscriptions.partitions() : partitions) {
            subscriptions.assigned(partition).requestReset(strategy);
        }
    }

    /** Makes exactly {@code partitions} the assignment, as {@code assign} and the group's reconciliation do. */
    void change(Collection<TopicPartition> partitions) {
        SubscriptionState.Change change = subscriptions.assign(partitions);
        change.removed().forEach(consumerMetrics::unassigned);
        change.added().forEach(consumerMetrics::assigned);
        group.ifPresent(joined -> joined.assignedPartitions(subscriptions.partitions().size()));
        useTopics(change);
    }

    private void useTopics(SubscriptionState.Change change) {
        if (!change.topicsDropped().isEmpty()) {
            metadata.removeTopics(change.topicsDropped());
        }
        Set<String> added = change.topicsAdded();
        if (!added.isEmpty()) {
            metadata.awaitTopics(added).thenRun(() -> {
                stateOwner.wakeUp();
                if (prewarm != null) {
                    added.forEach(prewarm::prewarmTopic);
                }
            });
        }
    }
}
