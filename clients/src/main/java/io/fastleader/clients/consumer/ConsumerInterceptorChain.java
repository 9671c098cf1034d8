package io.fastleader.clients.consumer;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code interceptor.classes} of a consumer, called in order. As in {@code KafkaConsumer}, an
 * interceptor that throws is logged and skipped, never failing the consumer.
 */
final class ConsumerInterceptorChain<K, V> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerInterceptorChain.class);

    private final List<ConsumerInterceptor<K, V>> interceptors;

    ConsumerInterceptorChain(List<ConsumerInterceptor<K, V>> interceptors) {
        this.interceptors = List.copyOf(interceptors);
    }

    ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records) {
        ConsumerRecords<K, V> intercepted = records;
        for (ConsumerInterceptor<K, V> interceptor : interceptors) {
            try {
                intercepted = interceptor.onConsume(intercepted);
            } catch (RuntimeException e) {
                LOG.warn("Error executing interceptor onConsume callback", e);
            }
        }
        return intercepted;
    }

    void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (ConsumerInterceptor<K, V> interceptor : interceptors) {
            try {
                interceptor.onCommit(offsets);
            } catch (RuntimeException e) {
                LOG.warn("Error executing interceptor onCommit callback", e);
            }
        }
    }

    @Override
    public void close() {
        for (ConsumerInterceptor<K, V> interceptor : interceptors) {
            try {
                interceptor.close();
            } catch (RuntimeException e) {
                LOG.warn("Failed to close consumer interceptor", e);
            }
        }
    }
}
