package io.fastleader.clients.consumer.group;

import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import io.fastleader.protocol.ErrorCode;

/**
 * What a member does with the error of a ConsumerGroupHeartbeat answer, as Kafka's consumer does
 * under the consumer group protocol. Every error code is classified here, once, and turned into the
 * exception the application sees here too.
 */
enum HeartbeatErrorKind {
    /** No error. */
    NONE,
    /**
     * The broker asked is not the group's coordinator (any more), or could not be reached: find the
     * coordinator again and heartbeat there, at once the first time.
     */
    COORDINATOR_MOVED,
    /** The coordinator will answer later (loading the group, say): heartbeat again after backoff. */
    RETRIABLE,
    /**
     * The coordinator no longer knows the member at its epoch: its partitions are lost (they may
     * already be someone else's), and it joins again with epoch 0.
     */
    FENCED,
    /** Anything else: the membership ends and {@code poll} raises {@link #exception}. */
    FATAL;

    /** The kind of a ConsumerGroupHeartbeat error. */
    static HeartbeatErrorKind of(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> COORDINATOR_MOVED;
            case FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID -> FENCED;
            default -> error.isRetriable() ? RETRIABLE : FATAL;
        };
    }

    /**
     * The exception a {@link #FATAL} error ends the membership with, as {@code KafkaConsumer} raises it.
     *
     * @param message the broker's error message, null or empty if it sent none
     */
    static RuntimeException exception(ErrorCode error, String message, String groupId) {
        boolean described = message != null && !message.isEmpty();
        return switch (error) {
            case GROUP_AUTHORIZATION_FAILED -> GroupAuthorizationException.forGroupId(groupId);
            case TOPIC_AUTHORIZATION_FAILED -> new TopicAuthorizationException(described ? message
                    : "Not authorized to describe a topic the subscription of group " + groupId + " names");
            case UNSUPPORTED_VERSION -> unsupportedProtocol(groupId, described ? message : error.message());
            default -> described ? error.exception(message) : error.exception();
        };
    }

    /** The error for a cluster that does not run the consumer group protocol (KIP-848) that {@code group.protocol=consumer} asks for. */
    static UnsupportedVersionException unsupportedProtocol(String groupId, String detail) {
        return new UnsupportedVersionException("The cluster does not serve the consumer group protocol (KIP-848, "
                + "ConsumerGroupHeartbeat) that group.protocol=consumer asks FastLeaderConsumer to join group " + groupId
                + " with: it needs Kafka 4.0 or later with the protocol enabled (group.coordinator.rebalance.protocols includes "
                + "consumer). Set group.protocol=classic (the default) to join with the classic protocol until the cluster is upgraded"
                + (detail == null || detail.isEmpty() ? "" : "; " + detail));
    }
}
