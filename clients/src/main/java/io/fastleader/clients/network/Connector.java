package io.fastleader.clients.network;

import java.net.InetSocketAddress;

/**
 * Opens a ready connection to a broker, blocking until it is ready; {@link BrokerConnection#open}
 * in production. A seam so that {@link ConnectionPool} can be tested without real brokers.
 */
@FunctionalInterface
public interface Connector {

    /**
     * Connects to node {@code nodeId}, the broker at {@code address}.
     *
     * @throws BrokerConnectionException if the broker cannot be reached or the handshake fails
     */
    BrokerConnection open(int nodeId, InetSocketAddress address, ConnectionConfig config);
}
