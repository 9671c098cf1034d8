package io.fastleader.benchmarks.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;

class BenchmarkOptionsTest {

    @Test
    void withoutGridOptionsSteadyRunsOneCellOf1KbRecordsLinger5And5InFlight() {
        assertThat(read().steadyGrid()).containsExactly(new SteadyCell(1024, 5, 5));
    }

    @Test
    void theGridIsEveryCombinationRecordSizeOutermostThenLingerThenInFlight() {
        assertThat(read("--scenario", "steady", "--record-bytes", "1024,100", "--steady-linger-ms", "0,5,20",
            "--steady-max-in-flight", "1,5").steadyGrid()).containsExactly(
            new SteadyCell(1024, 0, 1), new SteadyCell(1024, 0, 5),
            new SteadyCell(1024, 5, 1), new SteadyCell(1024, 5, 5),
            new SteadyCell(1024, 20, 1), new SteadyCell(1024, 20, 5),
            new SteadyCell(100, 0, 1), new SteadyCell(100, 0, 5),
            new SteadyCell(100, 5, 1), new SteadyCell(100, 5, 5),
            new SteadyCell(100, 20, 1), new SteadyCell(100, 20, 5));
    }

    @Test
    void reassignTakesOneRecordSize() {
        assertThat(read("--scenario", "reassign", "--record-bytes", "100").reassignRecordBytes()).isEqualTo(100);
        assertThatThrownBy(() -> read("--record-bytes", "1024,100"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--record-bytes 1024,100: reassign takes one size");
    }

    @Test
    void zeroInFlightOrAnEmptyRecordIsRefusedWhileZeroLingerIsAllowed() {
        assertThatThrownBy(() -> read("--steady-max-in-flight", "1,0"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--steady-max-in-flight 0");
        assertThatThrownBy(() -> read("--scenario", "steady", "--record-bytes", "0,100"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--record-bytes 0");
        assertThat(read("--steady-linger-ms", "0").steadyLingerMs()).containsExactly(0);
    }

    @Test
    void profilingIsOffUnlessADirectoryIsGiven() {
        assertThat(read().profileJfr()).isNull();
        assertThat(read("--profile-jfr", "target/jfr").profileJfr()).isEqualTo(Path.of("target/jfr"));
    }

    private static BenchmarkOptions read(String... args) {
        CommandLine line = CommandLine.parse(args);
        BenchmarkOptions options = BenchmarkOptions.read(line);
        line.done();
        return options;
    }
}
