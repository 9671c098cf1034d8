package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the execution switch and this JVM's classpath choose where brokers run by default. */
class ExecutionTest {

    @Test
    void anUnsetSwitchRunsBrokersInThisJvmWhenItsClasspathHoldsTheBroker() {
        assertThat(Execution.fromSwitch(null, true)).isEqualTo(Execution.IN_JVM);
    }

    @Test
    void anUnsetSwitchRunsBrokersInChildJvmsWhenThisClasspathLacksTheBroker() {
        assertThat(Execution.fromSwitch(" ", false)).isEqualTo(Execution.CHILD_JVM);
    }

    @Test
    void aSetSwitchWinsOverTheClasspath() {
        assertThat(Execution.fromSwitch("child-jvm", true)).isEqualTo(Execution.CHILD_JVM);
    }

    @Test
    void thisModulesClasspathRunsTheCurrentBrokerInThisJvm() {
        assertThat(KafkaRelease.CURRENT.runsInThisJvm()).isTrue();
    }
}
