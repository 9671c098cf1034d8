package io.fastleader.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The Spring Boot release the starter's tests run on, and the spring-kafka and kafka-clients it
 * pins, are the ones the build names (system properties set by the pom): Boot 4.0 in this module,
 * 3.5 in {@code boot-3.5}. A dependency change that moves them fails here instead of quietly testing
 * the starter on other releases.
 */
class BootReleaseTest {

    @Test
    void testSpringBootIsTheReleaseTheBuildNames() {
        assertThat(SpringBootVersion.getVersion()).isEqualTo(namedByTheBuild("fastleader.starter.boot.release"));
    }

    @Test
    void testSpringKafkaIsTheReleaseBootPins() {
        assertThat(KafkaTemplate.class.getPackage().getImplementationVersion()).as("Implementation-Version in spring-kafka's manifest")
            .isEqualTo(namedByTheBuild("fastleader.starter.spring-kafka.release"));
    }

    @Test
    void testKafkaClientsIsTheReleaseBootPins() {
        // The test classpath holds no broker jars, so this is kafka-clients' own version.
        assertThat(AppInfoParser.getVersion()).isEqualTo(namedByTheBuild("fastleader.starter.kafka-clients.release"));
    }

    private static String namedByTheBuild(String property) {
        String release = System.getProperty(property);
        assertThat(release).as("system property %s, set by the pom", property).isNotBlank();
        return release;
    }
}
