package io.fastleader.clients.network;

/**
 * A request got no response within {@code request.timeout.ms}. The connection is closed, as Kafka's
 * client closes it, and every request still on it fails with this. Retriable, as any
 * {@link BrokerConnectionException}; a caller that reports why a request failed can tell a broker
 * that stopped answering from one that dropped the connection.
 */
public class RequestTimedOutException extends BrokerConnectionException {

    private static final long serialVersionUID = 1L;

    /** A timeout described by {@code message}. */
    public RequestTimedOutException(String message) {
        super(message, null);
    }
}
