package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;

class LeaderMoveOptionsTest {

    @Test
    void theRollNeedsTheClusterTheToolStarts() {
        assertThatThrownBy(() -> read("--scenario", "roll", "--bootstrap", "localhost:9092"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drop --bootstrap");
    }

    @Test
    void reassignMovesAHundredPartitionsAndTheRollThirtyUnlessTold() {
        assertThat(read("--scenario", "reassign").partitions()).isEqualTo(100);
        assertThat(read("--scenario", "roll").partitions()).isEqualTo(30);
        assertThat(read("--scenario", "roll", "--partitions", "12").partitions()).isEqualTo(12);
    }

    @Test
    void everyVariantRunsUnlessSomeAreNamed() {
        assertThat(read().variants()).containsExactly(Variant.values());
        assertThat(read("--variants", "fastleader,kafka-clients-3.6.0").variants())
            .containsExactly(Variant.FASTLEADER, Variant.KAFKA_CLIENTS_3_6_0);
    }

    @Test
    void anUnknownVariantIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> read("--variants", "kafka-clients-2.8"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kafka-clients-3.6.0");
    }

    @Test
    void brokerSettingsAreKeyValuePairs() {
        assertThat(read("--broker-config", "replica.fetch.backoff.ms=50, num.network.threads=2").brokerConfigs())
            .containsExactly(Map.entry("replica.fetch.backoff.ms", "50"), Map.entry("num.network.threads", "2"));
        assertThatThrownBy(() -> read("--broker-config", "replica.fetch.backoff.ms"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected key=value");
    }

    @Test
    void fastleaderSettingsAreKeyValuePairsForTheFastleaderVariantsOnly() {
        assertThat(read("--fastleader-config", "fastleader.leader.hint.confirmation.delay.ms=0").fastleaderConfigs())
            .containsExactly(Map.entry("fastleader.leader.hint.confirmation.delay.ms", "0"));
        assertThat(Variant.FASTLEADER_NO_HINTS.isFastLeader()).isTrue();
        assertThat(Variant.KAFKA_CLIENTS_4_3_1.isFastLeader()).isFalse();
    }

    @Test
    void kafkaClientRequestsAreCountedUnlessTurnedOffAndNothingElseIsTakenForOff() {
        assertThat(read().countKafkaClientRequests()).isTrue();
        assertThat(read("--count-kafka-requests", "off").countKafkaClientRequests()).isFalse();
        assertThatThrownBy(() -> read("--count-kafka-requests", "no"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected on or off");
    }

    private static LeaderMoveOptions read(String... args) {
        CommandLine line = CommandLine.parse(args);
        LeaderMoveOptions options = LeaderMoveOptions.read(line);
        line.done();
        return options;
    }
}
