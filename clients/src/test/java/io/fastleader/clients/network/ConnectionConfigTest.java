package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import io.fastleader.protocol.ApiKey;
import org.junit.jupiter.api.Test;

class ConnectionConfigTest {

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
