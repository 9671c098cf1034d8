package io.fastleader.clients.consumer;

import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;

import io.fastleader.clients.metadata.LeaderMoves;
import io.fastleader.protocol.ErrorCode;

/** What a consumer does about a partition's error in a Fetch (or OffsetsForLeaderEpoch) answer; classified once, here. */
enum FetchErrorKind {

    /** Records, or nothing new yet. */
    NONE,
    /**
     * The client's view of the partition's leadership is wrong ({@link LeaderMoves#isLeadershipError}):
     * the answer may name the new leader (KIP-951), else its metadata is refreshed; retry as
     * {@link io.fastleader.clients.metadata.EpochBackoff} says.
     */
    LEADER_MOVED,
    /** The broker is behind or briefly unable: retry after backoff, metadata is fine. */
    RETRY_LATER,
    /** No records at the position. */
    OFFSET_OUT_OF_RANGE,
    /** Retrying cannot help: raised to the application. */
    FATAL;

    static FetchErrorKind of(ErrorCode error) {
        if (error == ErrorCode.NONE) {
            return NONE;
        }
        if (error == ErrorCode.OFFSET_OUT_OF_RANGE) {
            return OFFSET_OUT_OF_RANGE;
        }
        if (LeaderMoves.isLeadershipError(error)) {
            return LEADER_MOVED;
        }
        // An unknown server error is as likely to pass as a retriable one.
        return error == ErrorCode.UNKNOWN_SERVER_ERROR || error.isRetriable() ? RETRY_LATER : FATAL;
    }

    /**
     * What a poll raises for a partition's {@link #FATAL} {@code error}: a topic authorization failure
     * names the topic, as KafkaConsumer's does; any other says which partition failed.
     */
    static RuntimeException exception(ErrorCode error, TopicPartition partition) {
        if (error == ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
            return new TopicAuthorizationException(Set.of(partition.topic()));
        }
        return error.exception("Fetching " + partition + " failed: " + error.message());
    }
}
