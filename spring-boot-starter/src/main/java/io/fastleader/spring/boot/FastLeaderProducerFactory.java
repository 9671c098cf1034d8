package io.fastleader.spring.boot;

import java.util.Map;

import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.producer.Producer;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerPostProcessor;

/**
 * Spring Kafka's producer factory, building {@link FastLeaderProducer}s where
 * {@link DefaultKafkaProducerFactory} builds {@code KafkaProducer}s. Everything else stays Spring's:
 * configuration, serializers, the shared producer and its cache, listeners, post-processors and
 * transactions (with a {@code transactionIdPrefix} its producers are transactional
 * {@link FastLeaderProducer}s).
 *
 * <p>The starter puts one in place of the factory Spring Boot's Kafka auto-configuration builds; an
 * application that declares its own factory can use this class for it.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class FastLeaderProducerFactory<K, V> extends DefaultKafkaProducerFactory<K, V> {

    /**
     * A factory whose producers take their serializers from {@code key.serializer} and
     * {@code value.serializer}, unless a serializer is set on the factory.
     *
     * @param configs the producer configuration, as for {@code KafkaProducer}
     */
    public FastLeaderProducerFactory(Map<String, Object> configs) {
        super(configs);
    }

    @Override
    protected Producer<K, V> createRawProducer(Map<String, Object> rawConfigs) {
        // The suppliers configure the serializers they hand out when the factory is asked to.
        Producer<K, V> producer = new FastLeaderProducer<>(rawConfigs, getKeySerializerSupplier().get(), getValueSerializerSupplier().get());
        // The base class applies its post-processors (tracing, for one) in the method overridden here.
        for (ProducerPostProcessor<K, V> postProcessor : getPostProcessors()) {
            producer = postProcessor.apply(producer);
        }
        return producer;
    }
}
