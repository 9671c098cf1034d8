package io.fastleader.it.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The security of the cluster's client listener.
 *
 * @param protocol      {@code security.protocol}: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
 * @param saslMechanism PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER for the SASL protocols, else null
 * @param username      the SASL user the cluster creates and the client config logs in as; for OAUTHBEARER the
 *                      subject of the unsecured token the client makes itself (the broker's default validator
 *                      takes it) unless {@code clientConfigs} log in otherwise
 * @param password      that user's password; unused by OAUTHBEARER
 * @param clientConfigs client settings on top of those the cluster gives its clients (its own admin's
 *                      included): the login a broker's validator needs, say ({@link #withClientConfig})
 * @param brokerLogin   the brokers' {@code sasl.jaas.config} for the mechanism on their client listener, for a
 *                      mechanism the cluster cannot set up from a user alone ({@link #withBrokerLogin}), else null
 */
public record Security(String protocol, String saslMechanism, String username, String password, Map<String, Object> clientConfigs,
                       String brokerLogin) {

    private static final Set<String> PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", Security.OAUTHBEARER);
    /** The mechanism whose unsecured tokens the broker takes by default. */
    public static final String OAUTHBEARER = "OAUTHBEARER";

    public Security {
        clientConfigs = Map.copyOf(clientConfigs);
        if (!PROTOCOLS.contains(protocol)) {
            throw new IllegalArgumentException("unknown security protocol " + protocol + "; expected one of " + PROTOCOLS);
        }
        if (isSasl(protocol) && brokerLogin != null) {
            Objects.requireNonNull(saslMechanism, "saslMechanism");
        } else if (isSasl(protocol)) {
            if (!MECHANISMS.contains(saslMechanism)) {
                throw new IllegalArgumentException("unsupported SASL mechanism " + saslMechanism + "; expected one of " + MECHANISMS);
            }
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
        } else if (saslMechanism != null) {
            throw new IllegalArgumentException(protocol + " takes no SASL mechanism");
        }
    }

    /** No TLS, no authentication. */
    public static Security plaintext() {
        return new Security("PLAINTEXT", null, null, null, Map.of(), null);
    }

    /** TLS with a certificate made for the test run. */
    public static Security ssl() {
        return new Security("SSL", null, null, null, Map.of(), null);
    }

    /** SASL without TLS, with one user. */
    public static Security saslPlaintext(String mechanism, String username, String password) {
        return new Security("SASL_PLAINTEXT", mechanism, username, password, Map.of(), null);
    }

    /** SASL over TLS, with one user. */
    public static Security saslSsl(String mechanism, String username, String password) {
        return new Security("SASL_SSL", mechanism, username, password, Map.of(), null);
    }

    /** This security with {@code key} set to {@code value} in every client's settings, the cluster's own included. */
    public Security withClientConfig(String key, Object value) {
        Map<String, Object> configs = new HashMap<>(clientConfigs);
        configs.put(key, value);
        return new Security(protocol, saslMechanism, username, password, configs, brokerLogin);
    }

    /**
     * SASL_PLAINTEXT with {@code mechanism}, which the brokers set up from {@code brokerLogin}, their
     * listener's {@code sasl.jaas.config} (Kerberos with the service principal's keytab, or a
     * mechanism whose server the test provides); clients use {@code mechanism} and log in as
     * {@link #withClientConfig} says.
     */
    public static Security withBrokerLogin(String mechanism, String brokerLogin) {
        String protocol = "SASL_PLAINTEXT";
        return new Security(protocol, mechanism, null, null, Map.of("security.protocol", protocol, "sasl.mechanism", mechanism), brokerLogin);
    }

    /**
     * The JAAS login of an unsecured OAUTHBEARER token whose subject is {@code subject}: what a
     * broker's default validator takes, from a client or from a broker on its own listener.
     */
    public static String unsecuredOAuthBearerLogin(String subject) {
        return "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"" + subject + "\";";
    }

    /** Whether the client logs in with an unsecured OAUTHBEARER token. */
    public boolean isOAuthBearer() {
        return OAUTHBEARER.equals(saslMechanism);
    }

    /** Whether this is plain PLAINTEXT. */
    public boolean isPlaintext() {
        return protocol.equals("PLAINTEXT");
    }

    private static boolean isSasl(String protocol) {
        return protocol.startsWith("SASL_");
    }
}
