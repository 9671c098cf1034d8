package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a {@link Cluster} annotation and the execution switch decide where the brokers run. */
class KafkaClusterExtensionTest {

    private final String switchBefore = System.getProperty(Execution.SWITCH_PROPERTY);

    @AfterEach
    void restoreSwitch() {
        if (switchBefore == null) {
            System.clearProperty(Execution.SWITCH_PROPERTY);
        } else {
            System.setProperty(Execution.SWITCH_PROPERTY, switchBefore);
        }
    }

    @Test
    void aKillableClusterRunsInChildJvmsWhenTheSwitchSaysInJvm() throws Exception {
        System.setProperty(Execution.SWITCH_PROPERTY, "in_jvm");

        assertThat(KafkaClusterExtension.spec(annotationOf("killable")).execution()).isEqualTo(Execution.CHILD_JVM);
    }

    @Test
    void aKillableClusterKeepsContainersWhenTheSwitchSaysContainer() throws Exception {
        System.setProperty(Execution.SWITCH_PROPERTY, "container");

        assertThat(KafkaClusterExtension.spec(annotationOf("killable")).execution()).isEqualTo(Execution.CONTAINER);
    }

    @Test
    void aClusterThatNeedsNoKillRunsWhereTheSwitchSays() throws Exception {
        System.setProperty(Execution.SWITCH_PROPERTY, "in_jvm");

        assertThat(KafkaClusterExtension.spec(annotationOf("plain")).execution()).isEqualTo(Execution.IN_JVM);
    }

    @Test
    void anExecutionNamedOnTheAnnotationWinsOverKillable() throws Exception {
        System.setProperty(Execution.SWITCH_PROPERTY, "in_jvm");

        assertThat(KafkaClusterExtension.spec(annotationOf("killableInContainers")).execution()).isEqualTo(Execution.CONTAINER);
    }

    @Test
    void childJvmBrokersRunC1OnlyToStartSooner() throws Exception {
        System.setProperty(Execution.SWITCH_PROPERTY, "in_jvm");

        assertThat(KafkaClusterExtension.spec(annotationOf("killable")).brokerJvmOptions()).containsExactly(ClusterSpec.C1_ONLY);
        assertThat(KafkaClusterExtension.spec(annotationOf("plain")).brokerJvmOptions()).isEmpty();
    }

    private static Optional<Cluster> annotationOf(String method) throws NoSuchMethodException {
        Method declared = Annotated.class.getDeclaredMethod(method, KafkaTestCluster.class);
        return Optional.of(declared.getParameters()[0].getAnnotation(Cluster.class));
    }

    /** Parameters annotated as tests annotate theirs. */
    @SuppressWarnings("unused")
    private static final class Annotated {
        void killable(@Cluster(killable = true) KafkaTestCluster cluster) {
        }

        void plain(@Cluster KafkaTestCluster cluster) {
        }

        void killableInContainers(@Cluster(killable = true, execution = Execution.CONTAINER) KafkaTestCluster cluster) {
        }
    }
}
