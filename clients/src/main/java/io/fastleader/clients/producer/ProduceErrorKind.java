package io.fastleader.clients.producer;

import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

import io.fastleader.clients.metadata.LeaderMoves;
import io.fastleader.protocol.ErrorCode;

/**
 * What the sender does with a partition's answer to a Produce request. Every error code is
 * classified here, once, and nowhere else.
 */
public enum ProduceErrorKind {
    /** Written: complete the batch. A duplicate sequence means an earlier attempt was written. */
    WRITTEN,
    /**
     * The client's view of the partition's leadership is wrong ({@link LeaderMoves#isLeadershipError}):
     * retry, to the leader a hint names at once if it advances the epoch, else after a Metadata refresh.
     */
    LEADER_MOVED,
    /**
     * A transient broker-side failure (timeout, not enough replicas, a leader that has not yet
     * caught up with the epoch the client knows): retry after backoff.
     */
    RETRIABLE,
    /**
     * The broker expected another sequence number. Behind an earlier batch of the partition that is
     * not written yet (refused, or in flight ahead of it), the batch is resent after that one, as it
     * is; otherwise (the broker lost the producer's state, or wrote later batches first) as
     * {@link #SEQUENCE_LOST}.
     */
    OUT_OF_SEQUENCE,
    /** The idempotent producer's identity is no longer valid on the broker: bump the producer epoch and resend. */
    SEQUENCE_LOST,
    /**
     * The batch is too large for the broker (MESSAGE_TOO_LARGE): split it in two, or fail it with
     * RecordTooLargeException if it holds a single record.
     */
    TOO_LARGE,
    /** Anything else (authorization, invalid record, ...): fail the batch's records with the error. */
    FATAL;

    /** The kind of a partition error code. */
    public static ProduceErrorKind of(ErrorCode error) {
        switch (error) {
            case NONE:
            case DUPLICATE_SEQUENCE_NUMBER:
                return WRITTEN;
            case OUT_OF_ORDER_SEQUENCE_NUMBER:
            case UNKNOWN_PRODUCER_ID:
                return OUT_OF_SEQUENCE;
            case INVALID_PRODUCER_EPOCH:
                return SEQUENCE_LOST;
            case MESSAGE_TOO_LARGE:
                return TOO_LARGE;
            default:
                break;
        }
        if (LeaderMoves.isLeadershipError(error)) {
            return LEADER_MOVED;
        }
        return error.isRetriable() ? RETRIABLE : FATAL;
    }

    /**
     * The exception a batch of {@code partition} fails with for {@code error}, as KafkaProducer's
     * sender makes it: a topic authorization failure names the topic, a cluster authorization failure
     * says the producer may not write idempotently, any other carries the broker's message.
     */
    public static RuntimeException exception(ErrorCode error, TopicPartition partition, String brokerMessage) {
        return switch (error) {
            case TOPIC_AUTHORIZATION_FAILED -> new TopicAuthorizationException(Set.of(partition.topic()));
            case CLUSTER_AUTHORIZATION_FAILED -> new ClusterAuthorizationException("The producer is not authorized to do idempotent sends");
            default -> error.exception(brokerMessage);
        };
    }
}
