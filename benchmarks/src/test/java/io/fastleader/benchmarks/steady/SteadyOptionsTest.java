package io.fastleader.benchmarks.steady;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;

class SteadyOptionsTest {

    private static SteadyOptions read(String... args) {
        return SteadyOptions.read(CommandLine.parse(args));
    }

    @Test
    void theDefaultsAreTheTwelveCellGridTheTwoCodecsAndFourLatencyCells() {
        List<Cell> cells = read().cells();

        assertThat(cells).hasSize(18);
        assertThat(cells.subList(0, 12)).allMatch(cell -> cell.mode() == Cell.Mode.THROUGHPUT && cell.compression().equals("none"));
        assertThat(cells.subList(12, 14)).containsExactly(Cell.throughput(1024, 5, 5, "lz4"), Cell.throughput(1024, 5, 5, "zstd"));
        assertThat(cells.subList(14, 18)).containsExactly(Cell.latency(100, 0, 5, 50_000), Cell.latency(100, 5, 5, 50_000),
            Cell.latency(1024, 0, 5, 15_000), Cell.latency(1024, 5, 5, 15_000));
    }

    @Test
    void theGridRunsRecordSizeOutermostThenLingerThenInFlight() {
        List<Cell> cells = read("--mode", "throughput", "--record-bytes", "100,1024", "--steady-linger-ms", "0,20",
            "--steady-max-in-flight", "1,5", "--compression", "none").cells();

        assertThat(cells).extracting(Cell::name).containsExactly(
            "100b-linger0-inflight1", "100b-linger0-inflight5", "100b-linger20-inflight1", "100b-linger20-inflight5",
            "1024b-linger0-inflight1", "1024b-linger0-inflight5", "1024b-linger20-inflight1", "1024b-linger20-inflight5");
    }

    @Test
    void aLatencyRunTakesItsRatesPerRecordSize() {
        List<Cell> cells = read("--mode", "latency", "--record-bytes", "100", "--latency-linger-ms", "5",
            "--latency-rates", "100=20000").cells();

        assertThat(cells).containsExactly(Cell.latency(100, 5, 5, 20_000));
    }

    @Test
    void aRecordSizeWithoutALatencyRateIsRefused() {
        assertThatThrownBy(() -> read("--record-bytes", "512"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("512 B");
    }

    @Test
    void anUnknownCodecIsRefused() {
        assertThatThrownBy(() -> read("--compression", "lz5"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lz5");
    }

    @Test
    void roundsStartWithAWarmUpOnTheFirstCellAndAlternateTheOrder() {
        List<Cell> cells = read("--mode", "latency").cells();
        List<SteadyRun.Round> rounds = SteadyRun.rounds(cells, 2);

        assertThat(rounds).hasSize(1 + 2 * cells.size());
        assertThat(rounds.get(0).kept()).isFalse();
        assertThat(rounds.get(0).cell()).isEqualTo(cells.get(0));
        for (Cell cell : cells) {
            assertThat(rounds.stream().filter(round -> round.kept() && round.cell().equals(cell)).map(round -> round.order().get(0)))
                .containsExactlyInAnyOrderElementsOf(SteadyRun.CLIENTS);
        }
    }
}
