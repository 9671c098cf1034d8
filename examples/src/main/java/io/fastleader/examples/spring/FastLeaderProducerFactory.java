package io.fastleader.examples.spring;

import java.util.Map;

import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.producer.Producer;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * Spring Kafka's producer factory, building {@link FastLeaderProducer}s where it built
 * {@code KafkaProducer}s. Everything else (configuration, serializers, the producer cache that
 * {@code KafkaTemplate} shares) stays Spring's, transactions included: with a
 * {@code transactionIdPrefix} the factory hands out transactional {@link FastLeaderProducer}s, and
 * {@code KafkaTemplate.executeInTransaction} and Spring's {@code KafkaTransactionManager} run on them.
 *
 * <pre>
 * new KafkaTemplate&lt;&gt;(new FastLeaderProducerFactory&lt;&gt;(configs))
 * </pre>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class FastLeaderProducerFactory<K, V> extends DefaultKafkaProducerFactory<K, V> {

    /** A factory whose producers take their serializers from {@code key.serializer} and {@code value.serializer}. */
    public FastLeaderProducerFactory(Map<String, Object> configs) {
        super(configs);
    }

    @Override
    protected Producer<K, V> createRawProducer(Map<String, Object> rawConfigs) {
        return new FastLeaderProducer<>(rawConfigs, getKeySerializerSupplier().get(), getValueSerializerSupplier().get());
    }
}
