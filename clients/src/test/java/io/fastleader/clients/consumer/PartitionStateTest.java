package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;

import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.consumer.PartitionState.Phase;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.Refusal;
import io.fastleader.clients.network.ExponentialBackoff;

class PartitionStateTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 3);
    /** retry.backoff.ms 100 to 1000, at the midpoint of the jitter: every wait is its base term. */
    private static final EpochBackoff BACKOFF = new EpochBackoff(
            new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), ExponentialBackoff.KAFKA_JITTER), () -> 0.5, true);

    private final PartitionState state = new PartitionState(PARTITION);

    private PartitionState fetchingAt(long offset, int offsetEpoch) {
        state.seek(new FetchPosition(offset, Optional.of(offsetEpoch)));
        return state;
    }

    @Test
    void startsWithoutAPositionAndIsNotFetchable() {
        assertThat(state.phase()).isEqualTo(Phase.INITIALIZING);
        assertThat(state.isFetchable(5, 0)).isFalse();
    }

    @Test
    void resetsPerStrategyWhenNothingWasCommitted() {
        state.noCommittedOffset(ResetStrategy.EARLIEST);

        assertThat(state.phase()).isEqualTo(Phase.AWAIT_RESET);
        assertThat(state.pendingReset()).isEqualTo(ResetStrategy.EARLIEST);
        state.resetTo(new FetchPosition(42, Optional.of(7)));
        assertThat(state.phase()).isEqualTo(Phase.FETCHING);
        assertThat(state.position()).isEqualTo(new FetchPosition(42, Optional.of(7)));
    }

    @Test
    void stopsWithNoOffsetForPartitionWhenNothingWasCommittedAndResetIsNone() {
        assertThatThrownBy(() -> state.noCommittedOffset(ResetStrategy.NONE))
                .isInstanceOf(NoOffsetForPartitionException.class)
                .hasMessageContaining(PARTITION.toString());
        assertThat(state.phase()).isEqualTo(Phase.STOPPED);
    }

    @Test
    void aResetAnswerAfterASeekIsIgnored() {
        state.requestReset(ResetStrategy.LATEST);
        state.seek(FetchPosition.at(10));

        state.resetTo(FetchPosition.at(99));

        assertThat(state.position()).isEqualTo(FetchPosition.at(10));
    }

    @Test
    void skipsBackoffOnFirstRetryAfterTheLeaderEpochAdvances() {
        fetchingAt(10, 4);
        refusedAt(5, 1_000);

        assertThat(state.isFetchable(5, 1_000)).isFalse();
        assertThat(state.isFetchable(6, 1_000)).isTrue();
    }

    @Test
    void backsOffARetryAtTheSameEpochUntilTheBackoffEnds() {
        fetchingAt(10, 4);
        refusedAt(5, 1_000);

        assertThat(state.isFetchable(5, 1_099)).isFalse();
        assertThat(state.isFetchable(5, 1_100)).isTrue();
        assertThat(state.backoff().untilMs()).isEqualTo(1_100);
    }

    @Test
    void aSecondRefusalAtTheNewEpochBacksOffAgain() {
        fetchingAt(10, 4);
        refusedAt(5, 1_000);
        refusedAt(6, 1_001);

        assertThat(state.isFetchable(6, 1_001)).isFalse();
        assertThat(state.backoff().failures()).isEqualTo(2);
    }

    @Test
    void aGoodAnswerClearsTheBackoff() {
        fetchingAt(10, 4);
        refusedAt(5, 1_000);

        state.fetched(20, 20, 0);

        assertThat(state.isFetchable(5, 1_000)).isTrue();
        assertThat(state.backoff()).isEqualTo(EpochBackoff.State.NONE);
    }

    @Test
    void pausedPartitionsAreNotFetched() {
        fetchingAt(10, 4);
        state.pause();
        assertThat(state.isFetchable(5, 0)).isFalse();
        state.resume();
        assertThat(state.isFetchable(5, 0)).isTrue();
    }

    @Test
    void reportsALeaderEpochAdvanceOnlyForAPositionThatCarriesAnEpoch() {
        fetchingAt(10, 4);
        assertThat(state.leaderEpochAdvanced(5)).isFalse();
        assertThat(state.leaderEpochAdvanced(5)).isFalse();
        assertThat(state.leaderEpochAdvanced(6)).isTrue();

        state.seek(FetchPosition.at(10));
        assertThat(state.leaderEpochAdvanced(7)).isFalse();
    }

    @Test
    void anEpochEndingBeforeThePositionMovesBackToTheFirstDivergingOffset() {
        fetchingAt(100, 5);

        state.epochEnds(new EpochEndOffset(4, 90), ResetStrategy.LATEST);

        assertThat(state.phase()).isEqualTo(Phase.FETCHING);
        assertThat(state.position()).isEqualTo(new FetchPosition(90, Optional.of(4)));
    }

    @Test
    void truncationStopsWithLogTruncationWhenResetIsNone() {
        fetchingAt(100, 5);

        assertThatThrownBy(() -> state.epochEnds(new EpochEndOffset(4, 90), ResetStrategy.NONE))
                .isInstanceOfSatisfying(LogTruncationException.class, e -> {
                    assertThat(e.offsetOutOfRangePartitions()).containsEntry(PARTITION, 100L);
                    assertThat(e.divergentOffsets()).containsEntry(PARTITION, new OffsetAndMetadata(90, Optional.of(4), null));
                });
        assertThat(state.phase()).isEqualTo(Phase.STOPPED);
    }

    @Test
    void anEpochEndingAtOrAfterThePositionKeepsTheOffsetAndAdoptsTheLeadersEpoch() {
        fetchingAt(100, 5);

        state.epochEnds(new EpochEndOffset(4, 150), ResetStrategy.NONE);

        // The next fetch sends LastFetchedEpoch 4, which the leader's log holds past offset 100: no second divergence.
        assertThat(state.position()).isEqualTo(new FetchPosition(100, Optional.of(4)));
        assertThat(state.phase()).isEqualTo(Phase.FETCHING);
    }

    @Test
    void validationCompletesIntoFetching() {
        fetchingAt(100, 5);
        state.awaitValidation();
        assertThat(state.isFetchable(6, 0)).isFalse();

        state.epochEnds(new EpochEndOffset(5, 120), ResetStrategy.EARLIEST);

        assertThat(state.phase()).isEqualTo(Phase.FETCHING);
        assertThat(state.position()).isEqualTo(new FetchPosition(100, Optional.of(5)));
    }

    @Test
    void anEpochTheLeaderNoLongerHasResetsThePosition() {
        fetchingAt(100, 5);

        state.epochEnds(new EpochEndOffset(-1, -1), ResetStrategy.EARLIEST);

        assertThat(state.phase()).isEqualTo(Phase.AWAIT_RESET);
        assertThat(state.pendingReset()).isEqualTo(ResetStrategy.EARLIEST);
    }

    @Test
    void outOfRangeResetsPerStrategy() {
        fetchingAt(100, 5);

        state.outOfRange(100, ResetStrategy.EARLIEST);

        assertThat(state.phase()).isEqualTo(Phase.AWAIT_RESET);
    }

    @Test
    void outOfRangeStopsWhenResetIsNone() {
        fetchingAt(100, 5);

        assertThatThrownBy(() -> state.outOfRange(100, ResetStrategy.NONE))
                .isInstanceOfSatisfying(OffsetOutOfRangeException.class,
                        e -> assertThat(e.offsetOutOfRangePartitions()).containsEntry(PARTITION, 100L));
        assertThat(state.phase()).isEqualTo(Phase.STOPPED);
    }

    @Test
    void outOfRangeForAnOffsetNoLongerThePositionIsIgnored() {
        fetchingAt(100, 5);
        state.seek(FetchPosition.at(5));

        state.outOfRange(100, ResetStrategy.NONE);

        assertThat(state.phase()).isEqualTo(Phase.FETCHING);
    }

    @Test
    void aSeekLeavesStopped() {
        fetchingAt(100, 5);
        assertThatThrownBy(() -> state.outOfRange(100, ResetStrategy.NONE));

        state.seek(FetchPosition.at(0));

        assertThat(state.isFetchable(5, 0)).isTrue();
    }

    @Test
    void lagIsMeasuredFromTheLastStableOffsetWhenReadingCommitted() {
        fetchingAt(100, 5);
        state.fetched(130, 120, 0);

        assertThat(state.lag(false)).contains(30L);
        assertThat(state.lag(true)).contains(20L);
    }

    @Test
    void leadIsThePositionPastTheLogStartOffset() {
        fetchingAt(100, 5);
        state.fetched(130, 130, 40);

        assertThat(state.lead()).contains(60L);
    }

    @Test
    void aListedEndOffsetGivesTheLagOfItsIsolationLevelBeforeAnyFetch() {
        fetchingAt(100, 5);

        state.endListed(130, false);
        assertThat(state.lag(false)).contains(30L);
        assertThat(state.lag(true)).isEmpty();
        state.endListed(120, true);
        assertThat(state.lag(true)).contains(20L);
    }

    @Test
    void noLeadIsKnownBeforeAFetchAnswers() {
        fetchingAt(100, 5);

        assertThat(state.lead()).isEmpty();
    }

    @Test
    void parsesEveryResetStrategy() {
        assertThat(ResetStrategy.parse("earliest")).isEqualTo(ResetStrategy.EARLIEST);
        assertThat(ResetStrategy.parse("LATEST")).isEqualTo(ResetStrategy.LATEST);
        assertThat(ResetStrategy.parse("none").resets()).isFalse();
        ResetStrategy byDuration = ResetStrategy.parse("by_duration:PT1H");
        assertThat(byDuration.targetTimestamp(10_000_000)).isEqualTo(10_000_000 - Duration.ofHours(1).toMillis());
        assertThatThrownBy(() -> ResetStrategy.parse("by_duration:-PT1H"))
                .hasMessageContaining("auto.offset.reset");
    }

    /** The leader refused a Fetch sent at {@code epoch}, naming no leader. */
    private void refusedAt(int epoch, long nowMs) {
        state.backOff(BACKOFF.refused(state.backoff(), epoch, Refusal.NONE, nowMs));
    }
}
