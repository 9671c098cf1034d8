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
    void theConsumeCellsAreRecordSizeThenFetchMinBytesThenMaxPollRecords() {
        List<Cell> cells = read("--mode", "consume").cells();

        assertThat(cells).containsExactly(Cell.consume(100, 1, 500), Cell.consume(100, 65_536, 500), Cell.consume(1024, 1, 500),
            Cell.consume(1024, 65_536, 500));
        assertThat(cells).extracting(Cell::name).containsExactly("consume-100b-fetchmin1-poll500", "consume-100b-fetchmin65536-poll500",
            "consume-1024b-fetchmin1-poll500", "consume-1024b-fetchmin65536-poll500");
    }

    @Test
    void aConsumeRunTakesItsConsumerSettingsAndBacklogSize() {
        SteadyOptions options = read("--mode", "consume", "--record-bytes", "512", "--consume-fetch-min-bytes", "1024",
            "--consume-max-poll-records", "100,2000", "--consume-backlog-mib", "32");

        assertThat(options.cells()).containsExactly(Cell.consume(512, 1024, 100), Cell.consume(512, 1024, 2000));
        assertThat(options.consumeBacklogMib()).isEqualTo(32);
    }

    @Test
    void allLeavesTheConsumeModeOut() {
        assertThat(read("--mode", "all").cells()).noneMatch(cell -> cell.mode() == Cell.Mode.CONSUME);
    }

    @Test
    void aConsumeSettingBelowOneIsRefusedByName() {
        assertThatThrownBy(() -> read("--mode", "consume", "--consume-fetch-min-bytes", "1,0"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--consume-fetch-min-bytes");
        assertThatThrownBy(() -> read("--mode", "consume", "--consume-max-poll-records", "0"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--consume-max-poll-records");
        assertThatThrownBy(() -> read("--mode", "consume", "--consume-backlog-mib", "0"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--consume-backlog-mib");
    }

    @Test
    void aBacklogIsDoneWithAfterTheLastRoundThatReadsIt() {
        List<Cell> cells = read("--mode", "consume").cells();
        List<SteadyRun.Round> rounds = SteadyRun.rounds(cells, 2);

        assertThat(rounds.stream().filter(round -> SteadyRun.lastBacklogRead(rounds, round)).map(SteadyRun.Round::number))
            .containsExactly(4, 8);
        List<SteadyRun.Round> producerRounds = SteadyRun.rounds(read("--mode", "throughput").cells(), 1);
        assertThat(producerRounds).noneMatch(round -> SteadyRun.lastBacklogRead(producerRounds, round));
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
