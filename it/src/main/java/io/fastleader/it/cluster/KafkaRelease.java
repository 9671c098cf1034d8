package io.fastleader.it.cluster;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import java.util.stream.Collectors;

/** Which Apache Kafka broker a cluster runs. */
public enum KafkaRelease {
    /**
     * The broker this module is built with (pinned as {@code kafka.version} in the parent pom). It
     * runs in this JVM or in child JVMs; a JVM whose own classpath lacks it (one that holds another
     * kafka-clients release) starts it in child JVMs from the classpath Maven resolved for it.
     */
    CURRENT("current-kafka", "it"),
    /**
     * A broker from before KIP-951 (pinned as {@code legacy.kafka.version}), resolved by Maven in
     * {@code it/legacy-kafka}. It runs only in child JVMs.
     */
    LEGACY("legacy-kafka", "it/legacy-kafka"),
    /**
     * The last 3.x line (pinned as {@code kafka39.version}), resolved by Maven in
     * {@code it/kafka-3.9}: it sends KIP-951 leader hints but knows only the classic group
     * protocol (the consumer group protocol, KIP-848, needs 4.0). It runs only in child JVMs.
     */
    KAFKA_3_9("kafka-39", "it/kafka-3.9"),
    /**
     * The first line whose brokers check the cluster and node a connection's ApiVersions names
     * (KIP-1242), pinned as {@code kafka44.version} and resolved by Maven in {@code it/kafka-4.4}.
     * It runs only in child JVMs.
     */
    KAFKA_4_4("kafka-44", "it/kafka-4.4");

    /** A class of the broker's own jar: present on a classpath that can run the broker. */
    private static final String BROKER_MAIN = "kafka.Kafka";

    private final String resourcePrefix;
    /** The module that resolves this release's classpath, for the message when its resources are missing. */
    private final String module;

    KafkaRelease(String resourcePrefix, String module) {
        this.resourcePrefix = resourcePrefix;
        this.module = module;
    }

    /** The Apache Kafka version, e.g. {@code 3.6.2}. */
    public String version() {
        Properties properties = new Properties();
        try (InputStream in = new ByteArrayInputStream(readResource(resourcePrefix + ".properties"))) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("version");
    }

    /** The classpath a child JVM needs to run this broker. */
    public String brokerClasspath() {
        if (runsInThisJvm()) {
            // Under surefire java.class.path is only the booter jar; the real one is here. Entries
            // are made absolute: a broker runs in a folder of its own, and `java -cp x.jar` is relative.
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            return Arrays.stream(classpath.split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
        }
        return new String(readResource(resourcePrefix + ".classpath"), StandardCharsets.UTF_8).trim();
    }

    /** Kafka 4 logs through log4j 2; Kafka 3 through log4j 1 (reload4j). */
    public boolean logsWithLog4j2() {
        return Integer.parseInt(version().split("\\.")[0]) >= 4;
    }

    /**
     * Kafka 3.9 and later take controller listeners in {@code advertised.listeners}, and a KRaft
     * leader tells its followers where it is from there rather than from their
     * {@code controller.quorum.voters}; older brokers reject them there.
     */
    public boolean advertisesControllerListeners() {
        String[] version = version().split("\\.");
        int major = Integer.parseInt(version[0]);
        return major > 3 || (major == 3 && Integer.parseInt(version[1]) >= 9);
    }

    /** Whether this release runs only in child JVMs: every release but the current one. */
    public boolean childJvmOnly() {
        return this != CURRENT;
    }

    /**
     * Whether this broker can run inside this JVM: only the current release can, and only where
     * this JVM's classpath holds its jars.
     */
    public boolean runsInThisJvm() {
        return this == CURRENT && KafkaRelease.class.getClassLoader().getResource(BROKER_MAIN.replace('.', '/') + ".class") != null;
    }

    private byte[] readResource(String name) {
        try (InputStream in = KafkaRelease.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing: build " + module + " first (mvn -pl it -am install)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
