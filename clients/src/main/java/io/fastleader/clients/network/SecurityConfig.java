package io.fastleader.clients.network;

import java.security.GeneralSecurityException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;

/**
 * How a connection secures itself, read from the Kafka client config keys: {@code security.protocol},
 * the {@code ssl.*} keys for TLS, the {@code sasl.*} keys for SASL.
 *
 * @param protocol                      {@code security.protocol}
 * <p>Stores are files of any type the JDK reads (JKS, PKCS12), or PEM as Kafka takes it: with
 * {@code ssl.truststore.type=PEM}, certificates in {@code ssl.truststore.certificates} or in the file
 * at {@code ssl.truststore.location}; with {@code ssl.keystore.type=PEM}, a PKCS#8 private key in
 * {@code ssl.keystore.key} and its chain in {@code ssl.keystore.certificate.chain}, or both in the
 * file at {@code ssl.keystore.location}. A PEM key is encrypted with {@code ssl.key.password} or not
 * at all; PEM stores take no store password.
 *
 * @param truststoreLocation            {@code ssl.truststore.location}, or null for the JDK's default trust
 * @param truststorePassword            {@code ssl.truststore.password}, or null
 * @param truststoreType                {@code ssl.truststore.type} (default JKS)
 * @param truststoreCertificates        {@code ssl.truststore.certificates}: PEM certificates, or null
 * @param keystoreLocation              {@code ssl.keystore.location}, or null without a client certificate
 * @param keystorePassword              {@code ssl.keystore.password}, or null
 * @param keystoreType                  {@code ssl.keystore.type} (default JKS)
 * @param keystoreCertificateChain      {@code ssl.keystore.certificate.chain}: the PEM chain of {@code keystoreKey}, or null
 * @param keystoreKey                   {@code ssl.keystore.key}: a PEM PKCS#8 private key, or null
 * @param keyPassword                   {@code ssl.key.password}, or null for the keystore password (for a PEM
 *                                      key: null if the key is not encrypted)
 * @param tlsProtocol                   {@code ssl.protocol} (default TLSv1.3)
 * @param endpointIdentification        {@code ssl.endpoint.identification.algorithm}: https (default) checks
 *                                      the broker's certificate names its host; empty turns the check off
 * @param saslMechanism                 {@code sasl.mechanism} (default GSSAPI) for SASL, else null: any mechanism
 *                                      a registered SASL client provider speaks ({@link SaslLogin})
 * @param channelConfigs                for TLS or SASL, what kafka-clients' {@code SslEngineFactory}, login and SASL
 *                                      callback handlers are configured with ({@link TlsEngines}, {@link SaslLogin}):
 *                                      the {@code ssl.*} and {@code sasl.*} keys as kafka-clients parses them, the
 *                                      other keys as given; empty for PLAINTEXT
 */
public record SecurityConfig(Protocol protocol,
                             String truststoreLocation, String truststorePassword, String truststoreType,
                             String truststoreCertificates,
                             String keystoreLocation, String keystorePassword, String keystoreType,
                             String keystoreCertificateChain, String keystoreKey, String keyPassword,
                             String tlsProtocol, String endpointIdentification,
                             String saslMechanism, Map<String, ?> channelConfigs) {

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

    /** Stands in for a secret in exception messages. */
    private static final String HIDDEN = "(hidden)";

    /** No TLS, no SASL. */
    public static final SecurityConfig PLAINTEXT = new SecurityConfig(Protocol.PLAINTEXT,
        null, null, "JKS", null, null, null, "JKS", null, null, null, "TLSv1.3", "https", null, Map.of());

    /** The store type Kafka reads as PEM text. */
    public static final String PEM = "PEM";

    /**
     * Reads the security keys of a Kafka client config; other keys are ignored.
     *
     * @throws ConfigException naming the key, the value and what is allowed
     */
    public static SecurityConfig fromKafkaConfigs(Map<String, ?> configs) {
        Protocol protocol = protocol(string(configs, "security.protocol", "PLAINTEXT"));
        String mechanism = protocol.usesSasl() ? string(configs, SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM) : null;
        SecurityConfig security = new SecurityConfig(protocol,
            string(configs, SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, null),
            string(configs, SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, null),
            string(configs, SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, SslConfigs.DEFAULT_SSL_TRUSTSTORE_TYPE),
            string(configs, SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, null),
            string(configs, SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, null),
            string(configs, SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, null),
            string(configs, SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, SslConfigs.DEFAULT_SSL_KEYSTORE_TYPE),
            string(configs, SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, null),
            string(configs, SslConfigs.SSL_KEYSTORE_KEY_CONFIG, null),
            string(configs, SslConfigs.SSL_KEY_PASSWORD_CONFIG, null),
            string(configs, SslConfigs.SSL_PROTOCOL_CONFIG, SslConfigs.DEFAULT_SSL_PROTOCOL),
            string(configs, SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG,
                SslConfigs.DEFAULT_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM),
            mechanism, protocol == Protocol.PLAINTEXT ? Map.of() : channelConfigs(configs));
        // As in Kafka, the ssl.* keys matter only when the connection is TLS.
        if (protocol.usesTls()) {
            security.checkTruststore();
            security.checkKeystore();
        }
        return security;
    }

    /**
     * What kafka-clients configures its channel's security with: the {@code ssl.*} and {@code sasl.*}
     * keys parsed as it parses a client's, defaults included, beside every other key as given (an
     * engine factory, a login or a callback handler may read keys of its own, as Spring Boot's engine
     * factory reads its SSL bundle).
     */
    private static Map<String, ?> channelConfigs(Map<String, ?> configs) {
        Map<String, Object> all = new HashMap<>(configs);
        all.putAll(new AbstractConfig(new ConfigDef().withClientSslSupport().withClientSaslSupport(), configs, false).values());
        return Collections.unmodifiableMap(all);
    }

    /** Kafka's rules for where trusted certificates come from; PEM given as a value is parsed here. */
    private void checkTruststore() {
        if (truststoreCertificates != null) {
            requirePemWithoutFile(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, truststoreType, SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG,
                SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststoreLocation);
            try {
                PemStores.trustStore(truststoreCertificates);
            } catch (GeneralSecurityException e) {
                throw new ConfigException(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, abbreviated(truststoreCertificates),
                    "PEM X.509 certificates are expected: " + e.getMessage());
            }
        }
        if (PEM.equalsIgnoreCase(truststoreType) && truststorePassword != null) {
            throw new ConfigException(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, HIDDEN, "a PEM trust store takes no password");
        }
    }

    /** Kafka's rules for where the client's own key comes from; PEM given as values is parsed here. */
    private void checkKeystore() {
        if (keystoreKey != null) {
            requirePemWithoutFile(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, keystoreType, SslConfigs.SSL_KEYSTORE_KEY_CONFIG,
                SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keystoreLocation);
            if (keystoreCertificateChain == null) {
                throw new ConfigException(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, null,
                    "required with " + SslConfigs.SSL_KEYSTORE_KEY_CONFIG);
            }
            try {
                PemStores.keyStore(keystoreCertificateChain, keystoreKey, keyPassword, PemStores.randomEntryPassword());
            } catch (GeneralSecurityException e) {
                throw new ConfigException(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, HIDDEN,
                    "a PEM PKCS#8 private key (encrypted with " + SslConfigs.SSL_KEY_PASSWORD_CONFIG
                        + " or not at all) and its PEM certificate chain in " + SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG
                        + " are expected: " + e.getMessage());
            }
        } else if (keystoreCertificateChain != null) {
            throw new ConfigException(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, null,
                "required with " + SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG);
        }
        if (PEM.equalsIgnoreCase(keystoreType) && keystorePassword != null) {
            throw new ConfigException(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, HIDDEN,
                "a PEM key store takes no password; an encrypted PEM key takes " + SslConfigs.SSL_KEY_PASSWORD_CONFIG);
        }
    }

    /** A store given as PEM values ({@code valuesKey}) needs its type to be PEM and no file besides. */
    private static void requirePemWithoutFile(String typeKey, String type, String valuesKey, String locationKey, String location) {
        if (!PEM.equalsIgnoreCase(type)) {
            throw new ConfigException(typeKey, type, valuesKey + " can only be given with type PEM");
        }
        if (location != null) {
            throw new ConfigException(locationKey, location, "give either it or " + valuesKey + ", not both");
        }
    }

    /** PEM text is long; its start is enough to recognise it in a message. */
    private static String abbreviated(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "...";
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
            + ", endpointIdentification=" + endpointIdentification + ", saslMechanism=" + saslMechanism + "]";
    }
}
