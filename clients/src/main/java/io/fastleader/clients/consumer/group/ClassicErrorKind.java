package io.fastleader.clients.consumer.group;

import org.apache.kafka.common.errors.GroupAuthorizationException;

import io.fastleader.protocol.ErrorCode;

/**
 * What a member of a classic group does with the error of a JoinGroup, SyncGroup, Heartbeat or
 * LeaveGroup answer, as Kafka's {@code AbstractCoordinator} does. Every error code is classified
 * here, once, and turned into the exception the application sees here too.
 */
enum ClassicErrorKind {
    /** No error. */
    NONE,
    /** The broker asked is not the coordinator (any more), or could not be reached: find it again, at once the first time. */
    COORDINATOR_MOVED,
    /** The coordinator will answer later (loading the group, say): ask again after backoff. */
    RETRIABLE,
    /** The group is rebalancing: the member joins again. */
    REBALANCING,
    /** The coordinator gave the member its id (KIP-394): join again at once, with it. */
    MEMBER_ID_REQUIRED,
    /**
     * The coordinator does not know the member, or not at its generation: its partitions may already
     * be someone else's, so they are lost, and it joins again.
     */
    FENCED,
    /** Anything else: the membership ends and {@code poll} raises {@link #exception}. */
    FATAL;

    static ClassicErrorKind of(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> COORDINATOR_MOVED;
            case REBALANCE_IN_PROGRESS -> REBALANCING;
            case MEMBER_ID_REQUIRED -> MEMBER_ID_REQUIRED;
            case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> FENCED;
            default -> error.isRetriable() ? RETRIABLE : FATAL;
        };
    }

    /**
     * The exception a {@link #FATAL} error ends the membership with, as {@code KafkaConsumer} raises it:
     * {@code FencedInstanceIdException} for a static member another one replaced,
     * {@code InconsistentGroupProtocolException}, {@code GroupMaxSizeReachedException}, ...
     *
     * @param message the broker's error message, null or empty if it sent none
     */
    static RuntimeException exception(ErrorCode error, String message, String groupId) {
        if (error == ErrorCode.GROUP_AUTHORIZATION_FAILED) {
            return GroupAuthorizationException.forGroupId(groupId);
        }
        return message == null || message.isEmpty() ? error.exception() : error.exception(message);
    }
}
