/**
 * Connections to brokers: framing, pipelining, request timeouts and API version negotiation.
 *
 * <p>Each {@link io.fastleader.clients.network.BrokerConnection} has two threads, a writer and a
 * reader, and lets the caller write its own request when it can do so without waiting. The
 * {@link io.fastleader.clients.network.ConnectionPool} keeps one connection per broker for a
 * producer and two for a consumer (its Fetches have their own), and one more to a group
 * coordinator's broker for the classic protocol's JoinGroup and SyncGroup, opened at the first of
 * them: a broker may hold a Fetch, a JoinGroup or a SyncGroup for long, so Fetches, and JoinGroup
 * with SyncGroup, have connections of their own ({@link io.fastleader.clients.network.ConnectionLane})
 * and nothing else waits behind them. JoinGroup and SyncGroup time out after the rebalance request timeout, a
 * consumer's {@code max(request.timeout.ms, max.poll.interval.ms + 5 s)}, every other request after
 * {@code request.timeout.ms} ({@link io.fastleader.clients.network.ConnectionConfig#requestTimeoutFor}).
 * So a client runs two to six such threads per broker, plus the pool's: one per connection being
 * opened and one for the idle sweep. The per-connection ones (reader, writer, connect) are platform
 * threads by default, and can be virtual threads on Java 25 and newer ({@link io.fastleader.clients.network.IoThreads},
 * {@code fastleader.io.threads=auto} or {@code virtual}), so that a client's platform threads do not grow
 * with the cluster; Java 17, our floor, has no virtual threads, and before 25 one waiting in a selector
 * keeps its carrier. Either way the state machine reads top to bottom and a failure of either
 * thread closes the connection and fails every request on it with one
 * {@link io.fastleader.clients.network.BrokerConnectionException}. A connection and the
 * {@link io.fastleader.clients.network.ConnectionPool} complete their futures only after releasing
 * their locks, so a callback may send again, on any connection, from wherever it runs.
 *
 * <p>Plaintext connections are a non-blocking {@link java.nio.channels.SocketChannel}. When nothing
 * is queued or being written and the in-flight limit has room, {@code send} writes the frame on the
 * caller's thread with one non-blocking write: a request costs no thread handoff on its way out,
 * which is what kept us behind kafka-clients' single-threaded network client on round trips. What
 * the socket's send buffer does not take goes to the writer, which finishes the frame, waiting for
 * room on its own selector, and writes whatever queued behind it; so a slow broker can only ever
 * hold up the writer, never a caller. An interrupted caller cannot break the connection: only
 * blocking operations on an interruptible channel close it when the thread is interrupted, and the
 * caller's write never blocks. The reader waits on a selector of its own and reads responses
 * through a 64 KiB buffer.
 *
 * <p>TLS connections keep {@link javax.net.ssl.SSLSocket}'s blocking streams and every frame goes
 * through the writer: {@code SSLSocket} has no write that gives up when the socket is full, and
 * doing TLS over a non-blocking channel means running {@link javax.net.ssl.SSLEngine}'s handshake,
 * record wrapping and renegotiation loop ourselves, which the JDK's socket already does correctly.
 * {@code RoundTripBenchmark} measures TLS round trips against kafka-clients ({@code protocol=SSL});
 * the {@code SSLEngine} path is the step to take if they fall short.
 */
package io.fastleader.clients.network;
