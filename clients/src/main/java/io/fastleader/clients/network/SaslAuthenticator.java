package io.fastleader.clients.network;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.SaslAuthenticateRequestData;
import io.fastleader.protocol.message.SaslAuthenticateResponseData;
import io.fastleader.protocol.message.SaslHandshakeRequestData;
import io.fastleader.protocol.message.SaslHandshakeResponseData;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * SASL on a connection, after ApiVersions and again to re-authenticate: SaslHandshake names the
 * mechanism, then SaslAuthenticate carries the tokens of the login's {@link SaslClient} until it is
 * complete, each request sent when the answer before it comes, on the connection's loop. Failures
 * are kafka-clients': the broker's refusal as the error it answers with, in its words.
 */
final class SaslAuthenticator {

    private SaslAuthenticator() {
    }

    /**
     * Authenticates: each request goes out once the answer before it is in, through {@code exchange},
     * which sends one request on the connection.
     *
     * @return completes once the broker has accepted the credentials, with the session's lifetime in
     *         ms its last answer gave (0: the session never ends, KIP-368); fails with
     *         {@link SaslAuthenticationException} if it refuses them, with
     *         {@link UnsupportedSaslMechanismException} if it does not enable the mechanism
     */
    static CompletableFuture<Long> authenticate(SaslLogin login, String host,
                                                BiFunction<ApiKey, ApiMessage, CompletableFuture<ApiMessage>> exchange) {
        String mechanism = login.mechanism();
        return exchange.apply(ApiKey.SASL_HANDSHAKE, new SaslHandshakeRequestData().setMechanism(mechanism))
            .thenCompose(response -> {
                checkHandshake((SaslHandshakeResponseData) response, mechanism);
                SaslClient client = login.client(host);
                CompletableFuture<Long> authenticated;
                try {
                    authenticated = exchangeTokens(login, client, client.hasInitialResponse()
                        ? login.evaluate(client, new byte[0]) : new byte[0], exchange);
                } catch (RuntimeException e) {
                    authenticated = CompletableFuture.failedFuture(e);
                }
                return authenticated.whenComplete((done, failure) -> dispose(client));
            });
    }

    private static void checkHandshake(SaslHandshakeResponseData handshake, String mechanism) {
        ErrorCode error = ErrorCode.forCode(handshake.errorCode());
        if (error == ErrorCode.UNSUPPORTED_SASL_MECHANISM) {
            throw new UnsupportedSaslMechanismException("Client SASL mechanism '" + mechanism + "' not enabled in the server, enabled "
                + "mechanisms are " + handshake.mechanisms());
        }
        if (error == ErrorCode.ILLEGAL_SASL_STATE) {
            throw new IllegalSaslStateException("Unexpected handshake request with client mechanism " + mechanism + ", enabled mechanisms are "
                + handshake.mechanisms());
        }
        if (error != ErrorCode.NONE) {
            throw new AuthenticationException("Unknown error code " + error + ", client mechanism is " + mechanism
                + ", enabled mechanisms are " + handshake.mechanisms());
        }
    }

    /** Sends {@code token} and answers the broker's challenges until the SASL client is complete. */
    private static CompletableFuture<Long> exchangeTokens(SaslLogin login, SaslClient client, byte[] token,
                                                          BiFunction<ApiKey, ApiMessage, CompletableFuture<ApiMessage>> exchange) {
        return exchange.apply(ApiKey.SASL_AUTHENTICATE, new SaslAuthenticateRequestData().setAuthBytes(token))
            .thenCompose(response -> {
                SaslAuthenticateResponseData answer = (SaslAuthenticateResponseData) response;
                if (answer.errorCode() != ErrorCode.NONE.code()) {
                    ErrorCode error = ErrorCode.forCode(answer.errorCode());
                    throw answer.errorMessage() == null ? error.exception() : error.exception(answer.errorMessage());
                }
                if (client.isComplete()) {
                    return CompletableFuture.completedFuture(answer.sessionLifetimeMs());
                }
                byte[] next = login.evaluate(client, answer.authBytes());
                // SCRAM's last step only verifies the server's signature and sends nothing back.
                if (client.isComplete() && (next == null || next.length == 0)) {
                    return CompletableFuture.completedFuture(answer.sessionLifetimeMs());
                }
                return exchangeTokens(login, client, next, exchange);
            });
    }

    private static void dispose(SaslClient client) {
        try {
            client.dispose();
        } catch (SaslException e) {
            // Nothing is left to release that matters once authentication is over.
        }
    }
}
