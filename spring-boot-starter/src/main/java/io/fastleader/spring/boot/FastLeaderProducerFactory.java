package io.fastleader.spring.boot;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.springframework.context.ApplicationContext;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerFactory;
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

    /** The application's class loader, once Spring hands the factory its context; the base class keeps its copy private. */
    private ClassLoader applicationClassLoader;

    /**
     * A factory whose producers take their serializers from {@code key.serializer} and
     * {@code value.serializer}, unless a serializer is set on the factory.
     *
     * @param configs the producer configuration, as for {@code KafkaProducer}
     */
    public FastLeaderProducerFactory(Map<String, Object> configs) {
        super(configs);
    }

    /**
     * A factory whose producers take the serializers the suppliers give (a null supplier, or one
     * giving null: from the serializer keys).
     *
     * @param configs               the producer configuration, as for {@code KafkaProducer}
     * @param keySerializerSupplier the key serializers, or null
     * @param valueSerializerSupplier the value serializers, or null
     * @param configureSerializers  whether the factory configures each serializer with {@code configs}
     */
    public FastLeaderProducerFactory(Map<String, Object> configs, Supplier<Serializer<K>> keySerializerSupplier,
            Supplier<Serializer<V>> valueSerializerSupplier, boolean configureSerializers) {
        super(configs, keySerializerSupplier, valueSerializerSupplier, configureSerializers);
    }

    /**
     * A copy with {@code overrideProperties} laid over this factory's configuration, building
     * {@link FastLeaderProducer}s too: {@code new KafkaTemplate<>(factory, overrides)} asks for one,
     * and the copy {@link DefaultKafkaProducerFactory} makes would build {@code KafkaProducer}s. Like
     * that copy, it keeps the serializers, the transaction id prefix (unless the overrides name a
     * {@code transactional.id}), the close timeout, producer-per-thread, post-processors and listeners.
     */
    @Override
    public ProducerFactory<K, V> copyWithConfigurationOverride(Map<String, Object> overrideProperties) {
        Map<String, Object> configs = new HashMap<>(getConfigurationProperties());
        if (overrideProperties != null) {
            configs.putAll(overrideProperties);
        }
        if (getTransactionIdPrefix() != null) {
            // The constructor takes a transactional.id as the copy's transaction id prefix.
            configs.putIfAbsent(ProducerConfig.TRANSACTIONAL_ID_CONFIG, getTransactionIdPrefix());
        }
        FastLeaderProducerFactory<K, V> copy = new FastLeaderProducerFactory<>(configs, getKeySerializerSupplier(),
            getValueSerializerSupplier(), isConfigureSerializers());
        copy.setPhysicalCloseTimeout((int) getPhysicalCloseTimeout().getSeconds());
        copy.setProducerPerThread(isProducerPerThread());
        getPostProcessors().forEach(copy::addPostProcessor);
        getListeners().forEach(copy::addListener);
        return copy;
    }

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        super.setApplicationContext(applicationContext);
        this.applicationClassLoader = applicationContext.getClassLoader();
    }

    /**
     * Builds the producer with the application's class loader as the thread's context class loader:
     * producers are built on whichever thread sends first, and Kafka's configuration loads the
     * classes it names (serializers, interceptors, partitioners) through that loader, which in a Boot
     * fat jar must see the application's jars (spring-kafka 4.0 does the same for {@code KafkaProducer}).
     */
    @Override
    protected Producer<K, V> createRawProducer(Map<String, Object> rawConfigs) {
        Thread thread = Thread.currentThread();
        ClassLoader callers = thread.getContextClassLoader();
        thread.setContextClassLoader(applicationClassLoader != null ? applicationClassLoader : getClass().getClassLoader());
        try {
            // The suppliers configure the serializers they hand out when the factory is asked to.
            Producer<K, V> producer = new FastLeaderProducer<>(rawConfigs, getKeySerializerSupplier().get(), getValueSerializerSupplier().get());
            // The base class applies its post-processors (tracing, for one) in the method overridden here.
            for (ProducerPostProcessor<K, V> postProcessor : getPostProcessors()) {
                producer = postProcessor.apply(producer);
            }
            return producer;
        } finally {
            thread.setContextClassLoader(callers);
        }
    }
}
