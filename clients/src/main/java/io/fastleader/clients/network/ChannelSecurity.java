package io.fastleader.clients.network;

/**
 * What one client's connections secure themselves with, made once per client as kafka-clients'
 * channel builder makes it: the TLS engines for SSL and SASL_SSL, the SASL login for SASL_PLAINTEXT
 * and SASL_SSL; each null where the protocol has none.
 */
final class ChannelSecurity implements AutoCloseable {

    private final TlsEngines tls;
    private final SaslLogin sasl;

    private ChannelSecurity(TlsEngines tls, SaslLogin sasl) {
        this.tls = tls;
        this.sasl = sasl;
    }

    /**
     * TLS engines first, then the login, so that a configuration kafka-clients refuses fails here,
     * as a client's construction, before a connection is tried.
     *
     * @throws org.apache.kafka.common.KafkaException if the engine factory or the login cannot be made
     */
    static ChannelSecurity of(SecurityConfig security) {
        TlsEngines tls = security.protocol().usesTls() ? TlsEngines.of(security) : null;
        try {
            return new ChannelSecurity(tls, security.protocol().usesSasl() ? SaslLogin.of(security) : null);
        } catch (RuntimeException e) {
            if (tls != null) {
                tls.close();
            }
            throw e;
        }
    }

    /** The TLS engines, or null without TLS. */
    TlsEngines tls() {
        return tls;
    }

    /** The SASL login, or null without SASL. */
    SaslLogin sasl() {
        return sasl;
    }

    @Override
    public void close() {
        try {
            if (sasl != null) {
                sasl.close();
            }
        } finally {
            if (tls != null) {
                tls.close();
            }
        }
    }
}
