package io.fastleader.it.parity;

import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
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
        public <K, V> Producer<K, V> producer(Map<String, Object> config, Serializer<K> keys, Serializer<V> values) {
            return new KafkaProducer<>(config, keys, values);
        }

        @Override
        public <K, V> Consumer<K, V> consumer(Map<String, Object> config, Deserializer<K> keys, Deserializer<V> values) {
            return new KafkaConsumer<>(config, keys, values);
        }
    },

    FASTLEADER {
        @Override
        public <K, V> Producer<K, V> producer(Map<String, Object> config, Serializer<K> keys, Serializer<V> values) {
            return new FastLeaderProducer<>(config, keys, values);
        }

        @Override
        public <K, V> Consumer<K, V> consumer(Map<String, Object> config, Deserializer<K> keys, Deserializer<V> values) {
            return new FastLeaderConsumer<>(config, keys, values);
        }
    };

    /** A producer with these serializers. */
    public abstract <K, V> Producer<K, V> producer(Map<String, Object> config, Serializer<K> keys, Serializer<V> values);

    /** A consumer with these deserializers. */
    public abstract <K, V> Consumer<K, V> consumer(Map<String, Object> config, Deserializer<K> keys, Deserializer<V> values);

    /** A producer of string keys and values. */
    public Producer<String, String> producer(Map<String, Object> config) {
        return producer(config, new StringSerializer(), new StringSerializer());
    }

    /** A consumer of string keys and values. */
    public Consumer<String, String> consumer(Map<String, Object> config) {
        return consumer(config, new StringDeserializer(), new StringDeserializer());
    }
}
