package io.fastleader.clients.consumer;

import java.util.Optional;

/**
 * What a partition's leader answered to a ListOffsets lookup.
 *
 * @param offset      the offset found; for a lookup by timestamp, -1 when no record has that
 *                    timestamp or a later one (the consumer then reports no offset, as
 *                    {@code KafkaConsumer.offsetsForTimes} returns null)
 * @param timestamp   the timestamp of the record at {@code offset}; -1 for the earliest and latest
 *                    offsets, and when nothing was found
 * @param leaderEpoch the leader epoch of the record at {@code offset}, when the broker knows it
 */
public record ListedOffset(long offset, long timestamp, Optional<Integer> leaderEpoch) {

    /** The offset of a lookup by timestamp that found no record at or after the timestamp. */
    public static final long NOT_FOUND = -1;

    public ListedOffset {
        if (offset < NOT_FOUND) {
            throw new IllegalArgumentException("offset must be -1 (none found) or more, not " + offset);
        }
        leaderEpoch = leaderEpoch.filter(epoch -> epoch >= 0);
    }

    /** Whether a record was found: false only for a lookup by timestamp past the last record. */
    public boolean found() {
        return offset != NOT_FOUND;
    }
}
