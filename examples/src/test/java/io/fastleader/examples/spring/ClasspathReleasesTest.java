package io.fastleader.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.jar.JarFile;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The kafka-clients and spring-kafka releases the recipe's tests run on are the ones the build
 * names (system properties set by the pom): the parent's pins in {@code examples}, a Spring Boot
 * release's pins in {@code examples/spring-boot}. A dependency change that moves either fails here
 * instead of quietly testing the recipe on other releases.
 */
class ClasspathReleasesTest {

    @Test
    void testKafkaClientsIsTheReleaseTheBuildNames() throws Exception {
        assertThat(kafkaClientsRelease()).isEqualTo(namedByTheBuild("fastleader.examples.kafka-clients.release"));
    }

    @Test
    void testSpringKafkaIsTheReleaseTheBuildNames() {
        assertThat(KafkaTemplate.class.getPackage().getImplementationVersion())
            .as("Implementation-Version in spring-kafka's manifest")
            .isEqualTo(namedByTheBuild("fastleader.examples.spring-kafka.release"));
    }

    private static String namedByTheBuild(String property) {
        String release = System.getProperty(property);
        assertThat(release).as("system property %s, set by the pom", property).isNotBlank();
        return release;
    }

    /**
     * The version in kafka-clients' own jar, the one holding {@link KafkaProducer}: the broker's jars,
     * on the classpath beside it in {@code examples}, carry a {@code kafka-version.properties} too.
     */
    private static String kafkaClientsRelease() throws IOException, URISyntaxException {
        Path jar = Path.of(KafkaProducer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (JarFile kafkaClients = new JarFile(jar.toFile());
             InputStream in = kafkaClients.getInputStream(kafkaClients.getEntry("kafka/kafka-version.properties"))) {
            Properties versionFile = new Properties();
            versionFile.load(in);
            return versionFile.getProperty("version");
        }
    }
}
