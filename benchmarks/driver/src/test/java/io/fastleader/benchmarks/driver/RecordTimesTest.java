package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordTimesTest {

    @Test
    void theRecordsWrittenAreReadBackInOrder(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("records");
        try (RecordTimes records = RecordTimes.create(file)) {
            records.write(7, 1_000_000, 1_250_000);
            records.write(3, 1_100_000, 1_100_900);
        }

        assertThat(RecordTimes.read(file)).containsExactly(new RecordTimes.Record(7, 1_000_000, 1_250_000),
            new RecordTimes.Record(3, 1_100_000, 1_100_900));
    }
}
