package io.fastleader.it.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * The chaos soak ({@link ChaosSoak}) as a test: two minutes from a fixed seed in {@code mvn
 * verify}, any length and seed on demand ({@code bin/chaos-soak}). The report goes to standard
 * output and to {@code target/chaos-soak-report.txt}; a failure names the seed and the command
 * that replays it. Every kind of fault is applied at least once, whatever the length: a fault that
 * could not be applied, or that the cluster did not recover from, is a failure.
 */
class ChaosSoakTest {

    @Test
    void everyAcknowledgedRecordSurvivesEveryWorkloadAtOnceThroughSeededFaults() throws InterruptedException, IOException {
        SoakSettings settings = SoakSettings.fromSystemProperties();
        ChaosSoak.Result result = new ChaosSoak(settings).run();
        System.out.println(result.report());
        Path report = Path.of("target", "chaos-soak-report.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, result.report());

        assertThat(result.failures()).as("failures of the soak with seed %d; replay with %s", settings.seed(), settings.replayCommand()).isEmpty();
    }
}
