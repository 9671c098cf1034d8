package io.fastleader.clients.producer;

import java.util.ArrayList;
import java.util.List;

/**
 * Where one batch spent its life: consecutive stretches of {@link BatchPhase}s from its creation to
 * its end, on the producer's millisecond clock. The stretches tile the batch's life with no gap and
 * no overlap, so their durations add up to its time from creation to end; {@link SlowBatchLog}
 * prints them for a batch that took long.
 *
 * <p>The current phase is replaced whenever the sender learns what the batch is doing now. A
 * stretch is kept as it ends, with two simplifications that lose nothing the sum needs: a stretch
 * that lasted no time is dropped, unless it ended an attempt (an instant refusal is worth seeing),
 * and a stretch of the same phase, at the same node, as the one kept just before it is added to
 * that one, unless that one ended an attempt (each attempt stays an entry of its own). So a batch
 * that waits for Metadata over many passes of the sender shows one {@code metadata} stretch.
 *
 * <p>Costs a few fields per batch and one small object per change of phase, never anything per
 * record. Written by the sender's thread only (a batch made by an append is handed to it through
 * its partition's queue, under the queue's monitor); not thread-safe.
 *
 * <p>Only the slow-batch log reads timelines, so a producer whose log is off gives its batches the
 * {@linkplain #untracked() untracked} timeline, which notes nothing and costs nothing.
 */
sealed class BatchTimeline permits BatchTimeline.Untracked {

    /** The node of a phase that waits for no particular node. */
    static final int NO_NODE = -1;
    /** The leader epoch of a phase not sent at one. */
    static final int NO_EPOCH = -1;
    /** The outcome of an attempt whose connection failed, or could not be made. */
    static final String DISCONNECTED = "DISCONNECTED";
    /** The outcome of an attempt that got no answer within {@code request.timeout.ms}. */
    static final String TIMEOUT = "TIMEOUT";
    /** The outcome of an attempt whose Produce response did not mention the batch's partition. */
    static final String LEFT_OUT = "LEFT_OUT";

    private static final BatchTimeline UNTRACKED = new Untracked();

    private final List<Stretch> stretches;
    private BatchPhase phase;
    private int node;
    private int leaderEpoch;
    private long sinceMs;

    /**
     * One stretch of a batch's life.
     *
     * @param node        the node it was sent or connecting to, {@link #NO_NODE} for the waiting phases
     * @param leaderEpoch the partition's leader epoch the client believed when it sent the batch
     *                    ({@link BatchPhase#IN_FLIGHT}), else {@link #NO_EPOCH}
     * @param outcome     how an attempt ended: the broker's error code name ({@code NONE} when written),
     *                    {@link #DISCONNECTED}, {@link #TIMEOUT} or {@link #LEFT_OUT}; null for a stretch that
     *                    ended no attempt
     */
    record Stretch(BatchPhase phase, int node, int leaderEpoch, long durationMs, String outcome) {

        private boolean continuedBy(BatchPhase nextPhase, int nextNode) {
            return outcome == null && phase == nextPhase && node == nextNode;
        }
    }

    /** A batch created at {@code createdMs}, queued from then on. */
    BatchTimeline(long createdMs) {
        this(new ArrayList<>(4));
        open(BatchPhase.QUEUED, NO_NODE, NO_EPOCH, createdMs);
    }

    private BatchTimeline(List<Stretch> stretches) {
        this.stretches = stretches;
    }

    /** The timeline shared by every batch of a producer that keeps none: it notes nothing and has no stretches. */
    static BatchTimeline untracked() {
        return UNTRACKED;
    }

    /**
     * From {@code nowMs} on the batch waits in {@code phase}, which is anything but
     * {@link BatchPhase#IN_FLIGHT}; nothing changes while it already does.
     *
     * @param node the node it is connecting to for {@link BatchPhase#CONNECTING}, else {@link #NO_NODE}
     */
    void waiting(BatchPhase phase, int node, long nowMs) {
        if (phase != this.phase || node != this.node) {
            enter(phase, node, NO_EPOCH, nowMs);
        }
    }

    /** From {@code nowMs} on a request carrying the batch is on its way to {@code node}, sent at {@code leaderEpoch}. */
    void sent(int node, int leaderEpoch, long nowMs) {
        enter(BatchPhase.IN_FLIGHT, node, leaderEpoch, nowMs);
    }

    /** Whether the batch's request waits for its connection to {@code node}. */
    boolean isConnectingTo(int node) {
        return phase == BatchPhase.CONNECTING && this.node == node;
    }

    /**
     * The attempt in flight, or still connecting, ended at {@code nowMs} with {@code outcome}; the
     * batch is queued until the sender looks at it again or it ends.
     */
    void answered(String outcome, long nowMs) {
        close(outcome, nowMs);
        open(BatchPhase.QUEUED, NO_NODE, NO_EPOCH, nowMs);
    }

    /** The batch ended (written, failed or expired) at {@code nowMs}: its last stretch is closed. Called once. */
    void ended(long nowMs) {
        close(null, nowMs);
    }

    /**
     * A copy for a piece of this batch split from it ({@link ProducerBatch#split}): the piece's
     * records lived this batch's life so far, and go on from its current phase.
     */
    BatchTimeline copy() {
        BatchTimeline piece = new BatchTimeline(new ArrayList<>(stretches));
        piece.open(phase, node, leaderEpoch, sinceMs);
        return piece;
    }

    /** The stretches closed so far, in the order they happened; once the batch {@link #ended}, its whole life. */
    List<Stretch> stretches() {
        return List.copyOf(stretches);
    }

    private void enter(BatchPhase phase, int node, int leaderEpoch, long nowMs) {
        close(null, nowMs);
        open(phase, node, leaderEpoch, nowMs);
    }

    private void open(BatchPhase phase, int node, int leaderEpoch, long nowMs) {
        this.phase = phase;
        this.node = node;
        this.leaderEpoch = leaderEpoch;
        this.sinceMs = nowMs;
    }

    private void close(String outcome, long nowMs) {
        long durationMs = nowMs - sinceMs;
        if (durationMs == 0 && outcome == null) {
            return;
        }
        int last = stretches.size() - 1;
        if (last >= 0 && stretches.get(last).continuedBy(phase, node)) {
            Stretch before = stretches.get(last);
            stretches.set(last, new Stretch(phase, node, leaderEpoch, before.durationMs() + durationMs, outcome));
        } else {
            stretches.add(new Stretch(phase, node, leaderEpoch, durationMs, outcome));
        }
    }

    /** Notes nothing: the timeline of a batch whose producer's slow-batch log is off. */
    static final class Untracked extends BatchTimeline {

        private Untracked() {
            super(List.of());
        }

        @Override
        void waiting(BatchPhase phase, int node, long nowMs) {
        }

        @Override
        void sent(int node, int leaderEpoch, long nowMs) {
        }

        @Override
        boolean isConnectingTo(int node) {
            return false;
        }

        @Override
        void answered(String outcome, long nowMs) {
        }

        @Override
        void ended(long nowMs) {
        }

        @Override
        BatchTimeline copy() {
            return this;
        }
    }
}
