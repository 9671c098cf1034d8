package io.fastleader.it.cluster;

import java.util.Locale;

/** Where the brokers of a {@link KafkaTestCluster} run. */
public enum Execution {
    /** Inside this JVM: fastest to start, but a broker can only be stopped gracefully. */
    IN_JVM,
    /** One child JVM per node, from Maven-resolved jars: a broker can be killed (SIGKILL). */
    CHILD_JVM,
    /** Testcontainers' Kafka; needs a Docker engine. */
    CONTAINER,
    /**
     * No Kafka at all: brokers simulated in this JVM by {@link io.fastleader.it.sim.SimulatedCluster},
     * which real clients reach over loopback. Leaders move in microseconds; a broker can be killed.
     */
    SIMULATED;

    /** System property that switches the default execution, e.g. {@code -Dfastleader.it.execution=container}. */
    public static final String SWITCH_PROPERTY = "fastleader.it.execution";

    /** Environment variable read when the system property is not set. */
    public static final String SWITCH_ENV = "FASTLEADER_IT_EXECUTION";

    /** Whether a broker run this way can be killed abruptly: one in a process of its own, or a simulated one. */
    public boolean canKill() {
        return this != IN_JVM;
    }

    /**
     * The execution chosen by the switch. With none set, {@link #IN_JVM} where this JVM can run the
     * {@link KafkaRelease#CURRENT current} broker, {@link #CHILD_JVM} where its classpath lacks the
     * broker's jars: a test classpath shaped like an application's (its own kafka-clients release and
     * the fixtures alone) still gets brokers, from the classpath this module resolved for them.
     */
    public static Execution fromSwitch() {
        return fromSwitch(System.getProperty(SWITCH_PROPERTY, System.getenv(SWITCH_ENV)), KafkaRelease.CURRENT.runsInThisJvm());
    }

    static Execution fromSwitch(String value, boolean currentBrokerRunsInThisJvm) {
        if (value == null || value.isBlank()) {
            return currentBrokerRunsInThisJvm ? IN_JVM : CHILD_JVM;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + SWITCH_PROPERTY + " '" + value
                + "': expected in_jvm, child_jvm, container or simulated", e);
        }
    }
}
