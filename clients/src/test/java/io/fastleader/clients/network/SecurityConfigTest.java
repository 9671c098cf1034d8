package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.fastleader.clients.network.SecurityConfig.Protocol;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

class SecurityConfigTest {

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
    void readsSaslCredentialsFromTheJaasConfig() {
        SecurityConfig security = SecurityConfig.fromKafkaConfigs(Map.of(
            "security.protocol", "sasl_ssl", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", new Password(SCRAM_JAAS)));

        assertThat(security.protocol()).isEqualTo(Protocol.SASL_SSL);
        assertThat(security.saslUsername()).isEqualTo("alice");
        assertThat(security.saslPassword()).isEqualTo("s3cret");
        assertThat(security.toString()).doesNotContain("s3cret");
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
    void refusesAMechanismWeDoNotSpeak() {
        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(Map.of(
            "security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "GSSAPI", "sasl.jaas.config", SCRAM_JAAS)))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("sasl.mechanism")
            .hasMessageContaining("GSSAPI");
    }

    @Test
    void refusesSaslWithoutAJaasConfig() {
        assertThatThrownBy(() -> SecurityConfig.fromKafkaConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN")))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("sasl.jaas.config");
    }
}
