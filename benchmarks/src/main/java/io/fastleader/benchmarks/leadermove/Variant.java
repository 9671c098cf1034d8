package io.fastleader.benchmarks.leadermove;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A client variant of the leader-move benchmark: which producer and consumer classes its child
 * JVM builds, with which settings, on which classpath. The scale benchmark
 * ({@code simulated.ScaleBenchmark}) runs the same variants' producers.
 */
public enum Variant {
    /** fastleader with its defaults: KIP-951 hints followed. */
    FASTLEADER("fastleader", "io.fastleader.clients.producer.FastLeaderProducer",
        "io.fastleader.clients.consumer.FastLeaderConsumer", Map.of()),
    /** fastleader with the whole KIP-951 path off. */
    FASTLEADER_NO_HINTS("fastleader-no-hints", "io.fastleader.clients.producer.FastLeaderProducer",
        "io.fastleader.clients.consumer.FastLeaderConsumer", Map.of("fastleader.leader.hints.enabled", "false")),
    /** KafkaProducer / KafkaConsumer 4.3.1, KIP-951 built in. */
    KAFKA_CLIENTS_4_3_1("kafka-clients-4.3.1", "org.apache.kafka.clients.producer.KafkaProducer",
        "org.apache.kafka.clients.consumer.KafkaConsumer", Map.of()),
    /** KafkaProducer / KafkaConsumer 3.6.0: before KIP-951, no hints and no backoff skip. */
    KAFKA_CLIENTS_3_6_0("kafka-clients-3.6.0", "org.apache.kafka.clients.producer.KafkaProducer",
        "org.apache.kafka.clients.consumer.KafkaConsumer", Map.of());

    private static final String BASELINE_CLASSPATH = "kafka-3.6.0.classpath";

    private final String label;
    private final String producerClass;
    private final String consumerClass;
    private final Map<String, String> clientConfig;

    Variant(String label, String producerClass, String consumerClass, Map<String, String> clientConfig) {
        this.label = label;
        this.producerClass = producerClass;
        this.consumerClass = consumerClass;
        this.clientConfig = clientConfig;
    }

    /**
     * Where the driver counts this variant's requests per API: fastleader's metrics, or kafka-clients'
     * NetworkClient log unless {@code countKafkaClients} is off.
     */
    String requestsFrom(boolean countKafkaClients) {
        return isFastLeader() ? "metrics" : countKafkaClients ? "log" : "none";
    }

    /** The name in progress lines, tables and JSON. */
    public String label() {
        return label;
    }

    /** The producer class the child JVM builds, with a {@code (Map, Serializer, Serializer)} constructor. */
    public String producerClass() {
        return producerClass;
    }

    /** The consumer class the child JVM builds, with a {@code (Map, Deserializer, Deserializer)} constructor. */
    public String consumerClass() {
        return consumerClass;
    }

    /** This variant's own client settings. */
    public Map<String, String> clientConfig() {
        return clientConfig;
    }

    /** Whether this variant runs fastleader's clients. */
    public boolean isFastLeader() {
        return producerClass.startsWith("io.fastleader.");
    }

    /**
     * The child JVM's classpath: kafka-clients 3.6.0 and the driver, resolved by Maven into a
     * resource, for the 3.6.0 variant; this JVM's own (fastleader, kafka-clients 4.3.1 and the
     * driver) for the others.
     */
    public String classpath() {
        if (this != KAFKA_CLIENTS_3_6_0) {
            return System.getProperty("java.class.path");
        }
        try (InputStream resource = Variant.class.getResourceAsStream(BASELINE_CLASSPATH)) {
            if (resource == null) {
                throw new IllegalStateException(BASELINE_CLASSPATH + " is missing: build with mvn -pl benchmarks -am package");
            }
            return new String(resource.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The variant labelled {@code label}. */
    public static Variant ofLabel(String label) {
        return Arrays.stream(values()).filter(v -> v.label.equals(label)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no variant '" + label + "': expected one of " + labels()));
    }

    /** Every label, comma-separated. */
    public static String labels() {
        return Arrays.stream(values()).map(Variant::label).collect(Collectors.joining(","));
    }
}
