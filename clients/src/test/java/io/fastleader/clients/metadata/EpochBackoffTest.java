package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.EpochBackoff.State;
import io.fastleader.clients.network.ExponentialBackoff;

class EpochBackoffTest {

    private static final ExponentialBackoff BACKOFF =
            new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), ExponentialBackoff.KAFKA_JITTER);

    /** The midpoint of the jitter range, so each wait is exactly its base term. */
    private final EpochBackoff hints = new EpochBackoff(BACKOFF, () -> 0.5, true);
    private final EpochBackoff noHints = new EpochBackoff(BACKOFF, () -> 0.5, false);

    @Test
    void testARetryAtTheSameEpochBacksOff() {
        State state = hints.refused(State.NONE, 5, Refusal.NONE, 1_000);

        assertThat(state.untilMs()).isEqualTo(1_100);
        assertThat(state.isOver(5, 1_099)).isFalse();
        assertThat(state.isOver(5, 1_100)).isTrue();
    }

    @Test
    void testTheBackoffDoublesPerRefusalUpToTheMaximum() {
        assertThat(waits(hints, 5, Refusal.NONE)).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
    }

    @Test
    void testSkipsBackoffOnFirstRetryToNewLeader() {
        State state = hints.refused(State.NONE, 5, Refusal.NONE, 1_000);

        assertThat(state.isOver(6, 1_000)).isTrue();
        assertThat(state.isCutShort(6, 1_000)).isTrue();
    }

    @Test
    void testBacksOffAgainWhenTheRetryAtTheNewEpochIsRefused() {
        State refusedAtOld = hints.refused(hints.refused(State.NONE, 5, Refusal.NONE, 0), 5, Refusal.NONE, 200);

        State refusedAtNew = hints.refused(refusedAtOld, 6, Refusal.NONE, 1_000);

        assertThat(refusedAtNew.isOver(6, 1_000)).isFalse();
        assertThat(refusedAtNew.untilMs()).as("a new leader starts the series again").isEqualTo(1_100);
        assertThat(refusedAtNew.failures()).isEqualTo(3);
    }

    @Test
    void testAnOlderOrUnknownEpochNeverEndsTheBackoff() {
        State state = hints.refused(State.NONE, 5, Refusal.NONE, 1_000);

        assertThat(state.isOver(4, 1_000)).isFalse();
        assertThat(state.isOver(-1, 1_000)).isFalse();
        assertThat(hints.refused(State.NONE, -1, Refusal.NONE, 1_000).isOver(3, 1_000)).isFalse();
    }

    @Test
    void testOnceItsTimeHasPassedNothingIsCutShort() {
        State state = hints.refused(State.NONE, 5, Refusal.NONE, 1_000);

        assertThat(state.isCutShort(6, 1_100)).isFalse();
        assertThat(State.NONE.isCutShort(6, 0)).isFalse();
    }

    @Test
    void testALeaderThatHasNotLearnedOfItsElectionIsAskedAgainARoundTripLaterDoublingUpToTheRetryBackoff() {
        // Its answer names epoch 5, older than the 6 the request was sent at; the attempt took 10 ms.
        assertThat(waits(hints, 6, new Refusal(5, 10))).containsExactly(10L, 20L, 40L, 80L, 100L, 100L);
    }

    @Test
    void testARefusalNamingTheRequestsOwnEpochIsAFailureNotACatchUp() {
        assertThat(waits(hints, 6, new Refusal(6, 10))).startsWith(100L, 200L);
    }

    @Test
    void testACatchUpWaitIsAtLeastAMillisecondAndAtMostTheRetryBackoff() {
        assertThat(hints.refused(State.NONE, 6, new Refusal(5, 0), 0).untilMs()).isEqualTo(1);
        assertThat(hints.refused(State.NONE, 6, new Refusal(5, 250), 0).untilMs()).isEqualTo(100);
    }

    @Test
    void testALeaderBehindTheClientHoldsTheThingBackOneRetryBackoffWithoutCountingAFailure() {
        State refused = hints.refused(State.NONE, 5, Refusal.NONE, 0);

        State behind = hints.leaderBehind(refused, 6, 1_000);

        assertThat(behind.untilMs()).isEqualTo(1_100);
        assertThat(behind.failures()).isEqualTo(1);
        assertThat(behind.isOver(7, 1_000)).isTrue();
    }

    @Test
    void testWithHintsDisabledTheBackoffGrowsByEveryRefusalWhateverTheEpochs() {
        State state = State.NONE;
        for (int epoch = 5; epoch <= 7; epoch++) {
            state = noHints.refused(state, epoch, new Refusal(epoch - 1, 10), 0);
        }

        assertThat(state.untilMs()).isEqualTo(400);
        assertThat(state.isOver(8, 0)).as("no epoch ends a backoff with hints disabled").isFalse();
    }

    @Test
    void testAThingThatGoesBehindAnotherHasItsWaitOverButKeepsItsCount() {
        State state = hints.refused(State.NONE, 5, Refusal.NONE, 1_000).waitOver();

        assertThat(state.isOver(5, 1_000)).isTrue();
        assertThat(hints.refused(state, 5, Refusal.NONE, 1_000).untilMs()).isEqualTo(1_200);
    }

    @Test
    void testJitterSpreadsTheWaitByAFifth() {
        EpochBackoff low = new EpochBackoff(BACKOFF, () -> 0.0, true);
        EpochBackoff high = new EpochBackoff(BACKOFF, () -> 0.999_999, true);

        assertThat(low.refused(State.NONE, 5, Refusal.NONE, 0).untilMs()).isEqualTo(80);
        assertThat(high.refused(State.NONE, 5, Refusal.NONE, 0).untilMs()).isEqualTo(119);
    }

    @Test
    void testAFailureNoLeaderRefusedBacksOffByItsCount() {
        assertThat(hints.untilMs(1, 1_000)).isEqualTo(1_100);
        assertThat(noHints.untilMs(3, 1_000)).isEqualTo(1_400);
    }

    /** The waits of six refusals in a row of requests sent at {@code epoch}. */
    private static List<Long> waits(EpochBackoff policy, int epoch, Refusal refusal) {
        List<Long> waits = new ArrayList<>();
        State state = State.NONE;
        for (int refusals = 1; refusals <= 6; refusals++) {
            state = policy.refused(state, epoch, refusal, 0);
            waits.add(state.untilMs());
        }
        return waits;
    }
}
