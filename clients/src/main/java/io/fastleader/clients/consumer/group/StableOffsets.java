package io.fastleader.clients.consumer.group;

/**
 * Whether a fetch of committed offsets asks the coordinator for stable ones ({@code RequireStable},
 * OffsetFetch v7, Kafka 2.5): refused, retriably, for partitions with a transactional commit still
 * pending, as {@code KafkaConsumer} asks under {@code isolation.level=read_committed}.
 */
public enum StableOffsets {
    /** Not asked for: {@code read_uncommitted}. */
    NOT_ASKED,
    /**
     * Asked for; a broker too old to be asked fails the fetch with {@code UnsupportedVersionException}
     * ({@code internal.throw.on.fetch.stable.offset.unsupported=true}).
     */
    ASKED,
    /**
     * Asked of a broker that can be asked, not of an older one, which is asked for its committed
     * offsets as they are: {@code KafkaConsumer}'s default under {@code read_committed}.
     */
    ASKED_WHERE_SPOKEN
}
