package io.fastleader.clients.consumer;

/**
 * Where a leader's log ends the newest epoch no newer than the one asked about: a Fetch
 * response's {@code DivergingEpoch}, or an OffsetsForLeaderEpoch answer.
 *
 * @param epoch     that epoch; -1 if the leader has no such epoch
 * @param endOffset the offset after its last record; -1 if the leader has no such epoch
 */
record EpochEndOffset(int epoch, long endOffset) {

    /** Whether the leader knows the epoch at all. */
    boolean isDefined() {
        return epoch >= 0 && endOffset >= 0;
    }

    /** Whether the leader's log ends this epoch before {@code position}: what was read past it is gone. */
    boolean truncates(FetchPosition position) {
        return isDefined() && endOffset < position.offset();
    }
}
