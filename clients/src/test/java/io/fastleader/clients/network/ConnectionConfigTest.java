package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class ConnectionConfigTest {

    @Test
    void takesTheSocketBufferSizesOfTheClientsKeysWithKafkasDefaultsPerClient() {
        Map<String, Object> serdes = Map.of("key.serializer", StringSerializer.class, "value.serializer", StringSerializer.class,
            "key.deserializer", StringDeserializer.class, "value.deserializer", StringDeserializer.class, "bootstrap.servers", "localhost:9092");
        Map<String, Object> set = new HashMap<>(serdes);
        set.put("send.buffer.bytes", -1);
        set.put("receive.buffer.bytes", 1 << 20);

        ConnectionConfig producer = ConnectionConfig.from(new ProducerConfig(serdes), "p", 5);
        ConnectionConfig consumer = ConnectionConfig.from(new ConsumerConfig(serdes), "c", 5);
        ConnectionConfig configured = ConnectionConfig.from(new ProducerConfig(set), "p", 5);

        assertThat(List.of(producer.sendBufferBytes(), producer.receiveBufferBytes())).containsExactly(128 * 1024, 32 * 1024);
        assertThat(List.of(consumer.sendBufferBytes(), consumer.receiveBufferBytes())).containsExactly(128 * 1024, 64 * 1024);
        assertThat(List.of(configured.sendBufferBytes(), configured.receiveBufferBytes()))
            .containsExactly(ConnectionConfig.OS_DEFAULT_BUFFER, 1 << 20);
    }

    @Test
    void theRebalanceRequestTimeoutIsTheRequestTimeoutUnlessSet() {
        ConnectionConfig defaults = ConnectionConfig.defaults("test-client");
        ConnectionConfig withoutIt = new ConnectionConfig("test-client", 5, Duration.ofSeconds(12), Duration.ofSeconds(5), 1 << 20,
            SecurityConfig.PLAINTEXT);

        assertThat(defaults.rebalanceRequestTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(withoutIt.rebalanceRequestTimeout()).isEqualTo(Duration.ofSeconds(12));
        assertThat(defaults.withRebalanceRequestTimeout(Duration.ofSeconds(305)).rebalanceRequestTimeout())
            .isEqualTo(Duration.ofSeconds(305));
    }

    @Test
    void joinGroupAndSyncGroupTimeOutAfterTheRebalanceRequestTimeoutAndOtherRequestsAfterTheRequestTimeout() {
        ConnectionConfig config = ConnectionConfig.defaults("test-client").withRebalanceRequestTimeout(Duration.ofSeconds(305));

        assertThat(config.requestTimeoutFor(ApiKey.JOIN_GROUP)).isEqualTo(Duration.ofSeconds(305));
        assertThat(config.requestTimeoutFor(ApiKey.SYNC_GROUP)).isEqualTo(Duration.ofSeconds(305));
        assertThat(config.requestTimeoutFor(ApiKey.HEARTBEAT)).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.requestTimeoutFor(ApiKey.FETCH)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aRebalanceRequestTimeoutShorterThanTheRequestTimeoutIsRefused() {
        ConnectionConfig defaults = ConnectionConfig.defaults("test-client");

        assertThatThrownBy(() -> defaults.withRebalanceRequestTimeout(Duration.ofSeconds(29)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the rebalance request timeout must be at least request.timeout.ms (30000 ms), not 29000 ms");
    }
}
