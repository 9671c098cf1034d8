package io.fastleader.benchmarks.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class CommandLineTest {

    @Test
    void aListOfWholeNumbersKeepsTheOrderGiven() {
        assertThat(CommandLine.parse("--linger-ms", "20, 0,5").integers("--linger-ms", List.of(5))).containsExactly(20, 0, 5);
    }

    @Test
    void aListNotGivenIsItsDefault() {
        assertThat(CommandLine.parse().integers("--linger-ms", List.of(5))).containsExactly(5);
    }

    @Test
    void aSingleNumberIsAListOfOne() {
        assertThat(CommandLine.parse("--linger-ms", "0").integers("--linger-ms", List.of(5))).containsExactly(0);
    }

    @Test
    void aListWithAnEmptyOrNegativeOrNonNumericEntryIsRefusedNamingTheOption() {
        for (String bad : List.of("0,,5", "0,5,", "", "0,-5", "0,five")) {
            assertThatThrownBy(() -> CommandLine.parse("--linger-ms", bad).integers("--linger-ms", List.of(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--linger-ms " + bad + ": expected a list of whole numbers >= 0");
        }
    }

    @Test
    void aNumberGivenTwiceInAListIsRefused() {
        assertThatThrownBy(() -> CommandLine.parse("--linger-ms", "5,0,5").integers("--linger-ms", List.of(5)))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("--linger-ms 5,0,5: 5 is given twice");
    }

    @Test
    void aListOptionReadIsNotLeftOverForDone() {
        CommandLine line = CommandLine.parse("--linger-ms", "0,5");
        line.integers("--linger-ms", List.of(5));
        assertThatCode(line::done).doesNotThrowAnyException();
    }
}
