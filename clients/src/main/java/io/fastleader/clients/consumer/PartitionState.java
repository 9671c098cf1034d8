package io.fastleader.clients.consumer;

import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.EpochBackoff;

/**
 * One assigned partition's consumption state, a small state machine driven by the consumer's
 * thread with the clock passed in:
 *
 * <pre>
 *  INITIALIZING --committed offset--> FETCHING
 *  INITIALIZING --none committed--> AWAIT_RESET --ListOffsets--> FETCHING
 *  FETCHING --leader epoch advanced, no LastFetchedEpoch--> AWAIT_VALIDATION --OffsetsForLeaderEpoch--> FETCHING
 *  FETCHING --out of range / truncated, auto.offset.reset=none--> STOPPED --seek--> FETCHING
 * </pre>
 *
 * A partition refused for a leadership reason backs off as {@link EpochBackoff} says, and is
 * fetchable again when that backoff is over: by time, or at once when the leader epoch it was
 * refused at is superseded (an accepted hint or a Metadata refresh; hints enabled). A failed
 * lookup of its position (committed offset, reset, validation) backs it off the same way, in the
 * one {@link #backoff}: the phases never overlap, so one request of the partition is waiting at a time.
 */
final class PartitionState {

    enum Phase {
        /** No position yet: the committed offset, or else {@code auto.offset.reset}, gives one. */
        INITIALIZING,
        /** The position is to be looked up with ListOffsets. */
        AWAIT_RESET,
        /** The position is to be checked against the leader's log with OffsetsForLeaderEpoch. */
        AWAIT_VALIDATION,
        /** The position is known and fetched from. */
        FETCHING,
        /** The position is invalid and {@code auto.offset.reset=none}: only a seek moves on. */
        STOPPED
    }

    private static final Logger LOG = LoggerFactory.getLogger(PartitionState.class);
    private static final int NO_EPOCH = -1;

    private final TopicPartition partition;
    private Phase phase = Phase.INITIALIZING;
    private ResetStrategy pendingReset;
    private FetchPosition position;
    private boolean paused;
    private int leaderEpochSeen = NO_EPOCH;
    private int moves;
    private EpochBackoff.State backoff = EpochBackoff.State.NONE;
    private long highWatermark = -1;
    private long lastStableOffset = -1;
    private long logStartOffset = -1;

    PartitionState(TopicPartition partition) {
        this.partition = partition;
    }

    TopicPartition partition() {
        return partition;
    }

    Phase phase() {
        return phase;
    }

    /** The position, or null before one is known. */
    FetchPosition position() {
        return position;
    }

    /** The strategy of a pending ListOffsets lookup ({@link Phase#AWAIT_RESET}). */
    ResetStrategy pendingReset() {
        return pendingReset;
    }

    boolean isPaused() {
        return paused;
    }

    void pause() {
        paused = true;
    }

    void resume() {
        paused = false;
    }

    /**
     * How many times the position was moved other than by consuming (seeks, resets, truncation):
     * records fetched for an older count are not to be handed out, even at the same offset.
     */
    int moves() {
        return moves;
    }

    /** The application moved the position; whatever was pending for the old one is moot. */
    void seek(FetchPosition newPosition) {
        moves++;
        position = newPosition;
        phase = Phase.FETCHING;
        pendingReset = null;
        clearBackoff();
    }

    /**
     * The position is to be looked up: {@code seekToBeginning}, {@code seekToEnd}, or a reset. A
     * new lookup, which nothing refused yet: a backoff earned before is moot, as after a seek.
     */
    void requestReset(ResetStrategy strategy) {
        moves++;
        pendingReset = strategy;
        phase = Phase.AWAIT_RESET;
        clearBackoff();
    }

    /** The initial lookup found no committed offset: reset per {@code auto.offset.reset}, or stop. */
    void noCommittedOffset(ResetStrategy strategy) {
        if (strategy.resets()) {
            requestReset(strategy);
        } else {
            phase = Phase.STOPPED;
            throw new NoOffsetForPartitionException(partition);
        }
    }

    /** A ListOffsets answer for a reset still pending with the same strategy. */
    void resetTo(FetchPosition resetPosition) {
        if (phase == Phase.AWAIT_RESET) {
            seek(resetPosition);
        }
    }

    /**
     * Whether the partition goes into a Fetch now.
     *
     * @param leaderEpoch the partition's leader epoch as the client knows it now
     */
    boolean isFetchable(int leaderEpoch, long nowMs) {
        return phase == Phase.FETCHING && !paused && backoff.isOver(leaderEpoch, nowMs);
    }

    /**
     * Its backoff since the leader last refused it or answered from behind, or since a lookup of its
     * position last failed; {@link EpochBackoff.State#NONE} if none.
     */
    EpochBackoff.State backoff() {
        return backoff;
    }

    /**
     * Holds the partition back as {@code state}: the leader refused it (not the leader, epoch fenced
     * or unknown, replica not available, broken connection), answered from behind the position, or
     * a lookup of its position failed.
     */
    void backOff(EpochBackoff.State state) {
        backoff = state;
    }

    /**
     * Notes the leader epoch a Fetch is about to go out at.
     *
     * @return whether it advanced since the previous fetch while the position carries an epoch:
     *         the position was read under an older leader and must be validated, by the Fetch's
     *         {@code LastFetchedEpoch} or else by {@link #awaitValidation()}
     */
    boolean leaderEpochAdvanced(int leaderEpoch) {
        boolean advanced = leaderEpochSeen != NO_EPOCH && leaderEpoch > leaderEpochSeen;
        leaderEpochSeen = Math.max(leaderEpochSeen, leaderEpoch);
        return advanced && position.offsetEpoch().isPresent();
    }

    /** The position must be checked with OffsetsForLeaderEpoch before the next fetch. */
    void awaitValidation() {
        if (phase == Phase.FETCHING) {
            phase = Phase.AWAIT_VALIDATION;
        }
    }

    /** A Fetch answered with data or without error: the leader is fine. */
    void fetched(long highWatermark, long lastStableOffset, long logStartOffset) {
        this.highWatermark = highWatermark;
        this.lastStableOffset = lastStableOffset;
        this.logStartOffset = logStartOffset;
        clearBackoff();
    }

    /**
     * A ListOffsets lookup of the log end answered {@code endOffset}: the high watermark, or under
     * {@code read_committed} the last stable offset, as the next Fetch would report it.
     */
    void endListed(long endOffset, boolean readCommitted) {
        if (readCommitted) {
            lastStableOffset = endOffset;
        } else {
            highWatermark = endOffset;
        }
    }

    /** The application was handed records up to {@code next}; the next fetch starts there. */
    void advance(FetchPosition next) {
        if (phase == Phase.FETCHING) {
            position = next;
        }
    }

    /**
     * The leader's answer to where the position's epoch ends (a Fetch {@code DivergingEpoch} or an
     * OffsetsForLeaderEpoch answer), judged as {@code KafkaConsumer} judges it: the log was
     * truncated under the consumer when the epoch ends before the position. Then the position
     * moves back to the first offset known to diverge (any reset strategy) or the partition stops
     * with a {@link LogTruncationException} ({@code none}). An epoch the leader no longer has resets
     * the position, or stops with a {@link NoOffsetForPartitionException}.
     *
     * @throws LogTruncationException        truncated and {@code auto.offset.reset=none}
     * @throws NoOffsetForPartitionException epoch unknown to the leader and {@code auto.offset.reset=none}
     */
    void epochEnds(EpochEndOffset end, ResetStrategy strategy) {
        if (phase != Phase.FETCHING && phase != Phase.AWAIT_VALIDATION) {
            return;
        }
        if (!end.isDefined()) {
            if (strategy.resets()) {
                requestReset(strategy);
                return;
            }
            phase = Phase.STOPPED;
            throw new NoOffsetForPartitionException(partition);
        }
        if (end.truncates(position)) {
            FetchPosition diverged = new FetchPosition(end.endOffset(), Optional.of(end.epoch()));
            if (!strategy.resets()) {
                phase = Phase.STOPPED;
                throw new LogTruncationException("Truncation detected for partition " + partition + " at offset "
                        + position.offset() + ": the leader's log ends epoch " + end.epoch() + " at offset " + end.endOffset(),
                        Map.of(partition, position.offset()),
                        Map.of(partition, new OffsetAndMetadata(end.endOffset(), Optional.of(end.epoch()), null)));
            }
            LOG.info("Truncation detected for partition {} at offset {}; resetting to {}, the first offset known to diverge",
                    partition, position.offset(), diverged);
            seek(diverged);
            return;
        }
        // Not truncated; adopting the leader's epoch keeps the next fetch from diverging again.
        position = new FetchPosition(position.offset(), Optional.of(end.epoch()));
        phase = Phase.FETCHING;
    }

    /**
     * The leader has no records at the position.
     *
     * @throws OffsetOutOfRangeException when {@code auto.offset.reset=none}
     */
    void outOfRange(long fetchOffset, ResetStrategy strategy) {
        if (phase != Phase.FETCHING || position.offset() != fetchOffset) {
            return;
        }
        if (strategy.resets()) {
            LOG.info("Fetch position {} is out of range for partition {}; resetting per auto.offset.reset", fetchOffset, partition);
            requestReset(strategy);
            return;
        }
        phase = Phase.STOPPED;
        throw new OffsetOutOfRangeException("Fetch position " + fetchOffset + " is out of range for partition " + partition
                + " and auto.offset.reset=none", Map.of(partition, fetchOffset));
    }

    /** How far the position is behind the high watermark (or, read_committed, the last stable offset). */
    Optional<Long> lag(boolean readCommitted) {
        long end = readCommitted ? lastStableOffset : highWatermark;
        return position == null || end < 0 ? Optional.empty() : Optional.of(end - position.offset());
    }

    /** How far the position is past the log start offset of the partition's latest Fetch. */
    Optional<Long> lead() {
        return position == null || logStartOffset < 0 ? Optional.empty() : Optional.of(position.offset() - logStartOffset);
    }

    private void clearBackoff() {
        backoff = EpochBackoff.State.NONE;
    }
}
