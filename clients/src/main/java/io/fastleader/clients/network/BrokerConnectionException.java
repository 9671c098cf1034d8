package io.fastleader.clients.network;

import org.apache.kafka.common.errors.RetriableException;

/**
 * A connection to a broker failed (refused, reset, closed, timed out or sent a malformed frame);
 * every request still on it fails with this. Retriable: the request may succeed on a new
 * connection, possibly to another broker.
 */
public class BrokerConnectionException extends RetriableException {

    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}, caused by {@code cause} (may be null). */
    public BrokerConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
