package io.fastleader.it.cluster;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Describes the cluster {@link KafkaClusterExtension} starts for a {@link KafkaTestCluster}
 * parameter. Without it the parameter gets three brokers of the current release, run as the
 * {@link Execution#fromSwitch() switch} says, with PLAINTEXT listeners.
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
public @interface Cluster {

    /** Number of nodes. */
    int brokers() default 3;

    /** Where the brokers run; empty means {@link Execution#fromSwitch()}. */
    Execution[] execution() default {};

    /**
     * Whether the test kills brokers. With no {@link #execution()} given, a switch that chooses
     * in-JVM brokers, which cannot be killed, gives {@link Execution#CHILD_JVM} instead.
     */
    boolean killable() default false;

    /** Which broker. Releases other than {@link KafkaRelease#CURRENT} run in child JVMs. */
    KafkaRelease release() default KafkaRelease.CURRENT;

    /** Broker settings as {@code key=value}. */
    String[] brokerConfig() default {};

    /** {@code security.protocol} of the client listener. */
    String securityProtocol() default "PLAINTEXT";

    /** SASL mechanism for the SASL protocols: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (unsecured tokens). */
    String saslMechanism() default "";

    /** The SASL user the cluster creates and {@link KafkaTestCluster#clientConfig()} logs in as. */
    String username() default "fastleader";

    /** That user's password. */
    String password() default "fastleader-secret";

    /**
     * Whether the cluster is started once per test JVM for every parameter of the same description,
     * and closed when the JVM's tests end: for tests that only add topics of their own names to it,
     * in classes that would otherwise each start the same cluster.
     */
    boolean shared() default false;
}
