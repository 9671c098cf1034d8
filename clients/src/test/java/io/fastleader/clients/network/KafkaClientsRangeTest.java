package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaClientsRangeTest {

    @Test
    void testTheKafkaClientsOnTheTestClasspathIsInTheSupportedLine() {
        assertThatCode(KafkaClientsRange::requireSupported).doesNotThrowAnyException();
    }

    @Test
    void testReadsTheVersionOfTheKafkaClientsJarOnTheClasspath() {
        assertThat(KafkaClientsRange.onClasspath()).isEqualTo(AppInfoParser.getVersion());
    }

    @ParameterizedTest
    @ValueSource(strings = {"4.3.0", "4.3.1", "4.3.2-SNAPSHOT"})
    void testAcceptsEveryReleaseOfTheSupportedLine(String version) {
        assertThatCode(() -> KafkaClientsRange.requireSupported(version)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.9.1", "4.2.2", "4.4.0", "4.30.0", "14.3.0"})
    void testRefusesAReleaseOfAnotherLineNamingItAndTheSupportedLine(String version) {
        assertThatThrownBy(() -> KafkaClientsRange.requireSupported(version))
            .isInstanceOf(KafkaException.class)
            .hasMessageContaining("found " + version + ":")
            .hasMessageContaining("needs kafka-clients 4.3.x");
    }

    @Test
    void testLetsAnUnreadableVersionTry() {
        assertThatCode(() -> KafkaClientsRange.requireSupported("unknown")).doesNotThrowAnyException();
    }
}
