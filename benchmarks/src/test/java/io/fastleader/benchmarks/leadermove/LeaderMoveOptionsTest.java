package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.it.cluster.Execution;

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
    void kip951RunsAHundredPartitionsOfOneKilobyteRecordsAtItsOwnRate() {
        LeaderMoveOptions kip951 = read("--scenario", "kip951");

        assertThat(kip951.partitions()).isEqualTo(100);
        assertThat(kip951.recordSize()).isEqualTo(1024);
        assertThat(kip951.rate()).isEqualTo(Scenario.KIP951_RATE);
        assertThat(kip951.steady()).isEqualTo(Duration.ofSeconds(Scenario.KIP951_STEADY_SECONDS));
    }

    @Test
    void theBrokerRowsAreTheDefaultOnlyUnlessNamed() {
        assertThat(read().brokerRows()).containsExactly(BrokerRow.DEFAULT);
        assertThat(read("--broker-rows", "default,tuned").brokerRows()).containsExactly(BrokerRow.DEFAULT, BrokerRow.TUNED);
    }

    @Test
    void brokerRowsNeedTheClustersTheToolStarts() {
        assertThatThrownBy(() -> read("--scenario", "reassign", "--bootstrap", "localhost:9092", "--broker-rows", "default,tuned"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drop --bootstrap");
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

    @Test
    void aProfileSetsTheRoundTripsAndLagAndGivenOptionsOverrideIt() {
        Deployment crossRegion = read("--profile", "cross-region").deployment();
        assertThat(crossRegion.clientRtt()).isEqualTo(Duration.ofMillis(30));
        assertThat(crossRegion.brokerRtt()).isEqualTo(Duration.ofMillis(2));
        assertThat(read("--profile", "cross-region", "--client-rtt-ms", "80").deployment().clientRtt()).isEqualTo(Duration.ofMillis(80));
        Deployment lagging = read("--profile", "lagging-metadata").deployment();
        assertThat(lagging.metadataLag()).isEqualTo(Duration.ofMillis(500));
        assertThat(lagging.brokers()).isEqualTo(Execution.CHILD_JVM);
    }

    @Test
    void loopbackPlaintextWithAcksAllIsTheDefault() {
        LeaderMoveOptions options = read();
        assertThat(options.deployment().profile()).isEqualTo(NetworkProfile.LOOPBACK);
        assertThat(options.deployment().clientRtt()).isZero();
        assertThat(options.deployment().security()).isEqualTo("PLAINTEXT");
        assertThat(options.acks()).isEqualTo("all");
    }

    @Test
    void metadataLagNeedsBrokersInJvmsOfTheirOwnAndSaslSslNeedsThemInThisOne() {
        assertThatThrownBy(() -> read("--metadata-lag-ms", "300"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--brokers child_jvm");
        assertThatThrownBy(() -> read("--security", "sasl_ssl", "--brokers", "child_jvm"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--brokers in_jvm");
    }

    @Test
    void unknownProfilesSecurityAndAcksAreRefusedNamingWhatIsAllowed() {
        assertThatThrownBy(() -> read("--profile", "moon")).hasMessageContaining("cross-zone");
        assertThatThrownBy(() -> read("--security", "ssl")).hasMessageContaining("plaintext or sasl_ssl");
        assertThatThrownBy(() -> read("--acks", "0")).hasMessageContaining("expected all or 1");
        assertThatThrownBy(() -> read("--client-rtt-ms", "-1")).hasMessageContaining("expected a whole number >= 0");
    }

    @Test
    void slowBatchesAreThoseOverFiftyMillisecondsAndTwoClientRoundTripsUnlessTold() {
        assertThat(read().slowBatchMillis()).isEqualTo(50);
        assertThat(read("--profile", "cross-region").slowBatchMillis()).isEqualTo(110);
        assertThat(read("--slow-batch-ms", "5").slowBatchMillis()).isEqualTo(5);
    }

    private static LeaderMoveOptions read(String... args) {
        CommandLine line = CommandLine.parse(args);
        LeaderMoveOptions options = LeaderMoveOptions.read(line);
        line.done();
        return options;
    }
}
