package io.fastleader.spring.boot;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.Consumer;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * Consumers that tell a factory's {@link ConsumerFactory.Listener}s when they are created and
 * closed, as Spring Kafka's own {@code KafkaConsumer} subclass does (Spring Boot's Micrometer
 * metrics for consumers are such a listener). A dynamic proxy of kafka-clients' {@link Consumer}
 * interface, not a class, because that interface differs between the kafka-clients releases an
 * application may have.
 */
final class ListenedConsumers {

    private ListenedConsumers() {
    }

    /**
     * {@code consumer}, seen through a proxy that has told {@code listeners} it was added, and tells
     * them it was removed once its first {@code close} returns.
     *
     * @param factoryName the factory's bean name: the listeners know the consumer as
     *                    {@code factoryName.clientId}, as they know Spring's own consumers
     */
    @SuppressWarnings("unchecked")
    static <K, V> Consumer<K, V> listened(Consumer<K, V> consumer, String factoryName, List<ConsumerFactory.Listener<K, V>> listeners) {
        String id = factoryName + "." + clientId(consumer);
        AtomicBoolean removed = new AtomicBoolean();
        AtomicReference<Consumer<K, V>> self = new AtomicReference<>();
        self.set((Consumer<K, V>) Proxy.newProxyInstance(Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class},
            (proxy, method, args) -> {
                if (method.getDeclaringClass() == Object.class) {
                    return objectMethod(proxy, consumer, method, args);
                }
                Object result = invoke(consumer, method, args);
                if (method.getName().equals("close") && removed.compareAndSet(false, true)) {
                    listeners.forEach(listener -> listener.consumerRemoved(id, self.get()));
                }
                return result;
            }));
        listeners.forEach(listener -> listener.consumerAdded(id, self.get()));
        return self.get();
    }

    /** The client id the consumer's metrics carry (the one it generated, when none was configured). */
    private static String clientId(Consumer<?, ?> consumer) {
        return consumer.metrics().keySet().stream()
            .map(name -> name.tags().get("client-id"))
            .filter(Objects::nonNull)
            .findFirst()
            .orElse("unknown");
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            // What the consumer threw, as it threw it.
            throw e.getCause();
        }
    }

    private static Object objectMethod(Object proxy, Object consumer, Method method, Object[] args) {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "listened " + consumer;
        };
    }
}
