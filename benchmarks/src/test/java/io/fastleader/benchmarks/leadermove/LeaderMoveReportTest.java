package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.common.Latency;

class LeaderMoveReportTest {

    @Test
    void reassignComparesFastleadersProduceTailWithBothKafkaClients() {
        Map<String, Object> figures = report("reassign",
            result(Variant.FASTLEADER, 40, 500, 0),
            result(Variant.KAFKA_CLIENTS_4_3_1, 100, 10, 0),
            result(Variant.KAFKA_CLIENTS_3_6_0, 150, 10, 0)).figures();

        assertThat(figures.get("targets")).isEqualTo(Map.of(
            "produce p99.9 <= 0.5x kafka-clients-4.3.1", "met",
            "produce p99.9 <= 0.2x kafka-clients-3.6.0", "missed",
            "no record lost or duplicated by any variant", "met"));
    }

    @Test
    void aRecordLostByAnyVariantMissesTheNoLossTarget() {
        Map<String, Object> figures = report("reassign",
            result(Variant.FASTLEADER, 40, 10, 0),
            result(Variant.KAFKA_CLIENTS_4_3_1, 100, 10, 1)).figures();

        assertThat(figures.get("targets")).asInstanceOf(InstanceOfAssertFactories.map(String.class, String.class))
            .containsEntry("no record lost or duplicated by any variant", "missed");
    }

    @Test
    void theRollComparesFastleadersEndToEndTailWithKafkaClients431() {
        Map<String, Object> figures = report("roll",
            result(Variant.FASTLEADER, 10, 70, 0),
            result(Variant.KAFKA_CLIENTS_4_3_1, 10, 100, 0)).figures();

        assertThat(figures.get("targets")).isEqualTo(Map.of("end-to-end p99.9 <= 0.7x kafka-clients-4.3.1", "met"));
        assertThat(figures.get("ratios")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Double.class))
            .containsEntry("end-to-end p99.9 fastleader / kafka-clients-4.3.1", 0.7);
    }

    @Test
    void eachVariantsFiguresCarryItsRequestsPerMove() {
        MoveRequests fastleaderRequests = MoveRequests.of(Variant.FASTLEADER.label(), List.of());
        LeaderMoveOptions options = LeaderMoveOptions.read(CommandLine.parse("--scenario", "roll"));
        Map<String, Object> figures = new LeaderMoveReport(options, List.of(result(Variant.FASTLEADER, 10, 10, 0)), List.of(),
            Map.of(Variant.FASTLEADER.label(), fastleaderRequests), 0).figures();

        assertThat(figures.get("variants")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Map.class))
            .extractingByKey(Variant.FASTLEADER.label()).asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
            .containsEntry("requestsPerMove", fastleaderRequests);
    }

    private static LeaderMoveReport report(String scenario, VariantResult... results) {
        LeaderMoveOptions options = LeaderMoveOptions.read(CommandLine.parse("--scenario", scenario));
        return new LeaderMoveReport(options, List.of(results), List.of(), Map.of(), 0);
    }

    private static VariantResult result(Variant variant, double produceP999, double endToEndP999, long lost) {
        return new VariantResult(variant, 100, 100, 100 - lost, 0, lost, 0, "",
            new Latency(100, 1, 2, produceP999, produceP999), new Latency(100, 1, 2, endToEndP999, endToEndP999), Map.of(), Map.of(), 0.1);
    }
}
