package io.fastleader.clients.metadata;

/**
 * What a leader's refusal tells about the refusing broker itself, for the retry's backoff
 * ({@link EpochBackoff#refused}).
 *
 * @param namedEpoch  the leader epoch the broker named in its answer ({@code CurrentLeader}), -1 when it named none
 * @param roundTripMs how long the refused attempt took, from the request's send to its answer
 */
public record Refusal(int namedEpoch, long roundTripMs) {

    /** A failure that says nothing about the broker: a lost connection, an error without a leader. */
    public static final Refusal NONE = new Refusal(-1, 0);
}
