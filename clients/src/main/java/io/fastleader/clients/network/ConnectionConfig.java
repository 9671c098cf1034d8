package io.fastleader.clients.network;

import java.time.Duration;
import java.util.Objects;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;

/**
 * The settings of one broker connection, named after the Kafka client configs they come from.
 *
 * @param clientId                {@code client.id}, sent in every request header
 * @param maxInFlight             {@code max.in.flight.requests.per.connection}: requests written but not yet answered
 * @param requestTimeout          {@code request.timeout.ms}: from writing a request to its response
 * @param rebalanceRequestTimeout from writing a JoinGroup or SyncGroup request to its response, never shorter than
 *                                {@code requestTimeout}: the group coordinator holds these until the group has
 *                                rebalanced, for up to the member's rebalance timeout. A consumer's is
 *                                {@code max(request.timeout.ms, max.poll.interval.ms + 5 s)}, as {@code KafkaConsumer}
 *                                times its JoinGroup; {@code requestTimeout} unless set
 *                                ({@link #withRebalanceRequestTimeout})
 * @param connectTimeout          {@code socket.connection.setup.timeout.ms}: TCP connect
 * @param maxResponseBytes        largest response frame accepted; a bigger size prefix closes the connection
 * @param security                TLS and SASL settings
 * @param sendBufferBytes         {@code send.buffer.bytes}: the socket's send buffer ({@code SO_SNDBUF}), or
 *                                {@value #OS_DEFAULT_BUFFER} for the operating system's
 * @param receiveBufferBytes      {@code receive.buffer.bytes}: the socket's receive buffer ({@code SO_RCVBUF}), or
 *                                {@value #OS_DEFAULT_BUFFER} for the operating system's
 * @param clusterCheck            the cluster and node the connection names in its ApiVersions for the broker to
 *                                check (KIP-1242), or null to name none ({@link #withClusterCheck})
 */
public record ConnectionConfig(String clientId, int maxInFlight, Duration requestTimeout, Duration rebalanceRequestTimeout,
                               Duration connectTimeout, int maxResponseBytes, SecurityConfig security, int sendBufferBytes,
                               int receiveBufferBytes, ClusterCheck clusterCheck) {

    /** A socket buffer size that leaves the operating system's, as in kafka-clients. */
    public static final int OS_DEFAULT_BUFFER = -1;

    /**
     * Settings whose JoinGroup and SyncGroup requests time out after {@code requestTimeout}, as
     * every other request, on sockets with the operating system's buffer sizes.
     */
    public ConnectionConfig(String clientId, int maxInFlight, Duration requestTimeout, Duration connectTimeout,
                            int maxResponseBytes, SecurityConfig security) {
        this(clientId, maxInFlight, requestTimeout, requestTimeout, connectTimeout, maxResponseBytes, security, OS_DEFAULT_BUFFER,
            OS_DEFAULT_BUFFER, null);
    }

    /**
     * Kafka's defaults: 5 in flight, 30 s request timeout, 10 s connect timeout, PLAINTEXT; responses
     * up to 100 MiB.
     */
    public static ConnectionConfig defaults(String clientId) {
        return new ConnectionConfig(clientId, 5, Duration.ofSeconds(30), Duration.ofSeconds(10), 100 * 1024 * 1024,
            SecurityConfig.PLAINTEXT);
    }

    /**
     * The settings from a parsed producer or consumer configuration: {@code request.timeout.ms},
     * {@code socket.connection.setup.timeout.ms}, {@code send.buffer.bytes},
     * {@code receive.buffer.bytes} and the security keys; responses of any size.
     * JoinGroup and SyncGroup time out after {@code request.timeout.ms} too; a consumer sets their
     * own timeout with {@link #withRebalanceRequestTimeout}.
     *
     * @param maxInFlight requests a connection may have written but not yet answered
     */
    public static ConnectionConfig from(AbstractConfig kafka, String clientId, int maxInFlight) {
        Duration requestTimeout = Duration.ofMillis(kafka.getInt(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG));
        return new ConnectionConfig(clientId, maxInFlight, requestTimeout, requestTimeout,
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG)),
                Integer.MAX_VALUE,
                SecurityConfig.fromKafkaConfigs(kafka.originals()),
                kafka.getInt(CommonClientConfigs.SEND_BUFFER_CONFIG),
                kafka.getInt(CommonClientConfigs.RECEIVE_BUFFER_CONFIG), null);
    }

    /** This config with other security settings. */
    public ConnectionConfig withSecurity(SecurityConfig security) {
        return new ConnectionConfig(clientId, maxInFlight, requestTimeout, rebalanceRequestTimeout, connectTimeout,
            maxResponseBytes, security, sendBufferBytes, receiveBufferBytes, clusterCheck);
    }

    /** This config with {@code connectTimeout} to set a connection up: a node's, grown after failed connects. */
    public ConnectionConfig withConnectTimeout(Duration connectTimeout) {
        return new ConnectionConfig(clientId, maxInFlight, requestTimeout, rebalanceRequestTimeout, connectTimeout,
            maxResponseBytes, security, sendBufferBytes, receiveBufferBytes, clusterCheck);
    }

    /** This config naming {@code clusterCheck}'s cluster and node to the broker, or none if null. */
    public ConnectionConfig withClusterCheck(ClusterCheck clusterCheck) {
        return new ConnectionConfig(clientId, maxInFlight, requestTimeout, rebalanceRequestTimeout, connectTimeout,
            maxResponseBytes, security, sendBufferBytes, receiveBufferBytes, clusterCheck);
    }

    /** This config with JoinGroup and SyncGroup timing out after {@code rebalanceRequestTimeout}. */
    public ConnectionConfig withRebalanceRequestTimeout(Duration rebalanceRequestTimeout) {
        return new ConnectionConfig(clientId, maxInFlight, requestTimeout, rebalanceRequestTimeout, connectTimeout,
            maxResponseBytes, security, sendBufferBytes, receiveBufferBytes, clusterCheck);
    }

    /**
     * How long a request of {@code api} may wait for its response once written: the
     * {@link #rebalanceRequestTimeout} for JoinGroup and SyncGroup, the {@link #requestTimeout} for
     * every other. One timeout per {@link ConnectionLane}, so all requests on one of
     * {@link ConnectionPool}'s connections share one.
     */
    public Duration requestTimeoutFor(ApiKey api) {
        return ConnectionLane.of(api) == ConnectionLane.REBALANCE ? rebalanceRequestTimeout : requestTimeout;
    }

    /** The setting {@link #requestTimeoutFor} {@code api} is, as the failure of a request that timed out names it. */
    static String requestTimeoutNameFor(ApiKey api) {
        return ConnectionLane.of(api) == ConnectionLane.REBALANCE
            ? "the rebalance request timeout: max.poll.interval.ms + 5000 ms, at least request.timeout.ms"
            : "request.timeout.ms";
    }

    public ConnectionConfig {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(rebalanceRequestTimeout, "rebalanceRequestTimeout");
        Objects.requireNonNull(security, "security");
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("max.in.flight.requests.per.connection must be at least 1, not " + maxInFlight);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request.timeout.ms must be positive, not " + requestTimeout.toMillis());
        }
        // A connection's writer with nothing in flight waits request.timeout.ms before it looks at a deadline again.
        if (rebalanceRequestTimeout.compareTo(requestTimeout) < 0) {
            throw new IllegalArgumentException("the rebalance request timeout must be at least request.timeout.ms ("
                + requestTimeout.toMillis() + " ms), not " + rebalanceRequestTimeout.toMillis() + " ms");
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("socket.connection.setup.timeout.ms must be positive, not " + connectTimeout.toMillis());
        }
        if (sendBufferBytes < OS_DEFAULT_BUFFER || receiveBufferBytes < OS_DEFAULT_BUFFER) {
            throw new IllegalArgumentException("send.buffer.bytes and receive.buffer.bytes must be at least -1 (the operating system's), not "
                + sendBufferBytes + " and " + receiveBufferBytes);
        }
        if (maxResponseBytes < 4) {
            throw new IllegalArgumentException("maxResponseBytes must be at least 4, not " + maxResponseBytes);
        }
    }
}
