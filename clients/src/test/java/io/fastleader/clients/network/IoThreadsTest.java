package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** The choice of thread kind for each setting, on JVMs of any release: it must not depend on the one running. */
class IoThreadsTest {

    @Test
    void testAutoIsPlatformBeforeJava25() {
        assertThat(IoThreads.AUTO.virtualOn(21, true)).isFalse();
    }

    @Test
    void testAutoIsVirtualFromJava25() {
        assertThat(IoThreads.AUTO.virtualOn(25, true)).isTrue();
    }

    @Test
    void testAutoIsPlatformOnAJvmWithoutVirtualThreads() {
        assertThat(IoThreads.AUTO.virtualOn(25, false)).isFalse();
    }

    @Test
    void testPlatformIsPlatformFromJava25() {
        assertThat(IoThreads.PLATFORM.virtualOn(25, true)).isFalse();
    }

    @Test
    void testVirtualIsVirtualFromJava25() {
        assertThat(IoThreads.VIRTUAL.virtualOn(25, true)).isTrue();
    }

    @Test
    void testVirtualBeforeJava25IsAConfigErrorNamingTheKeyAndTheJavaRelease() {
        assertThatThrownBy(() -> IoThreads.VIRTUAL.virtualOn(21, true))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(IoThreads.CONFIG)
                .hasMessageContaining("virtual")
                .hasMessageContaining("Java 21");
    }

    @Test
    void testValuesAreReadWhateverTheirCase() {
        assertThat(IoThreads.parse(" Platform ")).isEqualTo(IoThreads.PLATFORM);
    }

    @Test
    void testAnUnknownValueIsAConfigErrorNamingTheKeyAndTheValue() {
        assertThatThrownBy(() -> IoThreads.parse("green"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(IoThreads.CONFIG)
                .hasMessageContaining("green");
    }
}
