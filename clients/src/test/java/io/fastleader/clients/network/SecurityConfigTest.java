package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import io.fastleader.clients.network.SecurityConfig.Protocol;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

class SecurityConfigTest {

    /** A TLS config with the client key (and {@code ssl.key.password} unless null) and the CA as PEM values. */
    private static Map<String, Object> pemKeystore(String key, String keyPassword) {
        Map<String, Object> configs = new HashMap<>(Map.of(
            "security.protocol", "SSL",
            "ssl.truststore.type", "PEM",
            "ssl.truststore.certificates", Pem.CA,
            "ssl.keystore.type", "PEM",
            "ssl.keystore.certificate.chain", Pem.CLIENT_CERTIFICATE,
            "ssl.keystore.key", new Password(key)));
        if (keyPassword != null) {
            configs.put("ssl.key.password", new Password(keyPassword));
        }
        return configs;
    }

    private static final String SCRAM_JAAS =
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"s3cret\";";

    @Test
    void defaultsToPlaintextWithKafkasTlsDefaults() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of());

        assertThat(security.protocol()).isEqualTo(Protocol.PLAINTEXT);
        assertThat(security.endpointIdentification()).isEqualTo("https");
        assertThat(security.tlsProtocol()).isEqualTo("TLSv1.3");
        assertThat(security.truststoreType()).isEqualTo("JKS");
    }

    @Test
    void readsTheSaslKeysAsKafkaClientsParsesThem() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of(
            "security.protocol", "sasl_ssl", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", SCRAM_JAAS,
            "sasl.login.refresh.window.factor", "0.9", "custom.login.key", "kept"));

        assertThat(security.protocol()).isEqualTo(Protocol.SASL_SSL);
        assertThat(security.saslMechanism()).isEqualTo("SCRAM-SHA-512");
        assertThat(security.channelConfigs().get("sasl.jaas.config")).isEqualTo(new Password(SCRAM_JAAS));
        assertThat(security.channelConfigs().get("sasl.login.refresh.window.factor")).isEqualTo(0.9);
        assertThat(security.channelConfigs().get("custom.login.key")).isEqualTo("kept");
        assertThat(security.toString()).doesNotContain("s3cret");
    }

    @Test
    void takesKafkasDefaultMechanism() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_PLAINTEXT"));

        assertThat(security.saslMechanism()).isEqualTo("GSSAPI");
    }

    @Test
    void refusesAnUnknownProtocolNamingTheKey() {
        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "TLS")))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("security.protocol")
            .hasMessageContaining("TLS")
            .hasMessageContaining("PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
    }

    @Test
    void readsPemKeyAndCertificatesGivenAsValues() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(pemKeystore(Pem.CLIENT_KEY_ENCRYPTED, Pem.CLIENT_KEY_PASSWORD));

        assertThat(security.keystoreKey()).isEqualTo(Pem.CLIENT_KEY_ENCRYPTED);
        assertThat(security.keystoreCertificateChain()).isEqualTo(Pem.CLIENT_CERTIFICATE);
        assertThat(security.truststoreCertificates()).isEqualTo(Pem.CA);
        assertThat(security.toString()).doesNotContain(Pem.CLIENT_KEY_PASSWORD);
    }

    @Test
    void refusesAPemKeyWithAKeystoreTypeOtherThanPem() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.put("ssl.keystore.type", "PKCS12");

        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(configs))
            .isInstanceOf(ConfigException.class)
            .hasMessage("Invalid value PKCS12 for configuration ssl.keystore.type: ssl.keystore.key can only be given with type PEM");
    }

    @Test
    void refusesAPemKeyWithoutItsCertificateChain() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.remove("ssl.keystore.certificate.chain");

        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(configs))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("ssl.keystore.certificate.chain")
            .hasMessageContaining("required with ssl.keystore.key");
    }

    @Test
    void refusesAPemKeyAlongsideAKeystoreLocation() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.put("ssl.keystore.location", "/etc/client.pem");

        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(configs))
            .isInstanceOf(ConfigException.class)
            .hasMessage("Invalid value /etc/client.pem for configuration ssl.keystore.location: give either it or "
                + "ssl.keystore.key, not both");
    }

    @Test
    void refusesAKeystorePasswordWithPemHidingIt() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.put("ssl.keystore.password", "store-secret");

        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(configs))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("ssl.keystore.password")
            .hasMessageContaining("takes no password")
            .hasMessageNotContaining("store-secret");
    }

    @Test
    void refusesAnEncryptedPemKeyWithoutItsPassword() {
        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(pemKeystore(Pem.CLIENT_KEY_ENCRYPTED, null)))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("ssl.keystore.key")
            .hasMessageContaining("the private key is encrypted and no key password is given");
    }

    @Test
    void refusesAWrongPemKeyPasswordHidingTheKey() {
        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(pemKeystore(Pem.CLIENT_KEY_ENCRYPTED, "wrong")))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("Invalid value (hidden) for configuration ssl.keystore.key")
            .hasMessageContaining("cannot decrypt the private key");
    }

    @Test
    void refusesTruststoreCertificatesAlongsideATruststoreLocation() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.put("ssl.truststore.location", "/etc/ca.pem");

        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(configs))
            .isInstanceOf(ConfigException.class)
            .hasMessage("Invalid value /etc/ca.pem for configuration ssl.truststore.location: give either it or "
                + "ssl.truststore.certificates, not both");
    }

    @Test
    void refusesTruststoreCertificatesThatHoldNoCertificate() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.put("ssl.truststore.certificates", Pem.CLIENT_KEY);

        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(configs))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("for configuration ssl.truststore.certificates: PEM X.509 certificates are expected: "
                + "no certificate found");
    }

    @Test
    void ignoresTlsStoreKeysWhenTheProtocolIsNotTls() {
        Map<String, Object> configs = pemKeystore(Pem.CLIENT_KEY, null);
        configs.put("security.protocol", "PLAINTEXT");
        configs.put("ssl.keystore.type", "JKS");

        assertThat(SecurityConfig.fromKafkaConfigs(configs).protocol()).isEqualTo(Protocol.PLAINTEXT);
    }
}
