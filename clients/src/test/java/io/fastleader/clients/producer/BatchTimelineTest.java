package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fastleader.clients.producer.BatchTimeline.Stretch;

class BatchTimelineTest {

    private static final long CREATED_MS = 1_000;

    private final BatchTimeline timeline = new BatchTimeline(CREATED_MS);

    @Test
    void testTheStretchesTileTheBatchsLifeFromCreationToEnd() {
        timeline.sent(1, 5, 1_001);
        timeline.answered("NOT_LEADER_OR_FOLLOWER", 1_013);
        timeline.waiting(BatchPhase.BEHIND_IN_FLIGHT, BatchTimeline.NO_NODE, 1_013);
        timeline.waiting(BatchPhase.METADATA, BatchTimeline.NO_NODE, 1_016);
        timeline.waiting(BatchPhase.CONNECTING, 2, 1_296);
        timeline.sent(2, 6, 1_336);
        timeline.answered("NONE", 1_345);
        timeline.ended(1_345);

        assertThat(timeline.stretches()).containsExactly(
                new Stretch(BatchPhase.QUEUED, -1, -1, 1, null),
                new Stretch(BatchPhase.IN_FLIGHT, 1, 5, 12, "NOT_LEADER_OR_FOLLOWER"),
                new Stretch(BatchPhase.BEHIND_IN_FLIGHT, -1, -1, 3, null),
                new Stretch(BatchPhase.METADATA, -1, -1, 280, null),
                new Stretch(BatchPhase.CONNECTING, 2, -1, 40, null),
                new Stretch(BatchPhase.IN_FLIGHT, 2, 6, 9, "NONE"));
        assertThat(timeline.stretches().stream().mapToLong(Stretch::durationMs).sum()).isEqualTo(1_345 - CREATED_MS);
    }

    @Test
    void testAStretchThatLastedNoTimeIsLeftOut() {
        timeline.waiting(BatchPhase.BACKOFF, BatchTimeline.NO_NODE, CREATED_MS);
        timeline.waiting(BatchPhase.METADATA, BatchTimeline.NO_NODE, CREATED_MS + 7);
        timeline.ended(CREATED_MS + 7);

        assertThat(timeline.stretches()).containsExactly(new Stretch(BatchPhase.BACKOFF, -1, -1, 7, null));
    }

    @Test
    void testAnAttemptThatEndedAtOnceIsKept() {
        timeline.waiting(BatchPhase.CONNECTING, 2, CREATED_MS);
        timeline.answered(BatchTimeline.DISCONNECTED, CREATED_MS);
        timeline.ended(CREATED_MS);

        assertThat(timeline.stretches()).containsExactly(new Stretch(BatchPhase.CONNECTING, 2, -1, 0, "DISCONNECTED"));
    }

    @Test
    void testAPhaseResumedAfterAMomentElsewhereIsOneStretch() {
        // The sender's pass first notes the batch queued, then finds it still waits for a leader, at the same instant.
        timeline.waiting(BatchPhase.METADATA, BatchTimeline.NO_NODE, 1_010);
        timeline.waiting(BatchPhase.QUEUED, BatchTimeline.NO_NODE, 1_050);
        timeline.waiting(BatchPhase.METADATA, BatchTimeline.NO_NODE, 1_050);
        timeline.ended(1_090);

        assertThat(timeline.stretches()).containsExactly(new Stretch(BatchPhase.QUEUED, -1, -1, 10, null),
                new Stretch(BatchPhase.METADATA, -1, -1, 80, null));
    }

    @Test
    void testConnectingToAnotherNodeIsAStretchOfItsOwn() {
        timeline.waiting(BatchPhase.CONNECTING, 1, CREATED_MS);
        timeline.waiting(BatchPhase.CONNECTING, 2, 1_020);
        timeline.ended(1_050);

        assertThat(timeline.stretches()).containsExactly(new Stretch(BatchPhase.CONNECTING, 1, -1, 20, null),
                new Stretch(BatchPhase.CONNECTING, 2, -1, 30, null));
    }

    @Test
    void testEachAttemptIsAStretchOfItsOwnEvenAtTheSameNode() {
        timeline.sent(1, 5, CREATED_MS);
        timeline.answered("OUT_OF_ORDER_SEQUENCE_NUMBER", 1_004);
        timeline.sent(1, 5, 1_004);
        timeline.answered("NONE", 1_006);
        timeline.ended(1_006);

        assertThat(timeline.stretches()).containsExactly(new Stretch(BatchPhase.IN_FLIGHT, 1, 5, 4, "OUT_OF_ORDER_SEQUENCE_NUMBER"),
                new Stretch(BatchPhase.IN_FLIGHT, 1, 5, 2, "NONE"));
    }

    @Test
    void testAPieceOfASplitBatchKeepsTheBatchsLifeAndGoesOnFromItsPhase() {
        timeline.sent(1, 5, 1_002);
        timeline.answered("MESSAGE_TOO_LARGE", 1_010);

        BatchTimeline piece = timeline.copy();
        piece.sent(1, 5, 1_015);
        piece.answered("NONE", 1_018);
        piece.ended(1_018);

        assertThat(piece.stretches()).containsExactly(new Stretch(BatchPhase.QUEUED, -1, -1, 2, null),
                new Stretch(BatchPhase.IN_FLIGHT, 1, 5, 8, "MESSAGE_TOO_LARGE"), new Stretch(BatchPhase.QUEUED, -1, -1, 5, null),
                new Stretch(BatchPhase.IN_FLIGHT, 1, 5, 3, "NONE"));
        assertThat(timeline.stretches()).as("the batch split is left as it was").hasSize(2);
    }

    @Test
    void testTheUntrackedTimelineNotesNothing() {
        BatchTimeline untracked = BatchTimeline.untracked();

        untracked.waiting(BatchPhase.CONNECTING, 2, 1_001);
        untracked.sent(2, 6, 1_002);
        untracked.answered("NONE", 1_010);
        untracked.ended(1_010);

        assertThat(untracked.stretches()).isEmpty();
        assertThat(untracked.isConnectingTo(2)).isFalse();
        assertThat(untracked.copy()).isSameAs(untracked);
    }
}
