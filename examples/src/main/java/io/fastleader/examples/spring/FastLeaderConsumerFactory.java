package io.fastleader.examples.spring;

import java.util.Map;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * Spring Kafka's consumer factory, building {@link FastLeaderConsumer}s where it built
 * {@code KafkaConsumer}s. A listener container given topics joins its {@code group.id} with the
 * protocol {@code group.protocol} names (classic unless set), each of its consumers a member; one
 * given partitions assigns them.
 *
 * <pre>
 * new ConcurrentMessageListenerContainer&lt;&gt;(new FastLeaderConsumerFactory&lt;&gt;(configs),
 *         new ContainerProperties("orders"))
 * </pre>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class FastLeaderConsumerFactory<K, V> extends DefaultKafkaConsumerFactory<K, V> {

    /** A factory whose consumers take their deserializers from {@code key.deserializer} and {@code value.deserializer}. */
    public FastLeaderConsumerFactory(Map<String, Object> configs) {
        super(configs);
    }

    @Override
    protected Consumer<K, V> createRawConsumer(Map<String, Object> configProps) {
        return new FastLeaderConsumer<>(configProps, getKeyDeserializer(), getValueDeserializer());
    }
}
