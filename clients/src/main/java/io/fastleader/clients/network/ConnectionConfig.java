package io.fastleader.clients.network;

import java.time.Duration;
import java.util.Objects;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;

/**
 * The settings of one broker connection, named after the Kafka client configs they come from.
 *
 * @param clientId         {@code client.id}, sent in every request header
 * @param maxInFlight      {@code max.in.flight.requests.per.connection}: requests written but not yet answered
 * @param requestTimeout   {@code request.timeout.ms}: from writing a request to its response
 * @param connectTimeout   {@code socket.connection.setup.timeout.ms}: TCP connect
 * @param maxResponseBytes largest response frame accepted; a bigger size prefix closes the connection
 * @param security         TLS and SASL settings
 */
public record ConnectionConfig(String clientId, int maxInFlight, Duration requestTimeout, Duration connectTimeout,
                               int maxResponseBytes, SecurityConfig security) {

    /** Kafka's defaults: 5 in flight, 30 s request timeout, 10 s connect timeout, PLAINTEXT; responses up to 100 MiB. */
    public static ConnectionConfig defaults(String clientId) {
        return new ConnectionConfig(clientId, 5, Duration.ofSeconds(30), Duration.ofSeconds(10), 100 * 1024 * 1024,
            SecurityConfig.PLAINTEXT);
    }

    /**
     * The settings from a parsed producer or consumer configuration: {@code request.timeout.ms},
     * {@code socket.connection.setup.timeout.ms} and the security keys; responses of any size.
     *
     * @param maxInFlight requests a connection may have written but not yet answered
     */
    public static ConnectionConfig from(AbstractConfig kafka, String clientId, int maxInFlight) {
        return new ConnectionConfig(clientId, maxInFlight,
                Duration.ofMillis(kafka.getInt(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG)),
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG)),
                Integer.MAX_VALUE,
                SecurityConfig.fromKafkaConfigs(kafka.originals()));
    }

    /** This config with other security settings. */
    public ConnectionConfig withSecurity(SecurityConfig security) {
        return new ConnectionConfig(clientId, maxInFlight, requestTimeout, connectTimeout, maxResponseBytes, security);
    }

    public ConnectionConfig {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(security, "security");
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("max.in.flight.requests.per.connection must be at least 1, not " + maxInFlight);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request.timeout.ms must be positive, not " + requestTimeout.toMillis());
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("socket.connection.setup.timeout.ms must be positive, not " + connectTimeout.toMillis());
        }
        if (maxResponseBytes < 4) {
            throw new IllegalArgumentException("maxResponseBytes must be at least 4, not " + maxResponseBytes);
        }
    }
}
