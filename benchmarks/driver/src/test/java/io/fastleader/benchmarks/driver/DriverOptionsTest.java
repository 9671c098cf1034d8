package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverOptionsTest {

    @TempDir
    Path dir;

    @Test
    void testEveryOptionIsReadFromItsPairAndTheConnectionFromItsFile() throws Exception {
        Path connection = Files.writeString(dir.resolve("connection.properties"), "bootstrap.servers=127.0.0.1:9092\n");

        DriverOptions options = DriverOptions.parse(arguments(connection, "--records-file", dir.resolve("records").toString()));

        assertThat(options).isEqualTo(new DriverOptions("fastleader", Map.of("bootstrap.servers", "127.0.0.1:9092"), "moves", 6,
            1000, 512, "all", "P", "C", Map.of("linger.ms", "5", "retries", "3"), SentRequests.Source.LOG, dir.resolve("records")));
    }

    @Test
    void testNoRecordsFileMeansNone() throws Exception {
        Path connection = Files.writeString(dir.resolve("connection.properties"), "");

        assertThat(DriverOptions.parse(arguments(connection)).recordsFile()).isNull();
    }

    @Test
    void testAMissingOptionIsNamed() {
        assertThatThrownBy(() -> DriverOptions.parse(new String[] {"--topic", "moves"}))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("missing --label");
    }

    private static String[] arguments(Path connection, String... more) {
        String[] base = {"--label", "fastleader", "--connection", connection.toString(), "--topic", "moves", "--partitions", "6",
            "--rate", "1000", "--record-size", "512", "--acks", "all", "--producer-class", "P", "--consumer-class", "C",
            "--client-config", "linger.ms=5,retries=3", "--requests-from", "log"};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }
}
