/**
 * Connections to brokers: framing, pipelining, request timeouts and API version negotiation.
 *
 * <p>Every connection of a client lives on one {@link io.fastleader.clients.network.IoLoop}, Netty's
 * NIO event loop on one thread, which reads, writes and times out the requests of all of them; a
 * connection's state has that one owner, so nothing on the path of a request takes a lock, and a
 * client's threads do not grow with the cluster. A caller encodes its request on its own thread and
 * hands the frame to the loop, which writes it while the in-flight limit has room and completes its
 * future when the answer comes. So a future completes on the loop: its callbacks hand work on to
 * its owner (the producer's sender, the consumer's state owner) and never wait there for another
 * answer, which only the loop could bring. A broker that stops reading fills only its own
 * connection's socket: the loop never waits for a socket.
 *
 * <p>The {@link io.fastleader.clients.network.ConnectionPool} keeps one connection per broker for a
 * producer and two for a consumer (its Fetches have their own), and one more to a group
 * coordinator's broker for the classic protocol's JoinGroup and SyncGroup, opened at the first of
 * them: a broker may hold a Fetch, a JoinGroup or a SyncGroup for long, so Fetches, and JoinGroup
 * with SyncGroup, have connections of their own ({@link io.fastleader.clients.network.ConnectionLane})
 * and nothing else waits behind them. JoinGroup and SyncGroup time out after the rebalance request timeout, a
 * consumer's {@code max(request.timeout.ms, max.poll.interval.ms + 5 s)}, every other request after
 * {@code request.timeout.ms} ({@link io.fastleader.clients.network.ConnectionConfig#requestTimeoutFor}).
 * A connection is set up (TCP, TLS, ApiVersions, SASL) on the loop too, each step started when the
 * one before is answered, so no thread waits for a broker; a failure at any point closes the
 * connection and fails every request on it with one {@link io.fastleader.clients.network.BrokerConnectionException}.
 *
 * <p>TLS is Netty's {@code SslHandler} over a JDK {@link javax.net.ssl.SSLEngine}, so a TLS connection
 * is as non-blocking as a plaintext one.
 */
package io.fastleader.clients.network;
