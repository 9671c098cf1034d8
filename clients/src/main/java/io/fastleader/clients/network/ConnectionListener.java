package io.fastleader.clients.network;

import io.fastleader.protocol.ApiKey;

/**
 * Told what one {@link BrokerConnection} does on the wire, the setup's ApiVersions and SASL
 * requests included: the seam network metrics hang on. One listener per connection, so it may
 * keep the connection's own counts. Every method is called on whichever thread does the work, some
 * with the connection's lock held, so each must be quick and must not call the connection.
 */
public interface ConnectionListener {

    /** Hears nothing. */
    ConnectionListener NONE = new ConnectionListener() { };

    /** The socket connected; the connection's setup (TLS, ApiVersions, SASL) follows. */
    default void connected() {
    }

    /** TLS or SASL set up and the broker accepted the client. */
    default void authenticated() {
    }

    /** TLS or SASL could not be set up, or the broker refused the client. */
    default void authenticationFailed() {
    }

    /** The open connection re-authenticated (KIP-368) in {@code latencyNanos}, its requests waiting meanwhile. */
    default void reauthenticated(long latencyNanos) {
    }

    /** The broker refused the open connection's re-authentication, or it could not be done: the connection closes. */
    default void reauthenticationFailed() {
    }

    /** A request of {@code api}, a frame of {@code bytes} with its size prefix, starts going out. */
    default void sent(ApiKey api, int bytes) {
    }

    /**
     * A request the broker does not answer ({@link BrokerConnection#sendWithoutResponse}), which
     * {@link #sent} told of, is written in full: it is done, as a request that got its response is.
     * Not called once the connection has closed: {@link #closed} counts it out with the rest.
     */
    default void writtenWithoutResponse() {
    }

    /** A response frame of {@code bytes} with its size prefix arrived. */
    default void received(int bytes) {
    }

    /** The connection closed, by the client or by a failure; called once, and only after {@link #connected()}. */
    default void closed() {
    }
}
