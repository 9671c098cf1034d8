package io.fastleader.clients.network;

import static io.fastleader.clients.network.FrameServer.ranges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.network.FrameServer.Received;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.SaslAuthenticateResponseData;
import io.fastleader.protocol.message.SaslHandshakeResponseData;

/**
 * Re-authentication on an open connection (KIP-368) against a scripted broker that gives each SASL
 * session a lifetime: the exchange runs again on the same socket before the session ends, requests
 * sent meanwhile wait for it, and a refusal closes the connection with the broker's error.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BrokerConnectionReauthenticationTest {

    private static final ApiVersionsResponseData SASL_BROKER = ranges(ApiKey.API_VERSIONS, 0, 4, ApiKey.METADATA, 0, 13,
        ApiKey.SASL_HANDSHAKE, 0, 1, ApiKey.SASL_AUTHENTICATE, 0, 2);
    /** The first session's lifetime: re-authentication is due 255 to 285 ms after it starts. */
    private static final long SESSION_MS = 300;
    private static final ConnectionConfig CONFIG = new ConnectionConfig("test-client", 5, Duration.ofSeconds(10), Duration.ofSeconds(5),
        1 << 20, SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
            "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"s3cret\";")));

    private final FrameServer server = new FrameServer();
    private final List<String> told = new CopyOnWriteArrayList<>();
    private BrokerConnection connection;

    BrokerConnectionReauthenticationTest() throws IOException {
    }

    @AfterEach
    void close() {
        if (connection != null) {
            connection.close();
        }
        server.close();
    }

    @Test
    void testReauthenticatesOnTheOpenConnectionBeforeTheSessionEnds() throws Exception {
        open();

        assertThat(authenticate(0)).containsExactly(ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE);
        CompletableFuture<ApiMessage> metadata = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.respond(server.read(), new MetadataResponseData().setClusterId("same-socket"));

        assertThat(((MetadataResponseData) metadata.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("same-socket");
        assertThat(told).containsExactly("authenticated", "reauthenticated");
    }

    @Test
    void testRequestsSentWhileReauthenticatingWaitUntilItIsDone() throws Exception {
        open();
        Received handshake = server.read();
        assertThat(handshake.api()).isEqualTo(ApiKey.SASL_HANDSHAKE);

        CompletableFuture<ApiMessage> metadata = connection.send(ApiKey.METADATA, new MetadataRequestData());
        assertThat(server.readWithin(200)).as("a request sent while the handshake is unanswered").isEmpty();
        server.respond(handshake, new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN")));
        Received authenticate = server.read();
        server.respond(authenticate, new SaslAuthenticateResponseData());
        Received next = server.read();
        server.respond(next, new MetadataResponseData());

        assertThat(List.of(authenticate.api(), next.api())).containsExactly(ApiKey.SASL_AUTHENTICATE, ApiKey.METADATA);
        assertThat(metadata.get(10, TimeUnit.SECONDS)).isInstanceOf(MetadataResponseData.class);
    }

    @Test
    void testARefusedReauthenticationClosesTheConnectionWithTheBrokersError() throws Exception {
        open();
        Received handshake = server.read();
        CompletableFuture<ApiMessage> metadata = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.respond(handshake, new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN")));
        server.respond(server.read(), new SaslAuthenticateResponseData().setErrorCode(ErrorCode.SASL_AUTHENTICATION_FAILED.code())
            .setErrorMessage("the password changed"));

        ExecutionException failure = catchThrowableOfType(() -> metadata.get(10, TimeUnit.SECONDS), ExecutionException.class);
        assertThat(failure.getCause()).isInstanceOf(BrokerConnectionException.class)
            .cause().isInstanceOf(SaslAuthenticationException.class).hasMessage("the password changed");
        assertThat(connection.isOpen()).isFalse();
        assertThat(told).containsExactly("authenticated", "reauthentication failed", "closed");
    }

    /** Opens the connection: ApiVersions, then SASL PLAIN with a session of {@link #SESSION_MS}. */
    private void open() throws Exception {
        CompletableFuture<BrokerConnection> opening = CompletableFuture.supplyAsync(
            () -> BrokerConnection.open(server.address(), CONFIG, new ConnectionListener() {
                @Override
                public void authenticated() {
                    told.add("authenticated");
                }

                @Override
                public void reauthenticated(long latencyNanos) {
                    told.add("reauthenticated");
                }

                @Override
                public void reauthenticationFailed() {
                    told.add("reauthentication failed");
                }

                @Override
                public void closed() {
                    told.add("closed");
                }
            }));
        server.answerHandshake(SASL_BROKER);
        authenticate(SESSION_MS);
        connection = opening.get(10, TimeUnit.SECONDS);
    }

    /** Answers one SASL PLAIN exchange, giving the session {@code lifetimeMs}; returns the APIs it read. */
    private List<ApiKey> authenticate(long lifetimeMs) throws IOException {
        Received handshake = server.read();
        server.respond(handshake, new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN")));
        Received authenticate = server.read();
        server.respond(authenticate, new SaslAuthenticateResponseData().setSessionLifetimeMs(lifetimeMs));
        return List.of(handshake.api(), authenticate.api());
    }
}
