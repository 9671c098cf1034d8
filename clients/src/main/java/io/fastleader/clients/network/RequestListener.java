package io.fastleader.clients.network;

import io.fastleader.protocol.ApiKey;

/**
 * Told of every request a {@link BrokerConnection} starts writing, the setup's ApiVersions and SASL
 * requests included: the seam that request metrics hang on.
 */
@FunctionalInterface
public interface RequestListener {

    /** Hears nothing. */
    RequestListener NONE = api -> { };

    /**
     * A request of {@code api} starts going out. Called with the connection's lock held, on
     * whichever thread writes the request, so it must be quick and must not call the connection.
     */
    void sent(ApiKey api);
}
