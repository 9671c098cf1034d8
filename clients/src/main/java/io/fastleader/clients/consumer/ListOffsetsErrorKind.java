package io.fastleader.clients.consumer;

import io.fastleader.clients.metadata.LeaderMoves;
import io.fastleader.protocol.ErrorCode;

/**
 * What {@link OffsetLookup} does with a partition's answer to a ListOffsets request. Every error
 * code is classified here, once, and nowhere else.
 */
enum ListOffsetsErrorKind {
    /** Answered: keep the offset (-1 from a lookup by timestamp means no record at or after it). */
    FOUND,
    /**
     * The broker cannot search the partition by timestamp (its message format predates 0.10).
     * Kafka's consumer treats this as no record found, so {@code offsetsForTimes} gives null.
     */
    NOT_FOUND,
    /**
     * The client's view of the partition's leadership is wrong ({@link LeaderMoves#isLeadershipError}):
     * refresh the topic, then retry after backoff.
     */
    LEADER_MOVED,
    /**
     * The leader cannot answer yet (a new leader whose high watermark has not caught up, a broker
     * behind the epoch we sent): retry after backoff.
     */
    RETRIABLE,
    /** Anything else (authorization, an invalid request, ...): the lookup fails with the error. */
    FATAL;

    /** The kind of a partition error code. */
    static ListOffsetsErrorKind of(ErrorCode error) {
        if (error == ErrorCode.NONE) {
            return FOUND;
        }
        if (error == ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT) {
            return NOT_FOUND;
        }
        if (LeaderMoves.isLeadershipError(error)) {
            return LEADER_MOVED;
        }
        return error.isRetriable() ? RETRIABLE : FATAL;
    }
}
