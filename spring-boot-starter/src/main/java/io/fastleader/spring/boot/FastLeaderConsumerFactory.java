package io.fastleader.spring.boot;

import java.util.Map;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * Spring Kafka's consumer factory, building {@link FastLeaderConsumer}s where
 * {@link DefaultKafkaConsumerFactory} builds {@code KafkaConsumer}s, so listener containers (those
 * of {@code @KafkaListener} included) poll through fastleader. Configuration, deserializers and
 * post-processors stay Spring's. {@code ConsumerFactory.Listener}s are not called for these
 * consumers (Spring calls them only for its own {@code KafkaConsumer} subclass, and logs that it
 * skipped them).
 *
 * <p>The starter puts one in place of the factory Spring Boot's Kafka auto-configuration builds; an
 * application that declares its own factory can use this class for it.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class FastLeaderConsumerFactory<K, V> extends DefaultKafkaConsumerFactory<K, V> {

    /** Spring's default; its own flag is private, so the setter below keeps a copy. */
    private boolean configureDeserializers = true;

    /**
     * A factory whose consumers take their deserializers from {@code key.deserializer} and
     * {@code value.deserializer}, unless a deserializer is set on the factory.
     *
     * @param configs the consumer configuration, as for {@code KafkaConsumer}
     */
    public FastLeaderConsumerFactory(Map<String, Object> configs) {
        super(configs);
    }

    @Override
    public void setConfigureDeserializers(boolean configureDeserializers) {
        super.setConfigureDeserializers(configureDeserializers);
        this.configureDeserializers = configureDeserializers;
    }

    @Override
    protected Consumer<K, V> createRawConsumer(Map<String, Object> configProps) {
        return new FastLeaderConsumer<>(configProps, configured(getKeyDeserializer(), configProps, true),
            configured(getValueDeserializer(), configProps, false));
    }

    /**
     * A deserializer instance set on the factory is configured as Spring configures it for
     * {@code KafkaConsumer}, which, like {@link FastLeaderConsumer}, does not configure instances it is handed.
     */
    private <T> Deserializer<T> configured(Deserializer<T> deserializer, Map<String, Object> configProps, boolean isKey) {
        if (deserializer != null && configureDeserializers) {
            deserializer.configure(configProps, isKey);
        }
        return deserializer;
    }
}
