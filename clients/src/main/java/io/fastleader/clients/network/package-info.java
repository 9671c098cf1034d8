/**
 * Connections to brokers: framing, pipelining, request timeouts and API version negotiation.
 *
 * <p>Each {@link io.fastleader.clients.network.BrokerConnection} is a blocking socket with two
 * platform threads: a writer that drains a per-connection queue, and a reader that matches
 * responses to requests in order. Java 17, our floor, has no virtual threads, and a client talks
 * to a handful of brokers, so two threads per broker cost little; in exchange the state machine
 * reads top to bottom, a slow broker can only ever block its own writer (callers enqueue and get
 * a future), and TLS can later wrap the same streams through {@code SSLSocket} without an
 * {@code SSLEngine} loop. A failure of either thread closes the connection and fails every
 * request on it with one {@link io.fastleader.clients.network.BrokerConnectionException}.
 */
package io.fastleader.clients.network;
