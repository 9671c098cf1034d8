package io.fastleader.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * The Spring Boot release the starter's tests run on is the one the build names (a system property
 * set by the pom): 4.0 in this module, 3.5 in {@code boot-3.5}. A dependency change that moves it
 * fails here instead of quietly testing the starter on another release.
 */
class BootReleaseTest {

    @Test
    void testSpringBootIsTheReleaseTheBuildNames() {
        String named = System.getProperty("fastleader.starter.boot.release");
        assertThat(named).as("system property fastleader.starter.boot.release, set by the pom").isNotBlank();
        assertThat(SpringBootVersion.getVersion()).isEqualTo(named);
    }
}
