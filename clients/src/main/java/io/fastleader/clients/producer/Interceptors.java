package io.fastleader.clients.producer;

import java.util.List;

import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code interceptor.classes} of a producer, called in configured order. As in the Java
 * client, an interceptor that throws is logged and skipped: it never fails the send.
 */
final class Interceptors<K, V> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Interceptors.class);

    private final List<ProducerInterceptor<K, V>> interceptors;

    Interceptors(List<ProducerInterceptor<K, V>> interceptors) {
        this.interceptors = List.copyOf(interceptors);
    }

    /** Each interceptor's {@code onSend}, each given the record the previous one returned. */
    ProducerRecord<K, V> onSend(ProducerRecord<K, V> record) {
        ProducerRecord<K, V> current = record;
        for (ProducerInterceptor<K, V> interceptor : interceptors) {
            try {
                current = interceptor.onSend(current);
            } catch (RuntimeException e) {
                LOG.warn("Interceptor {} threw in onSend; the record goes on as it was", interceptor.getClass().getName(), e);
            }
        }
        return current;
    }

    /** Each interceptor's {@code onAcknowledgement}: on the record's success or failure, before its callback. */
    void onAcknowledgement(RecordMetadata metadata, Exception error) {
        for (ProducerInterceptor<K, V> interceptor : interceptors) {
            try {
                interceptor.onAcknowledgement(metadata, error);
            } catch (RuntimeException e) {
                LOG.warn("Interceptor {} threw in onAcknowledgement", interceptor.getClass().getName(), e);
            }
        }
    }

    @Override
    public void close() {
        for (ProducerInterceptor<K, V> interceptor : interceptors) {
            try {
                interceptor.close();
            } catch (RuntimeException e) {
                LOG.warn("Interceptor {} threw on close", interceptor.getClass().getName(), e);
            }
        }
    }
}
