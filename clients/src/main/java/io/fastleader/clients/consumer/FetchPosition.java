package io.fastleader.clients.consumer;

import java.util.Optional;

/**
 * Where a partition's consumption stands.
 *
 * @param offset      the offset of the next record to fetch
 * @param offsetEpoch the leader epoch of the record before it, if known: sent as the Fetch
 *                    request's {@code LastFetchedEpoch}, so the leader can say whether its log
 *                    still holds what the consumer has read
 */
record FetchPosition(long offset, Optional<Integer> offsetEpoch) {

    FetchPosition {
        if (offset < 0) {
            throw new IllegalArgumentException("a position's offset must not be negative, not " + offset);
        }
    }

    /** A position the application chose (seek) or a committed offset without an epoch. */
    static FetchPosition at(long offset) {
        return new FetchPosition(offset, Optional.empty());
    }

    /** {@code LastFetchedEpoch} as the Fetch request carries it: -1 when unknown. */
    int lastFetchedEpoch() {
        return offsetEpoch.orElse(-1);
    }
}
