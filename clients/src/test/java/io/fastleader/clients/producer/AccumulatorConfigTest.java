package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class AccumulatorConfigTest {

    @Test
    void testDefaultsAreKafkas() {
        AccumulatorConfig defaults = AccumulatorConfig.defaults();

        assertThat(defaults.batchSize()).isEqualTo(16_384);
        assertThat(defaults.lingerMs()).isEqualTo(5);
        assertThat(defaults.bufferMemory()).isEqualTo(33_554_432L);
        assertThat(defaults.deliveryTimeoutMs()).isEqualTo(120_000);
        assertThat(defaults.maxRequestSize()).isEqualTo(1_048_576);
    }

    @Test
    void testNegativeValueIsRejectedNamingKeyValueAndBound() {
        assertThatThrownBy(() -> new AccumulatorConfig(16_384, -1, 1024, Compression.NONE, 120_000, 1024))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("linger.ms")
                .hasMessageContaining("-1")
                .hasMessageContaining("at least 0");
    }

    @Test
    void testMissingCompressionIsRejected() {
        assertThatThrownBy(() -> new AccumulatorConfig(16_384, 5, 1024, null, 120_000, 1024))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("compression.type");
    }
}
