package io.fastleader.benchmarks.common;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A client under test, named as the benchmark tables name it: fastleader with its defaults,
 * fastleader with KIP-951 hints off, or the kafka-clients 4.3.1 client. Every variant gets the
 * same configuration; a variant only adds what makes it what it is. The same variants serve the
 * producer benchmark ({@link #producer}) and the consumer benchmark ({@link #consumer}).
 */
public enum ClientVariant {

    /** fastleader with its defaults: KIP-951 hints followed. */
    FASTLEADER("fastleader", "fastleader-", Map.of()),
    /** fastleader with the whole KIP-951 path off: the baseline for what hints buy. */
    FASTLEADER_NO_HINTS("fastleader-no-hints", "fastleader-", Map.of("fastleader.leader.hints.enabled", false)),
    /** kafka-clients' KafkaProducer / KafkaConsumer 4.3.1 (KIP-951 built in). */
    KAFKA_CLIENTS("kafka-clients-4.3.1", "kafka-producer-network-thread", Map.of());

    private final String label;
    private final String producerThreadPrefix;
    private final Map<String, Object> overrides;

    ClientVariant(String label, String producerThreadPrefix, Map<String, Object> overrides) {
        this.label = label;
        this.producerThreadPrefix = producerThreadPrefix;
        this.overrides = overrides;
    }

    /** The name in tables and JSON, e.g. {@code kafka-clients-4.3.1}. */
    public String label() {
        return label;
    }

    /** Whether this is one of fastleader's clients (rather than kafka-clients'). */
    public boolean isFastLeader() {
        return this != KAFKA_CLIENTS;
    }

    /** The variant labelled {@code label}. */
    public static ClientVariant ofLabel(String label) {
        return Arrays.stream(values()).filter(v -> v.label.equals(label)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no client variant '" + label + "': expected one of "
                + Arrays.stream(values()).map(ClientVariant::label).collect(Collectors.joining(", "))));
    }

    /** Whether {@code threadName} names one of the threads this variant's producers start. */
    public boolean ownsProducerThread(String threadName) {
        return threadName.startsWith(producerThreadPrefix);
    }

    /** A producer of byte-array keys and values with {@code config} plus this variant's own settings. */
    public Producer<byte[], byte[]> producer(Map<String, Object> config) {
        Map<String, Object> all = withOverrides(config);
        return isFastLeader()
            ? new FastLeaderProducer<>(all, new ByteArraySerializer(), new ByteArraySerializer())
            : new KafkaProducer<>(all, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A consumer of byte-array keys and values with {@code config} plus this variant's own settings. */
    public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
        Map<String, Object> all = withOverrides(config);
        return isFastLeader()
            ? new FastLeaderConsumer<>(all, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            : new KafkaConsumer<>(all, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private Map<String, Object> withOverrides(Map<String, Object> config) {
        Map<String, Object> all = new HashMap<>(config);
        all.putAll(overrides);
        return all;
    }
}
