package io.fastleader.clients.network;

import java.time.Duration;
import java.util.Objects;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;

/**
 * The settings of a {@link ConnectionPool}, named after the Kafka client configs they come from.
 *
 * @param reconnectBackoff    {@code reconnect.backoff.ms}: the wait after a first failed connect to a node
 * @param reconnectBackoffMax {@code reconnect.backoff.max.ms}: the wait doubles with each further failure up to
 *                            this; as in Kafka, a maximum below {@code reconnect.backoff.ms} leaves the wait at
 *                            {@code reconnect.backoff.ms}
 * @param connectionsMaxIdle  {@code connections.max.idle.ms}: a connection unused this long is closed
 * @param connectTimeoutMax   {@code socket.connection.setup.timeout.max.ms}: a node's connection setup timeout
 *                            ({@link ConnectionConfig#connectTimeout}) doubles with each consecutive failed connect
 *                            to it up to this, as in kafka-clients
 */
public record PoolConfig(Duration reconnectBackoff, Duration reconnectBackoffMax, Duration connectionsMaxIdle,
                         Duration connectTimeoutMax) {

    /** Kafka's default {@code socket.connection.setup.timeout.max.ms}. */
    private static final Duration KAFKA_CONNECT_TIMEOUT_MAX = Duration.ofSeconds(30);

    /** These settings with Kafka's default {@code socket.connection.setup.timeout.max.ms}, 30 s. */
    public PoolConfig(Duration reconnectBackoff, Duration reconnectBackoffMax, Duration connectionsMaxIdle) {
        this(reconnectBackoff, reconnectBackoffMax, connectionsMaxIdle, KAFKA_CONNECT_TIMEOUT_MAX);
    }

    /** Kafka's defaults: 50 ms backoff growing to 1 s, connections closed after 9 minutes idle, setup timeouts up to 30 s. */
    public static PoolConfig defaults() {
        return new PoolConfig(Duration.ofMillis(50), Duration.ofMillis(1000), Duration.ofMillis(540_000));
    }

    /** The settings from a parsed producer or consumer configuration. */
    public static PoolConfig from(AbstractConfig kafka) {
        return new PoolConfig(Duration.ofMillis(kafka.getLong(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG)),
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG)),
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.CONNECTIONS_MAX_IDLE_MS_CONFIG)),
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG)));
    }

    /** {@code reconnect.backoff.ms} .. {@code reconnect.backoff.max.ms} with Kafka's jitter. */
    public ExponentialBackoff reconnectBackoffPolicy() {
        return new ExponentialBackoff(reconnectBackoff, reconnectBackoffMax, ExponentialBackoff.KAFKA_JITTER);
    }

    /**
     * {@code connectTimeout} ({@code socket.connection.setup.timeout.ms}) ..
     * {@code socket.connection.setup.timeout.max.ms} with Kafka's jitter: the setup timeout after
     * so many consecutive failed connects to a node, the first attempt counted as after one.
     */
    public ExponentialBackoff connectTimeoutPolicy(Duration connectTimeout) {
        return new ExponentialBackoff(connectTimeout, connectTimeoutMax, ExponentialBackoff.KAFKA_JITTER);
    }

    public PoolConfig {
        Objects.requireNonNull(reconnectBackoff, "reconnectBackoff");
        Objects.requireNonNull(reconnectBackoffMax, "reconnectBackoffMax");
        Objects.requireNonNull(connectionsMaxIdle, "connectionsMaxIdle");
        Objects.requireNonNull(connectTimeoutMax, "connectTimeoutMax");
        if (reconnectBackoff.isNegative()) {
            throw new IllegalArgumentException("reconnect.backoff.ms must not be negative, not " + reconnectBackoff.toMillis());
        }
        if (reconnectBackoffMax.isNegative()) {
            throw new IllegalArgumentException("reconnect.backoff.max.ms must not be negative, not " + reconnectBackoffMax.toMillis());
        }
        if (connectTimeoutMax.isNegative() || connectTimeoutMax.isZero()) {
            throw new IllegalArgumentException("socket.connection.setup.timeout.max.ms must be positive, not " + connectTimeoutMax.toMillis());
        }
        if (connectionsMaxIdle.isNegative() || connectionsMaxIdle.isZero()) {
            throw new IllegalArgumentException("connections.max.idle.ms must be positive, not " + connectionsMaxIdle.toMillis());
        }
    }
}
