package io.fastleader.clients.network;

import java.io.IOException;

import javax.net.ssl.SSLEngine;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.auth.SslEngineFactory;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;

/**
 * The TLS engines of one client's connections, made by kafka-clients' own {@link SslEngineFactory}:
 * the application's {@code ssl.engine.factory.class}, or Kafka's default one, so every {@code ssl.*}
 * key does what it does in kafka-clients. Configured once per client, so its connections share one
 * {@code SSLContext} and resume their sessions.
 */
final class TlsEngines implements AutoCloseable {

    private final SslEngineFactory factory;
    private final String endpointIdentification;

    private TlsEngines(SslEngineFactory factory, String endpointIdentification) {
        this.factory = factory;
        this.endpointIdentification = endpointIdentification;
    }

    /**
     * The factory {@code security} names, configured with its {@code ssl.*} keys.
     *
     * @throws KafkaException if the factory cannot be made or refuses its configuration (a key or
     *                        trust store that cannot be read, say), as kafka-clients' clients fail
     */
    static TlsEngines of(SecurityConfig security) {
        Class<?> type = (Class<?>) security.channelConfigs().get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG);
        SslEngineFactory factory;
        if (type == null) {
            factory = new DefaultSslEngineFactory();
        } else if (!SslEngineFactory.class.isAssignableFrom(type)) {
            throw new KafkaException(type.getName() + " is not an instance of " + SslEngineFactory.class.getName());
        } else {
            try {
                factory = (SslEngineFactory) type.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new KafkaException("Could not instantiate class " + type.getName(), e);
            }
        }
        factory.configure(security.channelConfigs());
        return new TlsEngines(factory, security.endpointIdentification());
    }

    /** A client-mode engine for the broker at {@code host}:{@code port}, its certificate checked as configured. */
    SSLEngine engine(String host, int port) {
        return factory.createClientSslEngine(host, port, endpointIdentification);
    }

    @Override
    public void close() {
        try {
            factory.close();
        } catch (IOException e) {
            throw new KafkaException("Closing the SSL engine factory failed", e);
        }
    }
}
