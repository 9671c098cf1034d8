package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.Provider;
import java.security.Security;
import java.util.List;
import java.util.Map;

import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.spi.LoginModule;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslClientFactory;
import javax.security.sasl.SaslException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SaslLoginTest {

    /** A mechanism no one but this test speaks, registered as a third party registers its own. */
    private static final String TEST_MECHANISM = "X-FASTLEADER-TEST";
    private static final Provider TEST_PROVIDER = new TestMechanismProvider();

    @BeforeAll
    static void registerTheTestMechanism() {
        Security.addProvider(TEST_PROVIDER);
    }

    @AfterAll
    static void unregisterTheTestMechanism() {
        Security.removeProvider(TEST_PROVIDER.getName());
    }

    @Test
    void testPlainAnswersWithTheCredentialsItsLoginModulePutInTheSubject() {
        try (SaslLogin login = SaslLogin.of(sasl("PLAIN",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"s3cret\";"))) {
            SaslClient client = login.client("broker-1");

            assertThat(client.hasInitialResponse()).isTrue();
            assertThat(new String(login.evaluate(client, new byte[0]), StandardCharsets.UTF_8)).isEqualTo("\0alice\0s3cret");
        }
    }

    @Test
    void testAMechanismOfAThirdPartyWorksThroughItsOwnLoginModuleAndCallbackHandler() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_SSL",
            "sasl.mechanism", TEST_MECHANISM,
            "sasl.jaas.config", TestLoginModule.class.getName() + " required token=\"t-42\";",
            "sasl.client.callback.handler.class", TestCallbackHandler.class.getName()));

        try (SaslLogin login = SaslLogin.of(security)) {
            SaslClient client = login.client("broker-1");

            assertThat(new String(login.evaluate(client, new byte[0]), StandardCharsets.UTF_8)).isEqualTo("token t-42 for broker-1");
        }
    }

    @Test
    void testAMechanismWithoutAProviderFailsAsKafkaClientsFails() {
        try (SaslLogin login = SaslLogin.of(sasl("X-NOBODY-SPEAKS",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"s3cret\";"))) {
            assertThatThrownBy(() -> login.client("broker-1"))
                .isInstanceOf(SaslAuthenticationException.class)
                .hasMessageStartingWith("Failed to create SaslClient with mechanism X-NOBODY-SPEAKS");
        }
    }

    @Test
    void testWithoutAJaasConfigurationTheLoginFailsNamingWhatIsMissing() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"));

        assertThatThrownBy(() -> SaslLogin.of(security))
            .isInstanceOf(KafkaException.class)
            .hasMessageContaining("KafkaClient")
            .hasMessageContaining("java.security.auth.login.config");
    }

    @Test
    void testACallbackHandlerClassOfTheWrongTypeIsRefused() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
            "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";",
            "sasl.client.callback.handler.class", String.class.getName()));

        assertThatThrownBy(() -> SaslLogin.of(security))
            .isInstanceOf(KafkaException.class)
            .hasMessageContaining("java.lang.String is not an instance of " + AuthenticateCallbackHandler.class.getName());
    }

    private static SecurityConfig sasl(String mechanism, String jaas) {
        return SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", mechanism, "sasl.jaas.config", jaas));
    }

    /** Logs in without touching the subject: the token stays in the JAAS options, where the callback handler reads it. */
    public static final class TestLoginModule implements LoginModule {
        @Override
        public void initialize(Subject subject, CallbackHandler callbackHandler, Map<String, ?> sharedState, Map<String, ?> options) {
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
            return true;
        }

        @Override
        public boolean logout() {
            return true;
        }
    }

    /** Answers the test client's name callback with the {@code token} option of the JAAS entry. */
    public static final class TestCallbackHandler implements AuthenticateCallbackHandler {
        private String token;

        @Override
        public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
            token = (String) jaasConfigEntries.get(0).getOptions().get("token");
        }

        @Override
        public void handle(Callback[] callbacks) {
            for (Callback callback : callbacks) {
                ((NameCallback) callback).setName(token);
            }
        }

        @Override
        public void close() {
        }
    }

    /** Registers {@link TestClientFactory} for {@link #TEST_MECHANISM}. */
    private static final class TestMechanismProvider extends Provider {
        TestMechanismProvider() {
            super("fastleader-sasl-test", "1.0", "a SASL mechanism for SaslLoginTest");
            put("SaslClientFactory." + TEST_MECHANISM, TestClientFactory.class.getName());
        }
    }

    /** Makes clients whose one message is the token their callback handler gives, and the broker's host. */
    public static final class TestClientFactory implements SaslClientFactory {
        @Override
        public SaslClient createSaslClient(String[] mechanisms, String authorizationId, String protocol, String serverName,
                                           Map<String, ?> props, CallbackHandler callbacks) {
            return new SaslClient() {
                private boolean complete;

                @Override
                public String getMechanismName() {
                    return TEST_MECHANISM;
                }

                @Override
                public boolean hasInitialResponse() {
                    return true;
                }

                @Override
                public byte[] evaluateChallenge(byte[] challenge) throws SaslException {
                    NameCallback name = new NameCallback("token");
                    try {
                        callbacks.handle(new Callback[] {name});
                    } catch (Exception e) {
                        throw new SaslException("no token", e);
                    }
                    complete = true;
                    return ("token " + name.getName() + " for " + serverName).getBytes(StandardCharsets.UTF_8);
                }

                @Override
                public boolean isComplete() {
                    return complete;
                }

                @Override
                public byte[] unwrap(byte[] incoming, int offset, int len) {
                    throw new IllegalStateException();
                }

                @Override
                public byte[] wrap(byte[] outgoing, int offset, int len) {
                    throw new IllegalStateException();
                }

                @Override
                public Object getNegotiatedProperty(String propName) {
                    return null;
                }

                @Override
                public void dispose() {
                }
            };
        }

        @Override
        public String[] getMechanismNames(Map<String, ?> props) {
            return new String[] {TEST_MECHANISM};
        }
    }
}
