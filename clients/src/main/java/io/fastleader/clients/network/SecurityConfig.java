package io.fastleader.clients.network;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import javax.security.auth.login.AppConfigurationEntry;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;

/**
 * How a connection secures itself, read from the Kafka client config keys: {@code security.protocol},
 * the {@code ssl.*} keys for TLS, and {@code sasl.mechanism} with {@code sasl.jaas.config} for SASL.
 *
 * @param protocol                      {@code security.protocol}
 * @param truststoreLocation            {@code ssl.truststore.location}, or null for the JDK's default trust
 * @param truststorePassword            {@code ssl.truststore.password}, or null
 * @param truststoreType                {@code ssl.truststore.type} (default JKS)
 * @param keystoreLocation              {@code ssl.keystore.location}, or null without a client certificate
 * @param keystorePassword              {@code ssl.keystore.password}, or null
 * @param keystoreType                  {@code ssl.keystore.type} (default JKS)
 * @param keyPassword                   {@code ssl.key.password}, or null for the keystore password
 * @param tlsProtocol                   {@code ssl.protocol} (default TLSv1.3)
 * @param endpointIdentification        {@code ssl.endpoint.identification.algorithm}: https (default) checks
 *                                      the broker's certificate names its host; empty turns the check off
 * @param saslMechanism                 {@code sasl.mechanism}: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
 * @param saslUsername                  the {@code username} option of {@code sasl.jaas.config}
 * @param saslPassword                  the {@code password} option of {@code sasl.jaas.config}
 */
public record SecurityConfig(Protocol protocol,
                             String truststoreLocation, String truststorePassword, String truststoreType,
                             String keystoreLocation, String keystorePassword, String keystoreType, String keyPassword,
                             String tlsProtocol, String endpointIdentification,
                             String saslMechanism, String saslUsername, String saslPassword) {

    /** {@code security.protocol} values. */
    public enum Protocol {
        PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL;

        /** Whether the connection is TLS. */
        public boolean usesTls() {
            return this == SSL || this == SASL_SSL;
        }

        /** Whether the connection authenticates with SASL. */
        public boolean usesSasl() {
            return this == SASL_PLAINTEXT || this == SASL_SSL;
        }
    }

    /** The mechanisms we authenticate with. */
    public static final Set<String> SASL_MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    /** No TLS, no SASL. */
    public static final SecurityConfig PLAINTEXT = new SecurityConfig(Protocol.PLAINTEXT,
        null, null, "JKS", null, null, "JKS", null, "TLSv1.3", "https", null, null, null);

    /**
     * Reads the security keys of a Kafka client config; other keys are ignored.
     *
     * @throws ConfigException naming the key, the value and what is allowed
     */
    public static SecurityConfig fromKafkaConfigs(Map<String, ?> configs) {
        Protocol protocol = protocol(string(configs, "security.protocol", "PLAINTEXT"));
        String mechanism = null;
        String username = null;
        String password = null;
        if (protocol.usesSasl()) {
            mechanism = string(configs, SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM);
            if (!SASL_MECHANISMS.contains(mechanism)) {
                throw new ConfigException(SaslConfigs.SASL_MECHANISM, mechanism, "supported mechanisms are " + SASL_MECHANISMS);
            }
            String jaas = string(configs, SaslConfigs.SASL_JAAS_CONFIG, null);
            if (jaas == null) {
                throw new ConfigException(SaslConfigs.SASL_JAAS_CONFIG, null, "required for " + protocol + " with " + mechanism);
            }
            Map<String, Object> jaasConfig = new HashMap<>();
            jaasConfig.put(SaslConfigs.SASL_JAAS_CONFIG, new Password(jaas));
            List<AppConfigurationEntry> entries = JaasContext.loadClientContext(jaasConfig).configurationEntries();
            username = JaasContext.configEntryOption(entries, "username", null);
            password = JaasContext.configEntryOption(entries, "password", null);
            if (username == null || password == null) {
                throw new ConfigException(SaslConfigs.SASL_JAAS_CONFIG, "(hidden)", "needs username and password options for " + mechanism);
            }
        }
        return new SecurityConfig(protocol,
            string(configs, SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, null),
            string(configs, SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, null),
            string(configs, SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, SslConfigs.DEFAULT_SSL_TRUSTSTORE_TYPE),
            string(configs, SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, null),
            string(configs, SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, null),
            string(configs, SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, SslConfigs.DEFAULT_SSL_KEYSTORE_TYPE),
            string(configs, SslConfigs.SSL_KEY_PASSWORD_CONFIG, null),
            string(configs, SslConfigs.SSL_PROTOCOL_CONFIG, SslConfigs.DEFAULT_SSL_PROTOCOL),
            string(configs, SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG,
                SslConfigs.DEFAULT_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM),
            mechanism, username, password);
    }

    private static Protocol protocol(String value) {
        try {
            return Protocol.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("security.protocol", value, "expected one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
        }
    }

    /** A config value as a string; Kafka configs may hold passwords as {@link Password}. */
    private static String string(Map<String, ?> configs, String key, String defaultValue) {
        Object value = configs.get(key);
        if (value == null) {
            return defaultValue;
        }
        return value instanceof Password password ? password.value() : value.toString();
    }

    /** Keeps passwords out of logs and exception messages. */
    @Override
    public String toString() {
        return "SecurityConfig[protocol=" + protocol + ", truststore=" + truststoreLocation + ", keystore=" + keystoreLocation
            + ", endpointIdentification=" + endpointIdentification + ", saslMechanism=" + saslMechanism
            + ", saslUsername=" + saslUsername + "]";
    }
}
