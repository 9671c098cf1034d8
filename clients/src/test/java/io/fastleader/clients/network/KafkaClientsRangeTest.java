package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URISyntaxException;
import java.nio.file.Path;

import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaClientsRangeTest {

    @Test
    void testTheKafkaClientsOnTheTestClasspathIsInTheUnshadedBuildsLine() {
        assertThatCode(KafkaClientsRange::requireSupported).doesNotThrowAnyException();
    }

    @Test
    void testReadsTheVersionOfTheKafkaClientsJarOnTheClasspath() throws URISyntaxException {
        // Maven's file name says the release; AppInfoParser, which reads the version too, moved in 4.4.
        String jar = Path.of(KafkaException.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getFileName().toString();

        assertThat(jar).isEqualTo("kafka-clients-" + KafkaClientsRange.onClasspath() + ".jar");
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.7.0", "3.7.2", "3.9.1", "4.0.2", "4.3.1", "4.4.0", "4.4.3-SNAPSHOT"})
    void testTheRelocatedBuildAcceptsEveryReleaseFromTheOldestToTheNewestLine(String version) {
        assertThatCode(() -> KafkaClientsRange.requireSupported(version, true)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.6.2", "2.8.0", "4.5.0", "5.0.0", "14.3.0"})
    void testTheRelocatedBuildRefusesAReleaseOutsideItsRangeNamingBoth(String version) {
        assertThatThrownBy(() -> KafkaClientsRange.requireSupported(version, true))
            .isInstanceOf(KafkaException.class)
            .hasMessageContaining("found " + version + ":")
            .hasMessageContaining("needs kafka-clients 3.7 to 4.4 on the classpath")
            .hasMessageContaining("a release from 3.7.0 to 4.4.x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"4.3.0", "4.3.1", "4.3.2-SNAPSHOT"})
    void testTheUnshadedBuildAcceptsEveryReleaseOfTheLineItIsCompiledAgainst(String version) {
        assertThatCode(() -> KafkaClientsRange.requireSupported(version, false)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.9.1", "4.2.2", "4.4.0", "4.30.0"})
    void testTheUnshadedBuildRefusesAnotherLinePointingAtTheRelocatedArtifact(String version) {
        assertThatThrownBy(() -> KafkaClientsRange.requireSupported(version, false))
            .isInstanceOf(KafkaException.class)
            .hasMessageContaining("found " + version + ":")
            .hasMessageContaining("needs kafka-clients 4.3.x")
            .hasMessageContaining("The fastleader-clients artifact carries them");
    }

    @Test
    void testLetsAnUnreadableVersionTry() {
        assertThatCode(() -> KafkaClientsRange.requireSupported("unknown", true)).doesNotThrowAnyException();
    }
}
