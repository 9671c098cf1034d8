package io.fastleader.broker;

import java.util.Objects;

/**
 * How clients reach a broker: its node id and the address the proxy advertises for it.
 *
 * @param nodeId the broker's node id
 * @param host   the advertised host
 * @param port   the advertised port
 * @param rack   the broker's rack, or {@code null}
 */
public record Endpoint(int nodeId, String host, int port, String rack) {

    public Endpoint {
        Objects.requireNonNull(host, "host");
    }
}
