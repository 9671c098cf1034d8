package io.fastleader.clients.network;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.MalformedFrameException;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One connection to one broker, ready once its ApiVersions handshake is done.
 *
 * <p>Every connection of a client lives on the client's {@link IoLoop}, which reads, writes and times
 * out its requests; a connection opened on its own, outside a pool, has a loop of its own. The loop
 * owns the connection's state, so nothing here takes a lock. {@link #send} never blocks: it encodes
 * the request on the caller's thread and hands it to the loop, which writes it at once while fewer
 * than {@code max.in.flight} are unanswered, and else once an answer makes room, in order. The loop
 * closes the connection when the oldest unanswered request outlives its timeout:
 * {@code request.timeout.ms}, or for JoinGroup and SyncGroup, which the group coordinator holds while
 * the group rebalances, the longer rebalance request timeout ({@link ConnectionConfig#requestTimeoutFor}).
 * The oldest request's deadline is the earliest only while the requests in flight share one timeout:
 * requests with different timeouts do not belong on one connection, and {@link ConnectionPool} gives
 * JoinGroup and SyncGroup one of their own. Each response is matched to the oldest unanswered request
 * (Kafka answers in order) by correlation id, and its future completes on the loop: whoever waits on
 * it must hand the work on, not wait there for another answer. Any failure closes the connection and
 * fails every queued and unanswered request with one {@link BrokerConnectionException}.
 *
 * <p>A request the broker does not answer (a Produce with {@code acks=0}: {@link #sendWithoutResponse})
 * is done once its frame is written, as Kafka's {@code NetworkClient} completes a request that
 * expects no response once it is sent: it is in flight, its timeout running, only while it is
 * being written, and it is never among the requests responses are matched to.
 */
public final class BrokerConnection implements AutoCloseable {

    /** Bound on waiting for the loop to close the connection: a callback it runs could otherwise hold close up for good. */
    private static final long CLOSE_WAIT_MILLIS = 10_000;
    /**
     * Re-authentication is due at 85 to 95% of the session's lifetime, as kafka-clients spreads it: early
     * enough for the requests ahead of it and the exchange, spread so that a client's connections do not
     * all re-authenticate at once.
     */
    private static final double REAUTHENTICATION_WINDOW_START = 0.85;
    private static final double REAUTHENTICATION_WINDOW_JITTER = 0.10;
    /** ApiVersions v5 (KIP-1242) names the cluster and node the client means to reach; v4 names none. */
    static final short LAST_VERSION_WITHOUT_CLUSTER_CHECK = 4;

    private final String broker;
    /** The broker's host as connected to: the SASL client names it. */
    private final String host;
    private final ConnectionConfig config;
    private final ConnectionListener listener;
    private final IoLoop loop;
    /** The client's TLS engines and SASL login. */
    private final ChannelSecurity security;
    /** The connection was opened on its own and made its loop and security, which close with it. */
    private final boolean ownsLoop;
    /** Ids need not rise in write order: responses are matched to the oldest request written. */
    private final AtomicInteger correlationIds = new AtomicInteger();
    /** Requests sent and not yet settled, for {@link #pendingRequests} on any thread. */
    private final AtomicInteger pending = new AtomicInteger();
    /** Completes once the socket is up (and TLS, if configured), or fails with why it is not. */
    private final CompletableFuture<Void> connected = new CompletableFuture<>();
    private final CompletableFuture<BrokerConnectionException> closed = new CompletableFuture<>();
    // Owned by the loop.
    private final ArrayDeque<Request> queued = new ArrayDeque<>();
    private final ArrayDeque<Request> inFlight = new ArrayDeque<>();
    /** Requests that expect no response, written but not yet out in full: done once their write ends. */
    private final ArrayDeque<Request> beingWritten = new ArrayDeque<>();
    /** The listener heard {@link ConnectionListener#connected}, so it hears {@link ConnectionListener#closed} too. */
    private boolean toldConnected;
    private ScheduledFuture<?> timeoutCheck;
    /** The next re-authentication (KIP-368), once the broker gave the session a lifetime. */
    private ScheduledFuture<?> reauthentication;
    /** While re-authenticating, requests queued wait; the exchange's own go out ahead of them. */
    private boolean reauthenticating;
    private Channel channel;
    private volatile BrokerConnectionException closedBy;
    private volatile NegotiatedVersions versions;

    private BrokerConnection(String host, int port, ConnectionConfig config, ConnectionListener listener, IoLoop loop,
                             ChannelSecurity security, boolean ownsLoop) {
        this.broker = host + ":" + port;
        this.host = host;
        this.config = config;
        this.listener = listener;
        this.loop = loop;
        this.security = security;
        this.ownsLoop = ownsLoop;
    }

    /**
     * Connects (TLS if configured) on a loop of the connection's own, negotiates API versions and
     * authenticates (SASL if configured), waiting until that is done.
     *
     * @throws BrokerConnectionException if the broker cannot be reached or the setup fails on the way
     * @throws SslAuthenticationException if TLS cannot be set up or the broker's certificate is refused
     * @throws org.apache.kafka.common.errors.SaslAuthenticationException if the broker refuses the credentials
     */
    public static BrokerConnection open(InetSocketAddress address, ConnectionConfig config) {
        return open(address, config, ConnectionListener.NONE);
    }

    /**
     * Opens a connection as {@link #open(InetSocketAddress, ConnectionConfig)} does, telling
     * {@code listener} what it does on the wire, the setup included.
     */
    public static BrokerConnection open(InetSocketAddress address, ConnectionConfig config, ConnectionListener listener) {
        CompletableFuture<BrokerConnection> opening = openOnOwnLoop(address, config, listener);
        try {
            // Every step of the setup is bounded on the loop, by the setup and request timeouts.
            return opening.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure
                : new BrokerConnectionException("cannot connect to " + address + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            opening.completeExceptionally(e);
            Thread.currentThread().interrupt();
            throw new BrokerConnectionException("interrupted while connecting to " + address, e);
        }
    }

    /**
     * Opens a connection as {@link #open(InetSocketAddress, ConnectionConfig, ConnectionListener)}
     * does, without waiting: on a loop of the connection's own, which closes with it.
     *
     * @return as {@link #open(InetSocketAddress, ConnectionConfig, ConnectionListener, IoLoop, ChannelSecurity)}
     */
    public static CompletableFuture<BrokerConnection> openOnOwnLoop(InetSocketAddress address, ConnectionConfig config,
                                                                  ConnectionListener listener) {
        ChannelSecurity security = ChannelSecurity.of(config.security());
        return open(address, config, listener, IoLoop.start("fastleader-io-" + address.getHostString() + ":" + address.getPort() + "-"),
            security, true);
    }

    /**
     * Opens a connection on {@code loop} with the client's {@code security}, both of which the
     * caller keeps and closes: TCP, then TLS, ApiVersions and SASL as configured, each step started
     * on the loop when the one before is answered, so that no thread waits for a broker. It never
     * blocks on the caller's thread, the loop's included (the broker's name is resolved on the loop
     * as it connects, as kafka-clients resolves it on its network thread).
     *
     * @return completes on the loop once the connection is set up; fails with what
     *         {@link #open(InetSocketAddress, ConnectionConfig)} throws. Completing it first, with a
     *         failure (a pool that closes gives the setup up so), closes the connection at once
     */
    static CompletableFuture<BrokerConnection> open(InetSocketAddress address, ConnectionConfig config, ConnectionListener listener,
                                                    IoLoop loop, ChannelSecurity security) {
        return open(address, config, listener, loop, security, false);
    }

    private static CompletableFuture<BrokerConnection> open(InetSocketAddress address, ConnectionConfig config,
                                                            ConnectionListener listener, IoLoop loop, ChannelSecurity security,
                                                            boolean ownsLoop) {
        SecurityConfig.Protocol protocol = config.security().protocol();
        BrokerConnection connection = new BrokerConnection(address.getHostString(), address.getPort(), config, listener, loop, security,
            ownsLoop);
        CompletableFuture<BrokerConnection> ready = new CompletableFuture<>();
        ready.whenComplete((opened, failure) -> {
            if (failure != null) {
                connection.close();
            }
        });
        CompletableFuture<Void> setUp;
        try {
            setUp = connection.connect(address)
                .thenCompose(connected -> connection.negotiateVersions())
                .thenCompose(negotiated -> {
                    connection.versions = negotiated;
                    return protocol.usesSasl()
                        ? SaslAuthenticator.authenticate(security.sasl(), connection.host, connection::send)
                            .thenAccept(connection::sessionStarted)
                        : CompletableFuture.completedFuture(null);
                });
        } catch (RuntimeException e) {
            setUp = CompletableFuture.failedFuture(e);
        }
        setUp.whenComplete((done, failure) -> {
            if (failure == null) {
                if (protocol.usesTls() || protocol.usesSasl()) {
                    listener.authenticated();
                }
                ready.complete(connection);
                return;
            }
            Throwable cause = Failures.cause(failure);
            if (cause instanceof AuthenticationException) {
                listener.authenticationFailed();
            }
            ready.completeExceptionally(cause);
        });
        return ready;
    }

    /**
     * TCP, then TLS if configured, each bounded by {@code socket.connection.setup.timeout.ms}.
     *
     * @return completes on the loop once the socket is up; fails with {@link SslAuthenticationException}
     *         if TLS cannot be set up or the broker's certificate is refused
     */
    private CompletableFuture<Void> connect(InetSocketAddress address) {
        int timeoutMs = Math.toIntExact(config.connectTimeout().toMillis());
        SslHandler tlsHandler = security.tls() != null ? tlsHandler(address, timeoutMs) : null;
        // A pool's connect comes resolved (HostResolver); an unresolved address, of a connection opened alone, Netty resolves on the loop.
        Bootstrap bootstrap = new Bootstrap()
            .group(loop.eventLoop())
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeoutMs);
        if (config.sendBufferBytes() != ConnectionConfig.OS_DEFAULT_BUFFER) {
            bootstrap.option(ChannelOption.SO_SNDBUF, config.sendBufferBytes());
        }
        if (config.receiveBufferBytes() != ConnectionConfig.OS_DEFAULT_BUFFER) {
            bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferBytes());
        }
        ChannelFuture connecting = bootstrap
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel socket) {
                    if (tlsHandler != null) {
                        socket.pipeline().addLast(tlsHandler);
                    }
                    socket.pipeline().addLast(new ResponseFrames(config.maxResponseBytes()), new Inbound());
                }
            })
            .connect(address);
        channel = connecting.channel();
        connecting.addListener(done -> {
            if (!done.isSuccess()) {
                fail(new BrokerConnectionException("cannot connect to " + broker + ": " + done.cause().getMessage(), done.cause()));
            } else if (tlsHandler == null) {
                markConnected();
            } else {
                tlsHandler.handshakeFuture().addListener(handshake -> {
                    if (handshake.isSuccess()) {
                        markConnected();
                    } else {
                        tlsFailed(handshake.cause());
                    }
                });
            }
        });
        return connected;
    }

    private SslHandler tlsHandler(InetSocketAddress address, int timeoutMs) {
        SSLEngine engine;
        try {
            engine = security.tls().engine(address.getHostString(), address.getPort());
        } catch (RuntimeException e) {
            throw new SslAuthenticationException("TLS with " + broker + " failed: " + e.getMessage(), e);
        }
        SslHandler handler = new SslHandler(engine);
        handler.setHandshakeTimeoutMillis(timeoutMs);
        return handler;
    }

    /**
     * On the loop: the TLS handshake failed. A refusal by TLS itself fails the setup with the
     * {@link SslAuthenticationException} kafka-clients raises; the requests, if any, fail as on any close.
     */
    private void tlsFailed(Throwable cause) {
        String message = "TLS with " + broker + " failed: " + cause.getMessage();
        if (cause instanceof SSLException) {
            connected.completeExceptionally(new SslAuthenticationException(message, cause));
        }
        fail(new BrokerConnectionException(message, cause));
    }

    /** On the loop: the socket is up. */
    private void markConnected() {
        if (closedBy != null) {
            return;
        }
        toldConnected = true;
        listener.connected();
        connected.complete(null);
    }

    /** The versions this connection uses. */
    public NegotiatedVersions versions() {
        return versions;
    }

    /**
     * Sends a request at the version negotiated for {@code api}.
     *
     * @return the response body; fails with {@link BrokerConnectionException} if the connection
     *         fails first, or with {@link org.apache.kafka.common.errors.UnsupportedVersionException}
     *         if the broker speaks no version of {@code api} we speak
     */
    public CompletableFuture<ApiMessage> send(ApiKey api, ApiMessage body) {
        try {
            return sendAt(api, versions.version(api), body);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Sends a request built for the version negotiated for {@code api}.
     *
     * @return as {@link #send(ApiKey, ApiMessage)}
     */
    public CompletableFuture<ApiMessage> send(ApiKey api, VersionedRequest body) {
        return send(api, api.highestVersion(), body);
    }

    /**
     * Sends a request built for the version negotiated for {@code api}, or for {@code highestVersion}
     * if that is lower: for an API whose newer versions mean more than the cluster has enabled
     * ({@link NegotiatedVersions#version(ApiKey, short)}).
     *
     * @return as {@link #send(ApiKey, ApiMessage)}; fails, unsent, with
     *         {@link org.apache.kafka.common.errors.UnsupportedVersionException} also if
     *         {@code highestVersion} is below the lowest version both sides speak
     */
    public CompletableFuture<ApiMessage> send(ApiKey api, short highestVersion, VersionedRequest body) {
        try {
            short version = versions.version(api, highestVersion);
            return sendAt(api, version, body.at(version));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Sends a request the broker does not answer, a Produce with {@code acks=0}, at the version
     * negotiated for {@code api}. It goes out in order with the others, but takes no place among the
     * requests waiting for an answer: it is done once written.
     *
     * @return completes once the whole request is written; fails as {@link #send(ApiKey, ApiMessage)}
     *         does if the connection fails before that
     */
    public CompletableFuture<Void> sendWithoutResponse(ApiKey api, ApiMessage body) {
        try {
            return sendAt(api, versions.version(api), body, false).thenApply(none -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Completes once the connection has closed, by the client or by a failure, with the exception
     * its requests failed with. A broker refuses a request it does not answer by closing the
     * connection: this is how a caller hears of it.
     */
    public CompletableFuture<BrokerConnectionException> whenClosed() {
        return closed.copy();
    }

    /** The socket's options as the operating system took them: its buffer sizes, which it may round or double. */
    SocketChannelConfig socketOptions() {
        return ((SocketChannel) channel).config();
    }

    /** Requests sent or queued and not yet answered (or, for those expecting no answer, not yet written). */
    public int pendingRequests() {
        return pending.get();
    }

    /** Whether the connection is still usable. */
    public boolean isOpen() {
        return closedBy == null;
    }

    /**
     * Closes the connection; every request still on it fails with a {@link BrokerConnectionException}.
     * Returns once they have failed (unless called on the loop, where they fail before it returns anyway).
     */
    @Override
    public void close() {
        BrokerConnectionException byClient = new BrokerConnectionException("connection to " + broker + " closed by the client", null);
        if (loop.inLoop()) {
            fail(byClient);
        } else if (loop.execute(() -> fail(byClient))) {
            try {
                closed.get(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // Bounded: the loop is held by a callback; the connection fails once it lets go.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            // The loop has stopped, so nothing else can touch the connection's state.
            fail(byClient);
        }
        if (ownsLoop) {
            loop.close();
            security.close();
        }
    }

    /**
     * ApiVersions at our newest version, or, with no {@link ClusterCheck} to make, the newest that
     * names no broker (the pool asks for a check only of brokers known to speak v5: one older than
     * Kafka 4.4 would refuse it, costing the connect a round trip, and a proxy in front of one may
     * not parse it). A broker that does not speak the version sent answers UNSUPPORTED_VERSION in the v0
     * layout with its own range, which we then meet. A broker that is not the node of the cluster
     * the request names answers REBOOTSTRAP_REQUIRED ({@link MisroutedConnectionException}).
     */
    private CompletableFuture<NegotiatedVersions> negotiateVersions() {
        short first = config.clusterCheck() == null ? LAST_VERSION_WITHOUT_CLUSTER_CHECK : ApiKey.API_VERSIONS.highestVersion();
        return apiVersions(first)
            .thenCompose(response -> {
                if (response.errorCode() != ErrorCode.UNSUPPORTED_VERSION.code()) {
                    return CompletableFuture.completedFuture(response);
                }
                ApiVersionsResponseData.ApiVersion range = response.apiKeys().find(ApiKey.API_VERSIONS.id());
                return apiVersions(range == null ? 0 : (short) Math.min(range.maxVersion(), ApiKey.API_VERSIONS.highestVersion()));
            })
            .thenApply(response -> {
                if (response.errorCode() == ErrorCode.REBOOTSTRAP_REQUIRED.code() && config.clusterCheck() != null) {
                    throw new MisroutedConnectionException(broker, config.clusterCheck());
                }
                if (response.errorCode() != ErrorCode.NONE.code()) {
                    throw new BrokerConnectionException("ApiVersions to " + broker + " failed: "
                        + ErrorCode.forCode(response.errorCode()), null);
                }
                return NegotiatedVersions.from(response);
            });
    }

    private CompletableFuture<ApiVersionsResponseData> apiVersions(short version) {
        ApiVersionsRequestData request = new ApiVersionsRequestData()
            .setClientSoftwareName(ClientSoftware.NAME)
            .setClientSoftwareVersion(ClientSoftware.VERSION);
        ClusterCheck check = config.clusterCheck();
        if (check != null && version > LAST_VERSION_WITHOUT_CLUSTER_CHECK) {
            request.setClusterId(check.clusterId()).setNodeId(check.nodeId());
        }
        return sendAt(ApiKey.API_VERSIONS, version, request).thenApply(ApiVersionsResponseData.class::cast);
    }

    private CompletableFuture<ApiMessage> sendAt(ApiKey api, short version, ApiMessage body) {
        return sendAt(api, version, body, true, false);
    }

    private CompletableFuture<ApiMessage> sendAt(ApiKey api, short version, ApiMessage body, boolean expectsResponse) {
        return sendAt(api, version, body, expectsResponse, false);
    }

    /**
     * @param expectsResponse false for a request the broker does not answer: its future completes, with null, once written
     * @param reauthenticates true for a request of a re-authentication, which goes out ahead of the requests waiting for it
     */
    private CompletableFuture<ApiMessage> sendAt(ApiKey api, short version, ApiMessage body, boolean expectsResponse,
                                                 boolean reauthenticates) {
        BrokerConnectionException closedAlready = closedBy;
        if (closedAlready != null) {
            return CompletableFuture.failedFuture(closedAlready);
        }
        int correlationId = correlationIds.getAndIncrement();
        // Encoded on the caller's thread, so that the loop only writes.
        Request request = new Request(api, version, correlationId,
            RequestFrame.encode(api, version, correlationId, config.clientId(), body), config.requestTimeoutFor(api).toNanos(),
            expectsResponse, reauthenticates);
        pending.incrementAndGet();
        if (loop.inLoop()) {
            enqueue(request);
        } else if (!loop.execute(() -> enqueue(request))) {
            request.discard();
            request.fail(closedBy != null ? closedBy
                : new BrokerConnectionException("connection to " + broker + " closed: its I/O loop has stopped", null));
        }
        return request.response;
    }

    /** On the loop: queues a request and writes what the in-flight limit allows. */
    private void enqueue(Request request) {
        if (closedBy != null) {
            request.discard();
            request.fail(closedBy);
            return;
        }
        if (request.reauthenticates) {
            queued.addFirst(request);
        } else {
            queued.add(request);
        }
        drain();
    }

    /**
     * On the loop: writes queued requests while fewer than {@code max.in.flight} await an answer
     * (while re-authenticating, only the exchange's), moving each in flight, its timeout running from
     * now, then flushes them in one go.
     */
    private void drain() {
        if (!canWriteNext() || closedBy != null) {
            return;
        }
        long now = System.nanoTime();
        while (canWriteNext()) {
            Request request = queued.poll();
            request.deadlineNanos = now + request.timeoutNanos;
            listener.sent(request.api, request.frameBytes);
            (request.expectsResponse ? inFlight : beingWritten).add(request);
            ChannelPromise written = request.expectsResponse ? channel.voidPromise() : channel.newPromise();
            request.write(written);
            if (!request.expectsResponse) {
                written.addListener(write -> written(request, write.cause()));
            }
        }
        channel.flush();
        scheduleTimeoutCheck();
    }

    private boolean canWriteNext() {
        return !queued.isEmpty() && inFlight.size() < config.maxInFlight() && (!reauthenticating || queued.peek().reauthenticates);
    }

    /**
     * On the loop: SASL accepted the client for a session of {@code lifetimeMs} (0: with no end), so
     * its re-authentication is scheduled within the session.
     */
    private void sessionStarted(long lifetimeMs) {
        if (lifetimeMs <= 0 || closedBy != null) {
            return;
        }
        double share = REAUTHENTICATION_WINDOW_START + ThreadLocalRandom.current().nextDouble() * REAUTHENTICATION_WINDOW_JITTER;
        reauthentication = loop.eventLoop().schedule(this::reauthenticate, (long) (lifetimeMs * share), TimeUnit.MILLISECONDS);
    }

    /**
     * On the loop: re-authenticates on the open connection (KIP-368). Requests queued from now on
     * wait; those already written go on, and the broker, which reads a connection's requests one at a
     * time, answers them before it reads the SaslHandshake written behind them. Once it accepts the
     * client again the waiting requests go out; a refusal closes the connection, failing them with it.
     */
    private void reauthenticate() {
        reauthentication = null;
        if (closedBy != null) {
            return;
        }
        reauthenticating = true;
        long startNanos = System.nanoTime();
        SaslAuthenticator.authenticate(security.sasl(), host, this::sendReauthenticating)
            .whenComplete((lifetimeMs, failure) -> reauthenticated(lifetimeMs, failure, startNanos));
    }

    /** On the loop: a request of the re-authentication's exchange. */
    private CompletableFuture<ApiMessage> sendReauthenticating(ApiKey api, ApiMessage body) {
        try {
            return sendAt(api, versions.version(api), body, true, true);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** On the loop: the re-authentication's end; the requests that waited for it go out, or fail with its refusal. */
    private void reauthenticated(Long lifetimeMs, Throwable failure, long startNanos) {
        reauthenticating = false;
        if (failure == null) {
            listener.reauthenticated(System.nanoTime() - startNanos);
            sessionStarted(lifetimeMs);
            drain();
        } else if (closedBy == null) {
            // A connection that closed meanwhile failed the exchange with its own cause, already told.
            listener.reauthenticationFailed();
            Throwable cause = Failures.cause(failure);
            fail(new BrokerConnectionException("re-authentication with " + broker + " failed: " + cause.getMessage(), cause));
        }
    }

    /** On the loop: a request expecting no response was written in full, or its write failed. */
    private void written(Request request, Throwable failure) {
        if (failure != null) {
            fail(writeFailure(failure));
        } else if (beingWritten.remove(request)) {
            listener.writtenWithoutResponse();
            request.succeed(null);
        }
    }

    private BrokerConnectionException writeFailure(Throwable e) {
        return new BrokerConnectionException("writing to " + broker + " failed: " + e.getMessage(), e);
    }

    /** On the loop: checks the oldest request's deadline when it comes, unless a check is already due. */
    private void scheduleTimeoutCheck() {
        Request oldest = oldest();
        if (timeoutCheck != null || oldest == null || closedBy != null) {
            return;
        }
        timeoutCheck = loop.eventLoop().schedule(this::checkTimeout, oldest.deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    private void checkTimeout() {
        timeoutCheck = null;
        Request oldest = oldest();
        if (oldest != null && System.nanoTime() - oldest.deadlineNanos >= 0) {
            fail(new RequestTimedOutException(oldest.api.displayName() + " request to " + broker
                + " got no response within " + TimeUnit.NANOSECONDS.toMillis(oldest.timeoutNanos) + " ms ("
                + ConnectionConfig.requestTimeoutNameFor(oldest.api) + ")"));
        } else {
            scheduleTimeoutCheck();
        }
    }

    /**
     * The request in flight longest: the oldest waiting for an answer, or one expecting none still
     * being written, whichever went first.
     */
    private Request oldest() {
        Request answered = inFlight.peek();
        Request written = beingWritten.peek();
        if (answered == null || written == null) {
            return answered == null ? written : answered;
        }
        return written.deadlineNanos - answered.deadlineNanos < 0 ? written : answered;
    }

    /**
     * On the loop: matches a response frame to the oldest request in flight, decodes it and
     * completes it, after writing what the answer made room for.
     */
    private void answered(ByteBuffer frame) {
        int correlationId = Framing.correlationId(frame);
        Request request = inFlight.peek();
        if (request == null || request.correlationId != correlationId) {
            throw new MalformedFrameException("response with correlation id " + correlationId + " while "
                + (request == null ? "no request is in flight" : "the oldest request in flight has " + request.correlationId));
        }
        int frameBytes = Framing.SIZE_PREFIX_BYTES + frame.remaining();
        ApiMessage body = decode(request, frame);
        inFlight.poll();
        listener.received(frameBytes);
        drain();
        request.succeed(body);
    }

    private String failureMessage(Throwable e) {
        if (e instanceof MalformedFrameException) {
            return "malformed response from " + broker + ": " + e.getMessage();
        }
        return "reading from " + broker + " failed: " + e.getMessage();
    }

    private static ApiMessage decode(Request request, ByteBuffer frame) {
        try {
            return Framing.decodeResponse(request.api, request.version, frame).body();
        } catch (MalformedFrameException e) {
            // A broker that does not speak our ApiVersions version answers in the v0 layout.
            if (request.api == ApiKey.API_VERSIONS && request.version > 0) {
                return Framing.decodeResponse(ApiKey.API_VERSIONS, (short) 0, frame).body();
            }
            throw e;
        }
    }

    /**
     * On the loop: the first failure wins. It closes the socket and fails every request; later ones
     * are ignored.
     */
    private void fail(BrokerConnectionException cause) {
        if (closedBy != null) {
            return;
        }
        closedBy = cause;
        if (timeoutCheck != null) {
            timeoutCheck.cancel(false);
            timeoutCheck = null;
        }
        if (reauthentication != null) {
            reauthentication.cancel(false);
            reauthentication = null;
        }
        if (channel != null) {
            channel.close();
        }
        if (toldConnected) {
            listener.closed();
        }
        connected.completeExceptionally(cause);
        List<Request> failed = new ArrayList<>(inFlight.size() + beingWritten.size() + queued.size());
        failed.addAll(inFlight);
        failed.addAll(beingWritten);
        queued.forEach(Request::discard);
        failed.addAll(queued);
        inFlight.clear();
        beingWritten.clear();
        queued.clear();
        failed.forEach(request -> request.fail(cause));
        closed.complete(cause);
    }

    /** The end of the pipeline: whole response frames, and whatever ends the connection. */
    private final class Inbound extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext context, Object frame) {
            try {
                answered((ByteBuffer) frame);
            } catch (RuntimeException e) {
                fail(new BrokerConnectionException(failureMessage(e), e));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext context) {
            fail(new BrokerConnectionException("reading from " + broker + " failed: the broker closed the connection", null));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            Throwable failure = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            fail(new BrokerConnectionException(failureMessage(failure), failure));
        }
    }

    /** A request from the moment it is queued until it is answered or failed. */
    private final class Request {
        final ApiKey api;
        final short version;
        final int correlationId;
        /** The frame's parts ({@link RequestFrame}); the channel's once written, else the request's to release. */
        final ByteBuf[] frame;
        final int frameBytes;
        /** How long the request may wait for its response once written: {@link ConnectionConfig#requestTimeoutFor} its API. */
        final long timeoutNanos;
        /** False for a request the broker does not answer: done once written. */
        final boolean expectsResponse;
        /** True for a request of a re-authentication, which goes out while the others wait. */
        final boolean reauthenticates;
        final CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        long deadlineNanos;

        Request(ApiKey api, short version, int correlationId, ByteBuf[] frame, long timeoutNanos, boolean expectsResponse,
                boolean reauthenticates) {
            this.api = api;
            this.version = version;
            this.correlationId = correlationId;
            this.frame = frame;
            this.frameBytes = RequestFrame.bytes(frame);
            this.timeoutNanos = timeoutNanos;
            this.expectsResponse = expectsResponse;
            this.reauthenticates = reauthenticates;
        }

        /** Hands the frame's parts to the channel, in order; {@code written} hears when the last is out. */
        void write(ChannelPromise written) {
            for (int i = 0; i < frame.length - 1; i++) {
                channel.write(frame[i], channel.voidPromise());
            }
            channel.write(frame[frame.length - 1], written);
        }

        /** Releases the frame of a request that will never be written. */
        void discard() {
            RequestFrame.release(frame);
        }

        void succeed(ApiMessage body) {
            pending.decrementAndGet();
            response.complete(body);
        }

        void fail(BrokerConnectionException cause) {
            pending.decrementAndGet();
            response.completeExceptionally(cause);
        }
    }
}
