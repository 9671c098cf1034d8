package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads slow-batch log lines as a benchmark would: by regex. */
final class SlowBatchLines {

    private static final Pattern LINE = Pattern.compile(
            "Slow batch (?<partition>\\S+-\\d+) \\((?<records>\\d+) records\\) took (?<total>\\d+) ms:(?<phases>.*)");
    private static final Pattern PHASE = Pattern.compile(
            " (?<phase>[a-z-]+)(?: node (?<node>\\d+))?(?: epoch (?<epoch>\\d+))? (?<ms>\\d+) ms(?: (?<outcome>[A-Z_]+))?(?:,|$)");

    private SlowBatchLines() {
    }

    /** Checks the line's shape and that its phases' durations add up to its total. */
    static void assertPhasesAddUpToTheTotal(String line) {
        Matcher whole = LINE.matcher(line);
        assertThat(whole.matches()).as("a slow-batch line: %s", line).isTrue();
        Matcher phase = PHASE.matcher(whole.group("phases"));
        long sumMs = 0;
        int end = 0;
        while (phase.find()) {
            assertThat(phase.start()).as("phases follow one another in %s", line).isEqualTo(end);
            sumMs += Long.parseLong(phase.group("ms"));
            end = phase.end();
        }
        assertThat(end).as("every phase of %s read", line).isEqualTo(whole.group("phases").length());
        assertThat(sumMs).as("the phases of %s", line).isEqualTo(Long.parseLong(whole.group("total")));
    }
}
