package io.fastleader.examples.streams;

import java.util.Locale;
import java.util.Properties;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/** The clients a {@code KafkaStreams} instance runs on: each Streams test runs once on each. */
enum StreamsClients {
    /** {@code new KafkaStreams(topology, properties)}. */
    KAFKA_DEFAULT {
        @Override
        KafkaStreams build(Topology topology, Properties properties) {
            return new KafkaStreams(topology, properties);
        }
    },
    /** {@code new KafkaStreams(topology, properties, new FastLeaderClientSupplier())}. */
    FASTLEADER {
        @Override
        KafkaStreams build(Topology topology, Properties properties) {
            return new KafkaStreams(topology, properties, new FastLeaderClientSupplier());
        }
    };

    abstract KafkaStreams build(Topology topology, Properties properties);

    /** For topic and application names. */
    String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
