package io.fastleader.spring.boot;

import java.util.Map;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.springframework.kafka.core.ConsumerPostProcessor;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * Spring Kafka's consumer factory, building {@link FastLeaderConsumer}s where
 * {@link DefaultKafkaConsumerFactory} builds {@code KafkaConsumer}s, so listener containers (those
 * of {@code @KafkaListener} included) poll through fastleader. Configuration, deserializers,
 * post-processors and {@code ConsumerFactory.Listener}s (Spring Boot's Micrometer consumer metrics,
 * for one) stay Spring's.
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

    /** The name listeners know consumers by, until Spring names the bean; the base class keeps its own copy private. */
    private String beanName = "fastLeaderConsumerFactory";

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
    public void setBeanName(String name) {
        super.setBeanName(name);
        this.beanName = name;
    }

    /**
     * As the base class creates a consumer, except that the listeners are told here: the base class
     * tells them only from within its own {@code KafkaConsumer} subclass (and warns that it skipped
     * them for any other consumer).
     */
    @Override
    protected Consumer<K, V> createKafkaConsumer(Map<String, Object> configProps) {
        checkBootstrap(configProps);
        Consumer<K, V> consumer = createRawConsumer(configProps);
        if (!getListeners().isEmpty()) {
            consumer = ListenedConsumers.listened(consumer, beanName, getListeners());
        }
        for (ConsumerPostProcessor<K, V> postProcessor : getPostProcessors()) {
            consumer = postProcessor.apply(consumer);
        }
        return consumer;
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
