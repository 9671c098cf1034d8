package io.fastleader.clients.consumer.group;

import java.util.Locale;
import java.util.Set;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

import io.fastleader.protocol.ErrorCode;

/**
 * What {@link GroupOffsets} does with an error from FindCoordinator, OffsetCommit or OffsetFetch,
 * as Kafka's {@code ConsumerCoordinator} does. Every error code is classified here, once, and
 * turned into the exception the caller sees here too.
 */
enum GroupErrorKind {
    /** No error. */
    NONE,
    /**
     * The broker asked is not the group's coordinator, or cannot act as one now (moved, its
     * offsets partition offline, a request that timed out there): find the coordinator again
     * after backoff.
     */
    COORDINATOR_MOVED,
    /**
     * The coordinator will answer later: it is loading the group's offsets, a commit names a
     * partition it does not know yet, a fetch that requires stable offsets meets a pending
     * transactional commit. Retry after backoff.
     */
    RETRIABLE,
    /** Anything else: the call fails with {@link #exception}. */
    FATAL;

    /**
     * The kind of an OffsetCommit error, for the whole commit or one partition, by a group member
     * ({@code member}) or from outside the group. Retriable errors other than the coordinator's,
     * such as a partition the coordinator does not know yet, are retried, as Kafka's consumer does;
     * so is a member's call at a stale epoch: its next heartbeat may already have brought the
     * epoch the coordinator expects, and a retry sends that one.
     */
    static GroupErrorKind ofCommit(ErrorCode error, boolean member) {
        return switch (error) {
            case NONE -> NONE;
            case COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, REQUEST_TIMED_OUT -> COORDINATOR_MOVED;
            case STALE_MEMBER_EPOCH -> member ? RETRIABLE : FATAL;
            default -> retriableOrFatal(error);
        };
    }

    /**
     * The kind of an OffsetFetch error, for the group or one partition: as a commit's, except that
     * Kafka's consumer gives up on a partition that does not exist instead of waiting for it.
     * A member's OffsetFetch carries its id and epoch (v9+), checked as a commit's are.
     */
    static GroupErrorKind ofFetch(ErrorCode error, boolean member) {
        return error == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? FATAL : ofCommit(error, member);
    }

    private static GroupErrorKind retriableOrFatal(ErrorCode error) {
        return error.isRetriable() ? RETRIABLE : FATAL;
    }

    /**
     * The exception a call fails with for a {@link #FATAL} error, as {@code KafkaConsumer} raises it.
     *
     * @param message     the broker's error message, null or empty if it sent none
     * @param partition   the partition the error is for, null for a group-level error
     * @param unauthorized every topic the same response refused for authorization
     */
    static RuntimeException exception(ErrorCode error, String message, String groupId, TopicPartition partition,
                                      Set<String> unauthorized) {
        return switch (error) {
            case GROUP_AUTHORIZATION_FAILED -> GroupAuthorizationException.forGroupId(groupId);
            case TOPIC_AUTHORIZATION_FAILED -> new TopicAuthorizationException(unauthorized);
            case REBALANCE_IN_PROGRESS -> new RebalanceInProgressException("Group " + groupId + " is rebalancing");
            case UNKNOWN_TOPIC_OR_PARTITION -> new KafkaException("Topic or partition " + partition + " does not exist");
            default -> message == null || message.isEmpty() ? error.exception() : error.exception(message);
        };
    }

    /**
     * As {@link #exception}, for an OffsetCommit: a commit refused because the coordinator does not
     * count the committer as a member at that epoch fails with {@link CommitFailedException} and
     * {@code KafkaConsumer} 4.3.1's message, whether the commit carried an epoch or not. (An
     * OffsetFetch refused so fails with the error's own exception, as {@code KafkaConsumer}'s does.)
     */
    static RuntimeException commitException(ErrorCode error, String message, String groupId, TopicPartition partition,
                                            Set<String> unauthorized) {
        return switch (error) {
            case UNKNOWN_MEMBER_ID -> new CommitFailedException("OffsetCommit failed with unknown member ID. " + error.message());
            case STALE_MEMBER_EPOCH -> new CommitFailedException("OffsetCommit failed with stale member epoch. " + error.message());
            // KafkaConsumer raises a plain KafkaException("Unexpected error in commit: ...") for these; the member is
            // no longer one at that epoch, which is what CommitFailedException tells an application.
            case ILLEGAL_GENERATION, FENCED_MEMBER_EPOCH -> new CommitFailedException("OffsetCommit failed with "
                    + error.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ". " + error.message());
            default -> exception(error, message, groupId, partition, unauthorized);
        };
    }
}
