package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.common.Latency;
import io.fastleader.benchmarks.driver.RecordTimes;

class LeaderMoveReportTest {

    @Test
    void crossRegionWithSaslSslComparesFastleadersProduceAndEndToEndTailsWithKafkaClients431() {
        Map<String, Object> figures = report(List.of("--scenario", "roll", "--profile", "cross-region", "--security", "sasl_ssl"),
            result(Variant.FASTLEADER, 40, 80, 0),
            result(Variant.KAFKA_CLIENTS_4_3_1, 100, 100, 0)).figures();

        assertThat(figures.get("targets")).isEqualTo(Map.of(
            "produce p99.9 <= 0.5x kafka-clients-4.3.1", "met",
            "end-to-end p99.9 <= 0.7x kafka-clients-4.3.1", "missed",
            "no record lost or duplicated by any variant", "met"));
    }

    @Test
    void loopbackWithAcks1ComparesFastleadersProduceTailAndCountsNoLossTarget() {
        Map<String, Object> figures = report(List.of("--scenario", "reassign", "--acks", "1"),
            result(Variant.FASTLEADER, 60, 80, 3),
            result(Variant.KAFKA_CLIENTS_4_3_1, 100, 100, 3)).figures();

        assertThat(figures.get("targets")).isEqualTo(Map.of("produce p99.9 <= 0.7x kafka-clients-4.3.1", "met"));
    }

    @Test
    void laggingMetadataInTheReassignmentComparesTheKafkaClientsWithEachOtherAsTheKipDid() {
        Map<String, Object> figures = report(List.of("--scenario", "reassign", "--profile", "lagging-metadata"),
            result(Variant.KAFKA_CLIENTS_4_3_1, 200, 200, 0),
            result(Variant.KAFKA_CLIENTS_3_6_0, 1000, 1000, 0)).figures();

        assertThat(figures.get("targets")).isEqualTo(Map.of(
            "the KIP's shape: kafka-clients-4.3.1 produce p99.9 <= 0.3x kafka-clients-3.6.0", "met",
            "no record lost or duplicated by any variant", "met"));
        assertThat(figures.get("ratios")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Double.class))
            .containsEntry("produce p99.9 kafka-clients-4.3.1 / kafka-clients-3.6.0", 0.2);
    }

    @Test
    void aRecordLostByAnyVariantWithAcksAllMissesTheNoLossTarget() {
        Map<String, Object> figures = report(List.of("--scenario", "reassign"),
            result(Variant.FASTLEADER, 40, 10, 0),
            result(Variant.KAFKA_CLIENTS_4_3_1, 100, 10, 1)).figures();

        assertThat(figures.get("targets")).asInstanceOf(InstanceOfAssertFactories.map(String.class, String.class))
            .containsEntry("no record lost or duplicated by any variant", "missed");
    }

    @Test
    void fastleadersSlowestBatchesAreSummedByPhase() {
        VariantResult fastleader = new VariantResult(Variant.FASTLEADER, 100, 100, 100, 0, 0, 0, "",
            new Latency(100, 1, 2, 300, 300), new Latency(100, 1, 2, 300, 300), Map.of(), Map.of(), Map.of(), 0.1,
            List.of("Slow batch t-1 (1 records) took 300 ms: in-flight node 1 epoch 2 10 ms NOT_LEADER_OR_FOLLOWER, metadata 290 ms"));
        Map<String, Object> figures = report(List.of("--scenario", "roll"), fastleader).figures();

        assertThat(figures.get("variants")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Map.class))
            .extractingByKey(Variant.FASTLEADER.label()).asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
            .extractingByKey("slowBatchPhaseMs").asInstanceOf(InstanceOfAssertFactories.map(String.class, Long.class))
            .containsEntry("metadata", 290L).containsEntry("in-flight", 10L).containsEntry("backoff", 0L);
    }

    @Test
    void eachVariantsFiguresCarryItsRequestsPerMove() {
        MoveRequests fastleaderRequests = MoveRequests.of(Variant.FASTLEADER.label(), List.of());
        LeaderMoveOptions options = LeaderMoveOptions.read(CommandLine.parse("--scenario", "roll"));
        Map<String, Object> figures = new LeaderMoveReport(options, BrokerRow.DEFAULT, List.of(result(Variant.FASTLEADER, 10, 10, 0)),
            Map.of(), List.of(), List.of(), Map.of(Variant.FASTLEADER.label(), fastleaderRequests), 0).figures();

        assertThat(figures.get("variants")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Map.class))
            .extractingByKey(Variant.FASTLEADER.label()).asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
            .containsEntry("requestsPerMove", fastleaderRequests);
    }

    @Test
    void aP999RecordWithMoreThanThreeClientRoundTripsInTheClientMissesFastleadersTarget() {
        LeaderMoveOptions options = LeaderMoveOptions.read(CommandLine.parse("--scenario", "roll", "--profile", "cross-zone"));
        // One record of 300 ms, 290 of them at a broker: 10 ms in the client, 5 round trips of 2 ms.
        LatencySplits splits = LatencySplits.of(List.of(new RecordTimes.Record(0, 0, 300_000)), List.of(
            new BrokerRequestLog.ProduceAtBroker("fastleader-producer", "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {0}, 5_000, 295_000)), List.of());
        Map<String, Object> figures = new LeaderMoveReport(options, BrokerRow.DEFAULT, List.of(result(Variant.FASTLEADER, 300, 300, 0)),
            Map.of(Variant.FASTLEADER.label(), splits), List.of(), List.of(), Map.of(), 0).figures();

        assertThat(figures.get("targets")).asInstanceOf(InstanceOfAssertFactories.map(String.class, String.class))
            .containsEntry("fastleader's client share of its p99.9 record <= 3 client round trips", "missed");
        assertThat(figures.get("variants")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Map.class))
            .extractingByKey(Variant.FASTLEADER.label()).asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
            .extractingByKey("produceSplitMs").asInstanceOf(InstanceOfAssertFactories.map(String.class, Map.class))
            .extractingByKey("p99.9").asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
            .containsEntry("totalMs", 300.0).containsEntry("brokerMs", 290.0).containsEntry("clientMs", 10.0);
    }

    private static LeaderMoveReport report(List<String> arguments, VariantResult... results) {
        LeaderMoveOptions options = LeaderMoveOptions.read(CommandLine.parse(arguments.toArray(String[]::new)));
        return new LeaderMoveReport(options, BrokerRow.DEFAULT, List.of(results), Map.of(), List.of(), List.of(), Map.of(), 0);
    }

    private static VariantResult result(Variant variant, double produceP999, double endToEndP999, long lost) {
        return new VariantResult(variant, 100, 100, 100 - lost, 0, lost, 0, "",
            new Latency(100, 1, 2, produceP999, produceP999), new Latency(100, 1, 2, endToEndP999, endToEndP999), Map.of(), Map.of(), Map.of(), 0.1,
            List.of());
    }
}
