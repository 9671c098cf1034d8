package io.fastleader.clients.shaded;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;

/**
 * Beside a kafka-clients release outside the range (the one on this JVM's classpath, chosen in the
 * pom), both clients refuse to be built, naming the release found and the range, before anything
 * could fail later for a class that release lacks.
 */
class RefusedBesideKafkaClientsIT {

    private static final String RELEASE = System.getProperty("fastleader.kafka-clients.release");
    private static final String REFUSAL = "fastleader needs kafka-clients 3.7 to 4.4 on the classpath, found " + RELEASE + ":";

    @Test
    void testTheProducerIsRefusedWhenItIsBuilt() {
        Map<String, Object> config = Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

        assertThatThrownBy(() -> new FastLeaderProducer<String, String>(config))
            .isExactlyInstanceOf(KafkaException.class)
            .hasMessageStartingWith(REFUSAL);
    }

    @Test
    void testTheConsumerIsRefusedWhenItIsBuilt() {
        Map<String, Object> config = Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        assertThatThrownBy(() -> new FastLeaderConsumer<String, String>(config))
            .isExactlyInstanceOf(KafkaException.class)
            .hasMessageStartingWith(REFUSAL);
    }
}
