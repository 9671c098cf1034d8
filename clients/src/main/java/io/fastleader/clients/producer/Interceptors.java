package io.fastleader.clients.producer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code interceptor.classes} of a producer, called in configured order. As in the Java
 * client, an interceptor that throws is logged and skipped: it never fails the send.
 */
final class Interceptors<K, V> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Interceptors.class);
    private static final MethodHandle WITH_HEADERS = withHeaders();

    private final List<ProducerInterceptor<K, V>> interceptors;

    Interceptors(List<ProducerInterceptor<K, V>> interceptors) {
        this.interceptors = List.copyOf(interceptors);
    }

    /** Whether none is configured: a send's callback then needs no wrapping. */
    boolean isEmpty() {
        return interceptors.isEmpty();
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

    /**
     * Each interceptor's {@code onAcknowledgement}: on the record's success or failure, before its
     * callback. Beside kafka-clients 4.1 and later, the variant with the record's headers, as
     * {@code KafkaProducer} calls it there (its default calls the other); before, the only one.
     */
    void onAcknowledgement(RecordMetadata metadata, Exception error, Headers headers) {
        for (ProducerInterceptor<K, V> interceptor : interceptors) {
            try {
                if (WITH_HEADERS == null) {
                    interceptor.onAcknowledgement(metadata, error);
                } else {
                    WITH_HEADERS.invokeExact(interceptor, metadata, error, headers);
                }
            } catch (RuntimeException e) {
                LOG.warn("Interceptor {} threw in onAcknowledgement", interceptor.getClass().getName(), e);
            } catch (Error e) {
                throw e;
            } catch (Throwable impossible) {
                // The interface method declares no checked exception.
                throw new IllegalStateException(impossible);
            }
        }
    }

    /** {@code ProducerInterceptor.onAcknowledgement(RecordMetadata, Exception, Headers)} of kafka-clients 4.1+, or null before. */
    private static MethodHandle withHeaders() {
        try {
            return MethodHandles.publicLookup().findVirtual(ProducerInterceptor.class, "onAcknowledgement",
                MethodType.methodType(void.class, RecordMetadata.class, Exception.class, Headers.class))
                .asType(MethodType.methodType(void.class, ProducerInterceptor.class, RecordMetadata.class, Exception.class, Headers.class));
        } catch (NoSuchMethodException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
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
