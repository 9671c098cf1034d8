package io.fastleader.clients.metadata;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Where a broker is reached.
 *
 * @param nodeId      the broker's id
 * @param host        host name or address the client connects to
 * @param port        port the client connects to
 * @param rack        the broker's rack, null when none is configured
 * @param provisional true when only a response's {@code NodeEndpoints} named it; the next
 *                    Metadata refresh confirms or replaces it
 */
public record BrokerEndpoint(int nodeId, String host, int port, String rack, boolean provisional) {

    public BrokerEndpoint {
        Objects.requireNonNull(host, "host");
    }

    /** The socket address to connect to, unresolved: the connection resolves it each time it connects. */
    public InetSocketAddress address() {
        return InetSocketAddress.createUnresolved(host, port);
    }
}
