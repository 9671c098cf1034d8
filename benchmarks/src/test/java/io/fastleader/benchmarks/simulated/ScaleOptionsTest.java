package io.fastleader.benchmarks.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.leadermove.Variant;

class ScaleOptionsTest {

    private static ScaleOptions read(String... args) {
        CommandLine line = CommandLine.parse(args);
        ScaleOptions options = ScaleOptions.read(line);
        line.done();
        return options;
    }

    @Test
    void defaultsToTheIssuesGrid() {
        ScaleOptions options = read();

        assertThat(options.brokers()).containsExactly(3, 10, 100);
        assertThat(options.partitions()).containsExactly(1000, 10000, 100000);
        assertThat(options.scenarios()).containsExactly(ScaleScenario.ROLL, ScaleScenario.REASSIGN);
        assertThat(options.variants()).containsExactly(Variant.FASTLEADER, Variant.KAFKA_CLIENTS_4_3_1, Variant.KAFKA_CLIENTS_3_6_0);
    }

    @Test
    void readsCommaSeparatedListsInTheOrderGiven() {
        ScaleOptions options = read("--brokers", "10, 3", "--partitions", "500", "--scenario", "reassign", "--variants",
            "kafka-clients-3.6.0,fastleader");

        assertThat(options.brokers()).containsExactly(10, 3);
        assertThat(options.partitions()).containsExactly(500);
        assertThat(options.scenarios()).containsExactly(ScaleScenario.REASSIGN);
        assertThat(options.variants()).containsExactly(Variant.KAFKA_CLIENTS_3_6_0, Variant.FASTLEADER);
    }

    @Test
    void refusesFewerBrokersThanTheReplicationFactor() {
        assertThatThrownBy(() -> read("--brokers", "3,2")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("--brokers 2");
    }

    @Test
    void refusesAnItemGivenTwice() {
        assertThatThrownBy(() -> read("--partitions", "1000,1000")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("given twice");
    }

    @Test
    void refusesAnUnknownScenarioNamingTheOption() {
        assertThatThrownBy(() -> read("--scenario", "roll,restart")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("--scenario roll,restart: 'restart'");
    }

    @Test
    void givesEveryVariantTheSameDefaultClientSettingsUnlessGivenOthers() {
        assertThat(read().clientConfig()).isEqualTo(Map.of("batch.size", "1024", "buffer.memory", "268435456"));
        assertThat(read("--client-config", "linger.ms=1").clientConfig()).isEqualTo(Map.of("linger.ms", "1"));
    }

    @Test
    void spreadsACellsPartitionsOverTopicsOfTheGivenSizeTheLastOneSmaller() {
        ScaleOptions options = read("--topic-partitions", "300");

        assertThat(List.of(options.topics(1000), options.topics(900), options.topics(1))).containsExactly(4, 3, 1);
    }
}
