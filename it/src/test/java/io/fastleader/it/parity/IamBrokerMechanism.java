package io.fastleader.it.parity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Provider;
import java.security.Security;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

import javax.security.auth.Subject;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.spi.LoginModule;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import javax.security.sasl.SaslServerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The broker's side of {@code AWS_MSK_IAM}, which only MSK's brokers have: a test broker names
 * {@link LoginModule} in its listener's {@code sasl.jaas.config}, whose loading registers a
 * {@link SaslServer} for the mechanism, as Kafka's own login modules register theirs.
 *
 * <p>The server reads the client's one message as MSK documents it (a JSON object: {@code version}
 * 2020_10_22, {@code host}, {@code action} {@code kafka-cluster:Connect} and a SigV4 presigned
 * query's {@code x-amz-*} fields), takes it when the version, action and host are right, the
 * credential's access key is one of {@link #ACCESS_KEYS} and a signature is there, and answers
 * with a {@code version} and {@code request-id}. It does not recompute the signature: that checks
 * the AWS SDK, not the Kafka client driving it. A refusal is a {@link SaslException}, which the
 * broker answers as it answers any refused login.
 */
final class IamBrokerMechanism {

    static final String MECHANISM = "AWS_MSK_IAM";
    /** The access keys the brokers take. */
    static final Set<String> ACCESS_KEYS = Set.of("AKIAFASTLEADERTEST01");
    private static final String VERSION = "2020_10_22";
    private static final Pattern SIGNATURE = Pattern.compile("[0-9a-f]{64}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private IamBrokerMechanism() {
    }

    /** The brokers' {@code sasl.jaas.config} on the listener. */
    static String brokerLogin() {
        return Login.class.getName() + " required;";
    }

    /** Registers the mechanism's server when the broker loads it; logs in as nobody in particular. */
    public static final class Login implements LoginModule {
        static {
            Security.addProvider(new ServerProvider());
        }

        @Override
        public void initialize(Subject subject, CallbackHandler handler, Map<String, ?> sharedState, Map<String, ?> options) {
        }

        @Override
        public boolean login() {
            return true;
        }

        @Override
        public boolean commit() {
            return true;
        }

        @Override
        public boolean abort() {
            return false;
        }

        @Override
        public boolean logout() {
            return true;
        }
    }

    private static final class ServerProvider extends Provider {
        private static final long serialVersionUID = 1L;

        ServerProvider() {
            super("fastleader test AWS_MSK_IAM server", "1.0", "The brokers' side of AWS_MSK_IAM for tests");
            put("SaslServerFactory." + MECHANISM, ServerFactory.class.getName());
        }
    }

    /** Made by the JDK's SASL framework from the provider's entry. */
    public static final class ServerFactory implements SaslServerFactory {
        @Override
        public SaslServer createSaslServer(String mechanism, String protocol, String serverName, Map<String, ?> props,
                                           CallbackHandler handler) {
            return MECHANISM.equals(mechanism) ? new Server() : null;
        }

        @Override
        public String[] getMechanismNames(Map<String, ?> props) {
            return new String[] {MECHANISM};
        }
    }

    private static final class Server implements SaslServer {
        private String accessKey;

        @Override
        public String getMechanismName() {
            return MECHANISM;
        }

        @Override
        public byte[] evaluateResponse(byte[] response) throws SaslException {
            JsonNode request;
            try {
                request = JSON.readTree(new String(response, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new SaslException("the authentication payload is not JSON: " + e.getMessage());
            }
            require(VERSION.equals(request.path("version").asText()), "unknown version " + request.path("version"));
            require("kafka-cluster:Connect".equals(request.path("action").asText()), "unknown action " + request.path("action"));
            require("localhost".equals(request.path("host").asText()), "signed for another host: " + request.path("host"));
            require(SIGNATURE.matcher(request.path("x-amz-signature").asText()).matches(), "no signature");
            String credential = request.path("x-amz-credential").asText();
            String key = credential.contains("/") ? credential.substring(0, credential.indexOf('/')) : credential;
            require(ACCESS_KEYS.contains(key), "unknown access key " + key);
            accessKey = key;
            return ("{\"version\":\"" + VERSION + "\",\"request-id\":\"" + UUID.randomUUID() + "\"}").getBytes(StandardCharsets.UTF_8);
        }

        private static void require(boolean holds, String refusal) throws SaslException {
            if (!holds) {
                throw new SaslException(refusal);
            }
        }

        @Override
        public boolean isComplete() {
            return accessKey != null;
        }

        @Override
        public String getAuthorizationID() {
            return accessKey;
        }

        @Override
        public byte[] unwrap(byte[] incoming, int offset, int len) {
            throw new IllegalStateException("no security layer");
        }

        @Override
        public byte[] wrap(byte[] outgoing, int offset, int len) {
            throw new IllegalStateException("no security layer");
        }

        @Override
        public Object getNegotiatedProperty(String propName) {
            return null;
        }

        @Override
        public void dispose() {
        }
    }
}
