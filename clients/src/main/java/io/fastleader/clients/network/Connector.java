package io.fastleader.clients.network;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * Opens a connection to a broker, without blocking; {@link BrokerConnection#open} on the pool's
 * loop in production. A seam so that {@link ConnectionPool} can be tested without real brokers.
 */
@FunctionalInterface
public interface Connector {

    /**
     * Starts connecting to node {@code nodeId}, the broker at {@code address}, and returns at once.
     *
     * @return completes once the connection is ready; fails with {@link BrokerConnectionException}
     *         if the broker cannot be reached or the setup fails. The pool completes it first, with
     *         a failure, when it gives the connect up at close: the connection must then close
     */
    CompletableFuture<BrokerConnection> open(int nodeId, InetSocketAddress address, ConnectionConfig config);
}
