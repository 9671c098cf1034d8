package io.fastleader.clients.network;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.SaslAuthenticateRequestData;
import io.fastleader.protocol.message.SaslAuthenticateResponseData;
import io.fastleader.protocol.message.SaslHandshakeRequestData;
import io.fastleader.protocol.message.SaslHandshakeResponseData;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;

/**
 * SASL on a new connection, after ApiVersions: SaslHandshake names the mechanism, then
 * SaslAuthenticate carries the tokens of the JDK's {@link SaslClient} until it is complete, each
 * request sent when the answer before it comes, on the connection's loop. PLAIN
 * comes from the JDK, SCRAM from the provider kafka-clients registers.
 */
final class SaslAuthenticator {

    static {
        ScramSaslClientProvider.initialize();
    }

    private SaslAuthenticator() {
    }

    /**
     * Authenticates: each request goes out once the answer before it is in, through {@code exchange},
     * which sends one request on the connection.
     *
     * @return completes once the broker has accepted the credentials; fails with
     *         {@link SaslAuthenticationException} if it refuses them, with
     *         {@link UnsupportedSaslMechanismException} if it does not enable the mechanism
     */
    static CompletableFuture<Void> authenticate(SecurityConfig security, String host,
                                                BiFunction<ApiKey, ApiMessage, CompletableFuture<ApiMessage>> exchange) {
        String mechanism = security.saslMechanism();
        return exchange.apply(ApiKey.SASL_HANDSHAKE, new SaslHandshakeRequestData().setMechanism(mechanism))
            .thenCompose(response -> {
                SaslHandshakeResponseData handshake = (SaslHandshakeResponseData) response;
                if (handshake.errorCode() == ErrorCode.UNSUPPORTED_SASL_MECHANISM.code()) {
                    throw new UnsupportedSaslMechanismException("the broker does not enable " + mechanism + "; it enables "
                        + handshake.mechanisms());
                }
                if (handshake.errorCode() != ErrorCode.NONE.code()) {
                    throw new IllegalSaslStateException("SaslHandshake failed: " + ErrorCode.forCode(handshake.errorCode()));
                }
                SaslClient client = client(security, host);
                CompletableFuture<Void> authenticated;
                try {
                    authenticated = exchangeTokens(security, client, client.hasInitialResponse()
                        ? evaluate(security, client, new byte[0]) : new byte[0], exchange);
                } catch (RuntimeException e) {
                    authenticated = CompletableFuture.failedFuture(e);
                }
                return authenticated.whenComplete((done, failure) -> dispose(client));
            });
    }

    /** Sends {@code token} and answers the broker's challenges until the SASL client is complete. */
    private static CompletableFuture<Void> exchangeTokens(SecurityConfig security, SaslClient client, byte[] token,
                                                          BiFunction<ApiKey, ApiMessage, CompletableFuture<ApiMessage>> exchange) {
        return exchange.apply(ApiKey.SASL_AUTHENTICATE, new SaslAuthenticateRequestData().setAuthBytes(token))
            .thenCompose(response -> {
                SaslAuthenticateResponseData answer = (SaslAuthenticateResponseData) response;
                if (answer.errorCode() != ErrorCode.NONE.code()) {
                    throw new SaslAuthenticationException(security.saslMechanism() + " authentication of " + security.saslUsername()
                        + " failed: " + (answer.errorMessage() != null ? answer.errorMessage()
                                : ErrorCode.forCode(answer.errorCode()).message()));
                }
                if (client.isComplete()) {
                    return CompletableFuture.completedFuture(null);
                }
                byte[] next = evaluate(security, client, answer.authBytes());
                // SCRAM's last step only verifies the server's signature and sends nothing back.
                if (client.isComplete() && (next == null || next.length == 0)) {
                    return CompletableFuture.completedFuture(null);
                }
                return exchangeTokens(security, client, next, exchange);
            });
    }

    private static byte[] evaluate(SecurityConfig security, SaslClient client, byte[] challenge) {
        try {
            return client.evaluateChallenge(challenge);
        } catch (SaslException e) {
            throw new SaslAuthenticationException(security.saslMechanism() + " authentication of " + security.saslUsername()
                + " failed: " + e.getMessage(), e);
        }
    }

    private static SaslClient client(SecurityConfig security, String host) {
        try {
            SaslClient client = Sasl.createSaslClient(new String[] {security.saslMechanism()}, null, "kafka", host, Map.of(),
                callbacks -> answer(callbacks, security));
            if (client == null) {
                throw new SaslAuthenticationException("no SASL client for " + security.saslMechanism() + " in this JVM");
            }
            return client;
        } catch (SaslException e) {
            throw new SaslAuthenticationException("cannot create a " + security.saslMechanism() + " client: " + e.getMessage(), e);
        }
    }

    private static void answer(Callback[] callbacks, SecurityConfig security) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
                name.setName(security.saslUsername());
            } else if (callback instanceof PasswordCallback password) {
                password.setPassword(security.saslPassword().toCharArray());
            } else if (!(callback instanceof ScramExtensionsCallback)) {
                // SCRAM extensions stay empty: we send none.
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private static void dispose(SaslClient client) {
        try {
            client.dispose();
        } catch (SaslException e) {
            // Nothing is left to release that matters once authentication is over.
        }
    }
}
