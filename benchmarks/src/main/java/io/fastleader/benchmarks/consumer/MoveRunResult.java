package io.fastleader.benchmarks.consumer;

import java.util.List;
import java.util.Map;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.Latency;

/**
 * What one run of {@link LeaderMoveRun} measured.
 *
 * @param windows  the quiet window first, then one per move
 * @param producer the stream's producer
 * @param variants per consumer variant, in the order they were asked for
 */
record MoveRunResult(List<Window> windows, ProducerFigures producer, List<VariantResult> variants) {

    /** The result of {@code variant}, or null if it did not run. */
    VariantResult variant(ClientVariant variant) {
        return variants.stream().filter(v -> v.variant().equals(variant.label())).findFirst().orElse(null);
    }

    /**
     * A stretch of the measured time.
     *
     * @param name             {@code quiet} or {@code move N}
     * @param startEpochMillis when it opened (wall clock), the move's start for a move window
     * @param lengthMillis     how long it lasted
     * @param rotationMillis   for a move: from asking for the rotation until every partition had its new leader
     * @param processCores     CPU time of this JVM (brokers, producer and consumers) over the window ÷ its length
     */
    record Window(String name, long startEpochMillis, long lengthMillis, Long rotationMillis, double processCores) {
    }

    /**
     * @param sent       records given to {@code send}
     * @param acked      records acknowledged
     * @param failed     records that failed
     * @param firstError the first failure, null if none
     * @param sendToAck  {@code send} to the acknowledgement's callback, by the window a record was sent in, keyed as
     *                   {@link VariantResult#endToEnd()}: the part of every consumer's end-to-end latency that comes
     *                   before a consumer can see the record
     */
    record ProducerFigures(long sent, long acked, long failed, String firstError, Map<String, Latency> sendToAck) {
    }

    /**
     * One consumer's figures.
     *
     * @param variant        its label
     * @param clientId       its {@code client.id}
     * @param records        what it consumed against what was acknowledged
     * @param endToEnd       CreateTime-to-poll latency: {@code moves} (every record created in a move window),
     *                       {@code quiet}, and {@code move 1}, {@code move 2}, ...
     * @param ackToPoll      producer acknowledgement to poll (a record polled before its acknowledgement
     *                       arrived counts as 0), keyed as {@code endToEnd}
     * @param polledBeforeAck of the records created in the move windows, how many poll returned before the
     *                       producer had their acknowledgement
     * @param slowestAckToPoll the records created in the move windows that waited longest from acknowledgement to poll
     * @param requests       requests sent in each window, and per move less the quiet window's
     * @param countersAtEnd  every counter ({@link ConsumerRun#counters()}) at the end of the run
     * @param pollErrors     polls that threw
     * @param firstPollError the first of those, null if none
     */
    record VariantResult(String variant, String clientId, RecordCheck records, Map<String, Latency> endToEnd,
                         Map<String, Latency> ackToPoll, long polledBeforeAck, List<SlowRecord> slowestAckToPoll, Requests requests,
                         Map<String, Double> countersAtEnd, long pollErrors, String firstPollError) {
    }

    /**
     * One record, for naming where a consumer was slow.
     *
     * @param record             its number
     * @param position           {@code partition@offset}
     * @param window             the window it was created in
     * @param createdAfterStartMs its CreateTime less the window's start (for a move: ms after the rotation was asked for)
     * @param endToEndMs         CreateTime to poll
     * @param ackToPollMs        the producer's acknowledgement to poll
     */
    record SlowRecord(long record, String position, String window, long createdAfterStartMs, long endToEndMs, double ackToPollMs) {
    }

    /**
     * Records consumed against records acknowledged.
     *
     * @param acknowledged           records the producer had acknowledged
     * @param consumed               records poll returned, duplicates included
     * @param missing                acknowledged records poll never returned
     * @param duplicated             returns of a record beyond its first
     * @param unacknowledgedConsumed records poll returned that the producer had not had acknowledged
     * @param foreign                records whose key is not a record number (none are produced)
     * @param missingExamples        the first missing records, as {@code number partition@offset}
     * @param duplicatedExamples     the first duplicated records, as {@code number partition@offset ×times}
     */
    record RecordCheck(long acknowledged, long consumed, long missing, long duplicated, long unacknowledgedConsumed,
                       long foreign, List<String> missingExamples, List<String> duplicatedExamples) {

        /** Whether every acknowledged record was consumed exactly once, and nothing else was. */
        public boolean exact() {
            return missing == 0 && duplicated == 0 && unacknowledgedConsumed == 0 && foreign == 0 && consumed == acknowledged;
        }
    }

    /**
     * Requests by API.
     *
     * @param perWindow  sent in each window (the quiet one first), as the latencies are cut
     * @param perMove    each move's counted span against the quiet span before it
     * @param meanExcess the mean of the moves' {@code excess}: what one leader move costs
     */
    record Requests(List<Map<String, Double>> perWindow, List<MoveRequests> perMove, Map<String, Double> meanExcess) {
    }

    /**
     * One move's requests.
     *
     * @param quietMillis   length of the quiet span: the end of the window before the move, after the previous move's
     *                      counted span (the second half of the quiet window for the first move)
     * @param countedMillis length of the counted span: from the move's start until half its window has passed and at
     *                      least 2 s after its rotation completed
     * @param quiet         sent in the quiet span
     * @param sent          sent in the counted span
     * @param excess        {@code sent} less {@code quiet} (scaled by the spans' lengths when they differ)
     */
    record MoveRequests(long quietMillis, long countedMillis, Map<String, Double> quiet, Map<String, Double> sent,
                        Map<String, Double> excess) {
    }
}
