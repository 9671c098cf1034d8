package io.fastleader.clients.network;

import java.security.Principal;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.Map;

import javax.security.auth.Subject;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.Login;
import org.apache.kafka.common.security.authenticator.DefaultLogin;
import org.apache.kafka.common.security.authenticator.LoginManager;
import org.apache.kafka.common.security.authenticator.SaslClientCallbackHandler;
import org.apache.kafka.common.security.kerberos.KerberosClientCallbackHandler;
import org.apache.kafka.common.security.kerberos.KerberosLogin;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerRefreshingLogin;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslClientCallbackHandler;

/**
 * One client's SASL login, made of kafka-clients' own pieces as its {@code SaslChannelBuilder}
 * makes them, so every mechanism and every {@code sasl.*} key works as it does there: the JAAS
 * context from {@code sasl.jaas.config} or the static JAAS file's {@code KafkaClient} entry; the
 * login ({@code sasl.login.class}, or the mechanism's default: Kerberos, refreshing OAUTHBEARER,
 * or the plain JAAS login), shared with every client of the same JAAS configuration; the callback
 * handler ({@code sasl.client.callback.handler.class}, or the mechanism's default). Each connection
 * gets a {@link SaslClient} of the JDK's SASL framework, made and run under the login's subject: a
 * mechanism registered by its login module (SCRAM, OAUTHBEARER, a third party's) needs nothing of ours.
 */
final class SaslLogin implements AutoCloseable {

    private final String mechanism;
    private final Map<String, ?> configs;
    private final LoginManager loginManager;
    private final AuthenticateCallbackHandler callbackHandler;

    private SaslLogin(String mechanism, Map<String, ?> configs, LoginManager loginManager, AuthenticateCallbackHandler callbackHandler) {
        this.mechanism = mechanism;
        this.configs = configs;
        this.loginManager = loginManager;
        this.callbackHandler = callbackHandler;
    }

    /**
     * Logs in as {@code security} says.
     *
     * @throws KafkaException if there is no JAAS configuration, the login fails, or a configured class
     *                        cannot be made, as kafka-clients' clients fail to be built
     */
    static SaslLogin of(SecurityConfig security) {
        String mechanism = security.saslMechanism();
        Map<String, ?> configs = security.channelConfigs();
        AuthenticateCallbackHandler callbackHandler = null;
        try {
            JaasContext jaas = JaasContext.loadClientContext(configs);
            callbackHandler = newInstance(configs.get(SaslConfigs.SASL_CLIENT_CALLBACK_HANDLER_CLASS), defaultCallbackHandler(mechanism),
                AuthenticateCallbackHandler.class);
            callbackHandler.configure(configs, mechanism, jaas.configurationEntries());
            LoginManager loginManager = LoginManager.acquireLoginManager(jaas, mechanism, defaultLogin(mechanism), configs);
            return new SaslLogin(mechanism, configs, loginManager, callbackHandler);
        } catch (KafkaException e) {
            closeQuietly(callbackHandler);
            throw e;
        } catch (Exception e) {
            closeQuietly(callbackHandler);
            throw new KafkaException(e);
        }
    }

    /** The mechanism, {@code sasl.mechanism}. */
    String mechanism() {
        return mechanism;
    }

    /**
     * A SASL client for the broker at {@code host}, as kafka-clients' {@code SaslClientAuthenticator}
     * makes one: for GSSAPI the login's principal is the authorization id, for the others the
     * authenticated user is; the service name is the login's ({@code sasl.kerberos.service.name}).
     *
     * @throws SaslAuthenticationException if no registered provider makes a client for the mechanism
     */
    SaslClient client(String host) {
        String clientPrincipal = SaslConfigs.GSSAPI_MECHANISM.equals(mechanism) ? firstPrincipal() : null;
        SaslClient client;
        try {
            client = asLoggedIn(() -> Sasl.createSaslClient(new String[] {mechanism}, clientPrincipal, loginManager.serviceName(), host,
                configs, callbackHandler));
        } catch (SaslException e) {
            throw new SaslAuthenticationException("Failed to create SaslClient with mechanism " + mechanism, e);
        }
        if (client == null) {
            throw new SaslAuthenticationException("Failed to create SaslClient with mechanism " + mechanism
                + ": no SASL client provider registered for it (its login module registers one)");
        }
        return client;
    }

    /**
     * The client's answer to the broker's {@code challenge}, computed under the login's subject,
     * where the callback handler finds the credentials.
     *
     * @throws SaslAuthenticationException if the client refuses the challenge
     */
    byte[] evaluate(SaslClient client, byte[] challenge) {
        try {
            return asLoggedIn(() -> client.evaluateChallenge(challenge));
        } catch (SaslException e) {
            throw new SaslAuthenticationException("An error: (" + e + ") occurred when evaluating SASL token received from the Kafka Broker. "
                + "Kafka Client will go to AUTHENTICATION_FAILED state.", e);
        }
    }

    /** Lets go of the login (the last client of its JAAS configuration logs out) and closes the callback handler. */
    @Override
    public void close() {
        try {
            loginManager.release();
        } finally {
            callbackHandler.close();
        }
    }

    @SuppressWarnings("removal") // Subject.doAs is kafka-clients' way too; from Java 18 on it binds the subject as callAs does.
    private <T> T asLoggedIn(PrivilegedExceptionAction<T> action) throws SaslException {
        try {
            return Subject.doAs(loginManager.subject(), action);
        } catch (PrivilegedActionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof SaslException sasl ? sasl : new SaslException(cause.getMessage(), cause);
        }
    }

    private String firstPrincipal() {
        Subject subject = loginManager.subject();
        synchronized (subject.getPrincipals()) {
            return subject.getPrincipals().stream().findFirst().map(Principal::getName)
                .orElseThrow(() -> new KafkaException("Principal could not be determined from Subject, this may be a transient failure due to"
                    + " Kerberos re-login"));
        }
    }

    private static Class<? extends Login> defaultLogin(String mechanism) {
        if (SaslConfigs.GSSAPI_MECHANISM.equals(mechanism)) {
            return KerberosLogin.class;
        }
        return OAuthBearerLoginModule.OAUTHBEARER_MECHANISM.equals(mechanism) ? OAuthBearerRefreshingLogin.class : DefaultLogin.class;
    }

    private static Class<?> defaultCallbackHandler(String mechanism) {
        if (SaslConfigs.GSSAPI_MECHANISM.equals(mechanism)) {
            return KerberosClientCallbackHandler.class;
        }
        return OAuthBearerLoginModule.OAUTHBEARER_MECHANISM.equals(mechanism)
            ? OAuthBearerSaslClientCallbackHandler.class : SaslClientCallbackHandler.class;
    }

    /** An instance of the configured class (a {@link Class} once parsed), or of {@code fallback} when none is. */
    private static <T> T newInstance(Object configured, Class<?> fallback, Class<T> type) throws ReflectiveOperationException {
        Class<?> chosen = configured instanceof Class<?> given ? given : fallback;
        if (!type.isAssignableFrom(chosen)) {
            throw new KafkaException(chosen.getName() + " is not an instance of " + type.getName());
        }
        return type.cast(chosen.getDeclaredConstructor().newInstance());
    }

    private static void closeQuietly(AuthenticateCallbackHandler handler) {
        if (handler != null) {
            handler.close();
        }
    }
}
