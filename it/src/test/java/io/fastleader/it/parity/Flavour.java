package io.fastleader.it.parity;

import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;

/**
 * The two implementations a parity test runs one workload through: kafka-clients' own classes,
 * the reference, and fastleader's drop-ins. Both are built from the same configuration, through
 * the interfaces an application codes against.
 */
public enum Flavour {

    KAFKA {
        @Override
        public Producer<String, String> producer(Map<String, Object> config) {
            return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        }

        @Override
        public Consumer<String, String> consumer(Map<String, Object> config) {
            return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        }
    },

    FASTLEADER {
        @Override
        public Producer<String, String> producer(Map<String, Object> config) {
            return new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
        }

        @Override
        public Consumer<String, String> consumer(Map<String, Object> config) {
            return new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        }
    };

    /** A producer of string keys and values. */
    public abstract Producer<String, String> producer(Map<String, Object> config);

    /** A consumer of string keys and values. */
    public abstract Consumer<String, String> consumer(Map<String, Object> config);
}
