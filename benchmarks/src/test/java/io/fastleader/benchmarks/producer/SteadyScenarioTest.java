package io.fastleader.benchmarks.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.producer.SteadyScenario.Round;

class SteadyScenarioTest {

    private static final SteadyCell FIRST = new SteadyCell(1024, 0, 1);
    private static final SteadyCell SECOND = new SteadyCell(100, 0, 1);

    @Test
    void aWarmUpRoundOnTheFirstCellComesFirstAndIsNotKept() {
        Round warmUp = SteadyScenario.rounds(List.of(FIRST, SECOND), 2).get(0);

        assertThat(warmUp.cell()).isEqualTo(FIRST);
        assertThat(warmUp.kept()).isFalse();
    }

    @Test
    void everyCellGetsItsRepetitionsOneAfterAnother() {
        List<Round> rounds = SteadyScenario.rounds(List.of(FIRST, SECOND), 2);

        assertThat(rounds.subList(1, rounds.size())).extracting(Round::cell, Round::repetition).containsExactly(
            tuple(FIRST, 1), tuple(FIRST, 2),
            tuple(SECOND, 1), tuple(SECOND, 2));
    }

    @Test
    void withTwoRepetitionsEveryCellSeesBothTurnOrders() {
        List<Round> rounds = SteadyScenario.rounds(List.of(FIRST, SECOND), 2);

        for (SteadyCell cell : List.of(FIRST, SECOND)) {
            assertThat(rounds.stream().filter(round -> round.kept() && round.cell().equals(cell)).map(Round::order))
                .containsExactlyInAnyOrder(List.of(ClientVariant.FASTLEADER, ClientVariant.KAFKA_CLIENTS),
                    List.of(ClientVariant.KAFKA_CLIENTS, ClientVariant.FASTLEADER));
        }
    }

    @Test
    void withOneRepetitionTheOrderAlternatesFromCellToCellAndFastleaderStartsAfterTheWarmUp() {
        List<Round> rounds = SteadyScenario.rounds(List.of(FIRST, SECOND, FIRST), 1);

        assertThat(rounds).extracting(round -> round.order().get(0)).containsExactly(
            ClientVariant.KAFKA_CLIENTS, ClientVariant.FASTLEADER, ClientVariant.KAFKA_CLIENTS, ClientVariant.FASTLEADER);
    }
}
