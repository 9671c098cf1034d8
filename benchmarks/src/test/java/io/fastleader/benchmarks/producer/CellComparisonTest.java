package io.fastleader.benchmarks.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.ClientVariant;

class CellComparisonTest {

    private static final SteadyCell CELL = new SteadyCell(1024, 5, 5);
    private static final SteadyCell OTHER_CELL = new SteadyCell(100, 5, 5);

    @Test
    void meansAreOverTheCellsTurnsOfEachClientOnly() {
        CellComparison row = CellComparison.of(CELL, List.of(
            turn(CELL, ClientVariant.FASTLEADER, 60_000, 4.0, 30.0),
            turn(CELL, ClientVariant.FASTLEADER, 40_000, 2.0, 20.0),
            turn(OTHER_CELL, ClientVariant.FASTLEADER, 1_000_000, 1.0, 1.0),
            turn(CELL, ClientVariant.KAFKA_CLIENTS, 50_000, 6.0, 50.0)));

        assertThat(row.fastleader()).isEqualTo(new CellComparison.Means(2, 50_000, 3.0, 25.0));
        assertThat(row.kafkaClients()).isEqualTo(new CellComparison.Means(1, 50_000, 6.0, 50.0));
    }

    @Test
    void ratiosAreFastleaderOverKafkaClients() {
        CellComparison row = compare(72_000, 2.0, 30.0, 60_000, 5.0, 40.0);

        assertThat(row.throughputRatio()).isCloseTo(1.2, within(1e-9));
        assertThat(row.clientCpuRatio()).isCloseTo(0.4, within(1e-9));
        assertThat(row.processCpuRatio()).isCloseTo(0.75, within(1e-9));
    }

    @Test
    void theGoalIsMetAtExactly1Point2TimesTheThroughputAndHalfTheClientCpu() {
        CellComparison row = compare(60_000, 2.5, 99.0, 50_000, 5.0, 1.0);

        assertThat(row.throughputVerdict()).isEqualTo("met");
        assertThat(row.clientCpuVerdict()).isEqualTo("met");
        assertThat(row.verdict()).isEqualTo("met");
    }

    @Test
    void theVerdictNamesWhatWasMissed() {
        assertThat(compare(59_000, 2.0, 1.0, 50_000, 5.0, 1.0).verdict()).isEqualTo("missed: throughput");
        assertThat(compare(60_000, 2.6, 1.0, 50_000, 5.0, 1.0).verdict()).isEqualTo("missed: client CPU");
        assertThat(compare(50_000, 5.0, 1.0, 50_000, 5.0, 1.0).verdict()).isEqualTo("missed: throughput, client CPU");
    }

    @Test
    void aCellWithoutTurnsOfAClientMissesTheGoal() {
        CellComparison row = CellComparison.of(CELL, List.of(turn(CELL, ClientVariant.FASTLEADER, 60_000, 1.0, 1.0)));

        assertThat(row.throughputRatio()).isNaN();
        assertThat(row.verdict()).isEqualTo("missed: throughput, client CPU");
    }

    private static CellComparison compare(double fastleaderPerSecond, double fastleaderClientCpu, double fastleaderProcessCpu,
                                          double kafkaPerSecond, double kafkaClientCpu, double kafkaProcessCpu) {
        return CellComparison.of(CELL, List.of(
            turn(CELL, ClientVariant.FASTLEADER, fastleaderPerSecond, fastleaderClientCpu, fastleaderProcessCpu),
            turn(CELL, ClientVariant.KAFKA_CLIENTS, kafkaPerSecond, kafkaClientCpu, kafkaProcessCpu)));
    }

    private static SteadyScenario.SteadyResult turn(SteadyCell cell, ClientVariant client, double recordsPerSecond,
                                                    double clientCpuMicros, double processCpuMicros) {
        long records = (long) (recordsPerSecond * 10);
        return new SteadyScenario.SteadyResult(cell, client.label(), 1, 1, records, 10, recordsPerSecond, clientCpuMicros,
            processCpuMicros, 0, null);
    }
}
