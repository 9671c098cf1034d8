package io.fastleader.clients.shaded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fastleader-clients jar links beside the kafka-clients release on this JVM's classpath (one
 * per failsafe execution): nothing it refers to outside itself is missing, and nothing the
 * release's interfaces declare is left unimplemented. This is what lets {@code KafkaClientsRange}
 * accept the release.
 */
class LinkCheckIT {

    private static LinkCheck check;

    @BeforeAll
    static void readJar() {
        check = LinkCheck.of(Path.of(System.getProperty("fastleader.shaded.jar")), LinkCheckIT.class.getClassLoader());
    }

    @Test
    void testEveryClassMethodAndFieldTheJarUsesExistsInThisRelease() {
        assertThat(check.unresolvedReferences()).isEmpty();
    }

    @Test
    void testEveryAbstractMethodOfThisReleasesInterfacesIsImplemented() {
        assertThat(check.unimplementedMethods()).isEmpty();
    }
}
