package io.fastleader.clients.consumer;

import org.apache.kafka.common.protocol.Errors;

/** What a consumer does about a partition's error in a Fetch (or OffsetsForLeaderEpoch) answer; classified once, here. */
enum FetchErrorKind {

    /** Records, or nothing new yet. */
    NONE,
    /** The broker no longer leads the partition at the client's epoch; the answer may name the new leader (KIP-951). */
    LEADER_MOVED,
    /** The client's view of the partition is stale: refresh its metadata, then retry after backoff. */
    STALE_METADATA,
    /** The broker is behind or briefly unable: retry after backoff, metadata is fine. */
    RETRY_LATER,
    /** No records at the position. */
    OFFSET_OUT_OF_RANGE,
    /** Retrying cannot help: raised to the application. */
    FATAL;

    static FetchErrorKind of(Errors error) {
        return switch (error) {
            case NONE -> NONE;
            case NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH -> LEADER_MOVED;
            case UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, INCONSISTENT_TOPIC_ID, LEADER_NOT_AVAILABLE,
                 REPLICA_NOT_AVAILABLE, KAFKA_STORAGE_ERROR -> STALE_METADATA;
            case UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE, REQUEST_TIMED_OUT, NETWORK_EXCEPTION, UNKNOWN_SERVER_ERROR,
                 CORRUPT_MESSAGE, NOT_ENOUGH_REPLICAS -> RETRY_LATER;
            case OFFSET_OUT_OF_RANGE -> OFFSET_OUT_OF_RANGE;
            default -> error.exception() instanceof org.apache.kafka.common.errors.RetriableException ? RETRY_LATER : FATAL;
        };
    }
}
