package io.fastleader.examples;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fastleader.it.sim.SimulatedCluster;
import org.junit.jupiter.api.Test;

/**
 * On the classpath an application ships (the shaded {@code fastleader-clients}), the simulated
 * cluster cannot run; it says so at start, naming the fix, rather than leaving every client to
 * time out against a network thread that died on the first request.
 */
class SimulatedClusterBesideTheShadedClientsTest {

    @Test
    void testStartFailsAtOnceNamingTheUnshadedArtifacts() {
        assertThatThrownBy(() -> SimulatedCluster.start(1))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("fastleader-clients-unshaded and fastleader-protocol");
    }
}
