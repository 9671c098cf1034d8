package io.fastleader.clients.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import javax.net.ssl.SSLHandshakeException;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.MalformedFrameException;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One connection to one broker, ready once its ApiVersions handshake is done.
 *
 * <p>{@link #send} never blocks: it encodes the request on the caller's thread and, when nothing is
 * queued or being written and the in-flight limit leaves room, writes it there and then, as much
 * as the socket's send buffer takes without waiting. Whatever is left, and every request that
 * cannot go at once, is written by the writer thread, in order, while fewer than
 * {@code max.in.flight} are unanswered. The writer also closes the connection when the oldest
 * unanswered request outlives its timeout: {@code request.timeout.ms}, or for JoinGroup and SyncGroup,
 * which the group coordinator holds while the group rebalances, the longer rebalance request timeout
 * ({@link ConnectionConfig#requestTimeoutFor}). The oldest request's deadline is the earliest only
 * while the requests in flight share one timeout: requests with different timeouts do not belong on
 * one connection, and {@link ConnectionPool} gives JoinGroup and SyncGroup one of their own.
 * The reader thread matches each response to the oldest unanswered request (Kafka answers in
 * order) by correlation id. Any failure closes the connection and fails every queued and
 * unanswered request with one {@link BrokerConnectionException}.
 *
 * <p>A request the broker does not answer (a Produce with {@code acks=0}: {@link #sendWithoutResponse})
 * is done once its frame is written, as Kafka's {@code NetworkClient} completes a request that
 * expects no response once it is sent: it is in flight, its timeout running, only while it is
 * being written, and it is never among the requests responses are matched to.
 */
public final class BrokerConnection implements AutoCloseable {

    /** Bound on waiting for a thread to end at close: a callback it runs could otherwise hold close up for good. */
    private static final long THREAD_END_MILLIS = 10_000;

    private final String broker;
    private final ConnectionConfig config;
    private final Wire wire;
    private final ConnectionListener listener;
    /** {@code request.timeout.ms}, the shortest timeout a request can have. */
    private final long requestTimeoutNanos;
    /** Ids need not rise in write order: responses are matched to the oldest request written. */
    private final AtomicInteger correlationIds = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    /** Signals the writer: work was left for it, room was made for a queued request, or the connection closed. */
    private final Condition writerWakeup = lock.newCondition();
    private final ArrayDeque<Request> queued = new ArrayDeque<>();
    private final ArrayDeque<Request> inFlight = new ArrayDeque<>();
    /** Requests that expect no response, in the write under way: done once it ends. */
    private final ArrayDeque<Request> beingWritten = new ArrayDeque<>();
    /** A caller or the writer is writing; only one thread writes at a time, so frames never interleave. */
    private boolean writing;
    /** The rest of a frame a caller could not finish without waiting; the writer owns it and the write. */
    private ByteBuffer handedOver;
    private BrokerConnectionException closedBy;
    private final CompletableFuture<BrokerConnectionException> closed = new CompletableFuture<>();
    private volatile NegotiatedVersions versions;
    private final ClientThreads threads = new ClientThreads();

    private BrokerConnection(String broker, ConnectionConfig config, Wire wire, ConnectionListener listener) {
        this.broker = broker;
        this.config = config;
        this.wire = wire;
        this.listener = listener;
        this.requestTimeoutNanos = config.requestTimeout().toNanos();
    }

    /**
     * Connects (TLS if configured), starts the connection's threads, negotiates API versions and
     * authenticates (SASL if configured).
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
        String broker = address.getHostString() + ":" + address.getPort();
        SecurityConfig.Protocol protocol = config.security().protocol();
        Wire wire;
        try {
            wire = connect(address, config);
        } catch (SslAuthenticationException e) {
            listener.authenticationFailed();
            throw e;
        }
        listener.connected();
        BrokerConnection connection = new BrokerConnection(broker, config, wire, listener);
        connection.startThreads();
        try {
            connection.versions = connection.handshake();
            if (protocol.usesSasl()) {
                SaslAuthenticator.authenticate(config.security(), address.getHostString(), connection::exchange);
            }
        } catch (RuntimeException e) {
            if (e instanceof SaslAuthenticationException) {
                listener.authenticationFailed();
            }
            connection.close();
            throw e;
        }
        if (protocol.usesTls() || protocol.usesSasl()) {
            listener.authenticated();
        }
        return connection;
    }

    /**
     * TCP, then TLS if configured: a non-blocking channel for plaintext, the streams of an
     * {@code SSLSocket} for TLS.
     *
     * @throws SslAuthenticationException if TLS cannot be set up or the broker's certificate is refused
     */
    private static Wire connect(InetSocketAddress address, ConnectionConfig config) {
        String broker = address.getHostString() + ":" + address.getPort();
        int timeoutMs = Math.toIntExact(config.connectTimeout().toMillis());
        // Resolved per connect, as Kafka's client does, so a broker that moved hosts is found again.
        InetSocketAddress resolved = address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        if (!config.security().protocol().usesTls()) {
            try {
                return ChannelWire.connect(resolved, timeoutMs, config.maxResponseBytes());
            } catch (IOException e) {
                throw new BrokerConnectionException("cannot connect to " + broker + ": " + e.getMessage(), e);
            }
        }
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(resolved, timeoutMs);
            Socket tls = TlsSockets.wrap(socket, address.getHostString(), address.getPort(), config.security(), timeoutMs);
            return new StreamWire(tls, config.maxResponseBytes());
        } catch (SSLHandshakeException | GeneralSecurityException e) {
            closeQuietly(socket);
            throw new SslAuthenticationException("TLS with " + broker + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new BrokerConnectionException("cannot connect to " + broker + ": " + e.getMessage(), e);
        }
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

    /** Requests sent or queued and not yet answered (or, for those expecting no answer, not yet written). */
    public int pendingRequests() {
        lock.lock();
        try {
            return inFlight.size() + beingWritten.size() + queued.size();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the connection is still usable. */
    public boolean isOpen() {
        lock.lock();
        try {
            return closedBy == null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the connection; every request still on it fails with a {@link BrokerConnectionException}.
     * Returns once its reader and writer threads have ended (unless called from one of them).
     */
    @Override
    public void close() {
        fail(new BrokerConnectionException("connection to " + broker + " closed by the client", null));
        // The socket is closed, so they end at once, unless a callback they run holds them.
        threads.awaitEnd(THREAD_END_MILLIS);
    }

    /**
     * ApiVersions at our newest version. A broker that does not speak it answers
     * UNSUPPORTED_VERSION in the v0 layout with its own range, which we then meet.
     */
    private NegotiatedVersions handshake() {
        ApiVersionsResponseData response = apiVersions(ApiKey.API_VERSIONS.highestVersion());
        if (response.errorCode() == ErrorCode.UNSUPPORTED_VERSION.code()) {
            ApiVersionsResponseData.ApiVersion range = response.apiKeys().find(ApiKey.API_VERSIONS.id());
            short fallback = range == null ? 0 : (short) Math.min(range.maxVersion(), ApiKey.API_VERSIONS.highestVersion());
            response = apiVersions(fallback);
        }
        if (response.errorCode() != ErrorCode.NONE.code()) {
            throw new BrokerConnectionException("ApiVersions to " + broker + " failed: " + ErrorCode.forCode(response.errorCode()), null);
        }
        return NegotiatedVersions.from(response);
    }

    private ApiVersionsResponseData apiVersions(short version) {
        ApiVersionsRequestData request = new ApiVersionsRequestData()
            .setClientSoftwareName(ClientSoftware.NAME)
            .setClientSoftwareVersion(ClientSoftware.VERSION);
        return (ApiVersionsResponseData) await(ApiKey.API_VERSIONS, sendAt(ApiKey.API_VERSIONS, version, request));
    }

    /** One request of the connection's setup, sent at the negotiated version and waited for. */
    private ApiMessage exchange(ApiKey api, ApiMessage body) {
        return await(api, send(api, body));
    }

    private ApiMessage await(ApiKey api, CompletableFuture<ApiMessage> response) {
        try {
            return response.get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure
                ? failure
                : new BrokerConnectionException(api.displayName() + " to " + broker + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new BrokerConnectionException(api.displayName() + " to " + broker + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerConnectionException("interrupted while setting up the connection to " + broker, e);
        }
    }

    private CompletableFuture<ApiMessage> sendAt(ApiKey api, short version, ApiMessage body) {
        return sendAt(api, version, body, true);
    }

    /** @param expectsResponse false for a request the broker does not answer: its future completes, with null, once written */
    private CompletableFuture<ApiMessage> sendAt(ApiKey api, short version, ApiMessage body, boolean expectsResponse) {
        int correlationId = correlationIds.getAndIncrement();
        // Encoded before taking the lock, so that callers on other threads do not wait for it.
        Request request = new Request(api, version, correlationId,
            Framing.encodeRequest(api, version, correlationId, config.clientId(), body), config.requestTimeoutFor(api).toNanos(),
            expectsResponse);
        lock.lock();
        try {
            if (closedBy != null) {
                return CompletableFuture.failedFuture(closedBy);
            }
            if (writing || !queued.isEmpty() || inFlight.size() >= config.maxInFlight()) {
                queued.add(request);
                writerWakeup.signal();
                return request.response;
            }
            writing = true;
            startLocked(request, System.nanoTime());
        } finally {
            lock.unlock();
        }
        writeInline(request);
        return request.response;
    }

    /**
     * Writes a request on the caller's thread without waiting for the socket: what the send buffer
     * does not take is handed to the writer, which then owns the write until the frame is out.
     */
    private void writeInline(Request request) {
        boolean written;
        try {
            written = wire.tryWrite(new ByteBuffer[] {request.frame});
        } catch (IOException | RuntimeException e) {
            fail(writeFailure(e));
            failCutShort();
            return;
        }
        List<Request> done;
        lock.lock();
        try {
            if (!written) {
                if (closedBy == null) {
                    handedOver = request.frame;
                    writerWakeup.signal();
                    return;
                }
                // Closed: the writer has ended or leaves the write to us, so the request is ours to fail.
                done = null;
            } else {
                writing = false;
                done = takeWrittenLocked();
                if (canWriteLocked()) {
                    writerWakeup.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        if (done == null) {
            failCutShort();
        } else {
            done.forEach(Request::completeWritten);
        }
    }

    /**
     * Takes the requests expecting no response that the write just ended wrote in full, to be
     * completed once the lock is released. A close meanwhile does not fail them: written in full,
     * they are done, as they would be had the close come a moment later. Call with the lock held.
     */
    private List<Request> takeWrittenLocked() {
        if (beingWritten.isEmpty()) {
            return List.of();
        }
        List<Request> written = new ArrayList<>(beingWritten);
        beingWritten.clear();
        if (closedBy == null) {
            // A closed connection's listener has counted every request on it out already.
            written.forEach(request -> listener.writtenWithoutResponse());
        }
        return written;
    }

    /**
     * Once the connection is closed, fails the requests expecting no response whose write the close
     * cut short. Called by the thread whose write it was, as the write ends: a close leaves them to
     * it, since only that thread knows whether their frames went out whole.
     */
    private void failCutShort() {
        List<Request> cutShort;
        BrokerConnectionException cause;
        lock.lock();
        try {
            cause = closedBy;
            if (cause == null || beingWritten.isEmpty()) {
                return;
            }
            cutShort = new ArrayList<>(beingWritten);
            beingWritten.clear();
        } finally {
            lock.unlock();
        }
        cutShort.forEach(request -> request.response.completeExceptionally(cause));
    }

    /**
     * Moves a request in flight, its timeout running from now: among those waiting for an answer, or
     * for one expecting none, those done once the write under way ends. Call with the lock held.
     */
    private void startLocked(Request request, long now) {
        request.deadlineNanos = now + request.timeoutNanos;
        (request.expectsResponse ? inFlight : beingWritten).add(request);
        listener.sent(request.api, request.frame.remaining());
    }

    private void startThreads() {
        Thread writer = threads.named("fastleader-writer-" + broker + "-", config.ioThreads()).newThread(this::writeLoop);
        Thread reader = threads.named("fastleader-reader-" + broker + "-", config.ioThreads()).newThread(this::readLoop);
        writer.start();
        reader.start();
    }

    private void writeLoop() {
        // Whether the writer is in a write of its own, whose requests expecting no response it settles.
        boolean inWrite = false;
        try {
            ByteBuffer[] frames = nextToWrite(false);
            while (frames != null) {
                inWrite = true;
                while (!wire.write(frames, nanosToWaitForTheSocket())) {
                    // The socket took only part of the frames; the loop waits for room again.
                }
                completeWritten();
                inWrite = false;
                frames = nextToWrite(true);
            }
        } catch (IOException | RuntimeException e) {
            fail(writeFailure(e));
        } catch (InterruptedException e) {
            fail(new BrokerConnectionException("the writer to " + broker + " was interrupted", e));
        } finally {
            writerEnded(inWrite);
        }
    }

    /**
     * The writer ends, the connection closed: fails the requests expecting no response of the write
     * it was in, or of the rest of a frame handed over to it and never taken up. A caller still
     * writing on its own thread settles its request itself ({@link #writeInline}).
     */
    private void writerEnded(boolean inWrite) {
        boolean callerWrites;
        lock.lock();
        try {
            callerWrites = writing && !inWrite && handedOver == null;
        } finally {
            lock.unlock();
        }
        if (!callerWrites) {
            failCutShort();
        }
    }

    private BrokerConnectionException writeFailure(Exception e) {
        return new BrokerConnectionException("writing to " + broker + " failed: " + e.getMessage(), e);
    }

    /**
     * Blocks until there is something for the writer: the rest of a frame a caller handed over
     * and the queued requests the in-flight limit allows, which it moves in flight and returns to
     * be written in one go; or null once the connection is closed. Closes it when the oldest
     * request in flight has timed out.
     *
     * @param doneWriting the writer has written the frames this returned last time, and gives up the write side
     */
    private ByteBuffer[] nextToWrite(boolean doneWriting) throws InterruptedException {
        BrokerConnectionException timedOut = null;
        lock.lock();
        try {
            if (doneWriting) {
                writing = false;
            }
            while (closedBy == null && (timedOut = timeoutLocked(System.nanoTime())) == null) {
                if (handedOver != null || (!writing && canWriteLocked())) {
                    writing = true;
                    List<ByteBuffer> frames = new ArrayList<>();
                    if (handedOver != null) {
                        frames.add(handedOver);
                        handedOver = null;
                    }
                    long now = System.nanoTime();
                    while (canWriteLocked()) {
                        Request request = queued.poll();
                        startLocked(request, now);
                        frames.add(request.frame);
                    }
                    return frames.toArray(new ByteBuffer[0]);
                }
                // With nothing in flight, any request written later times out after this wait ends: none has a shorter timeout.
                Request oldest = inFlight.peek();
                writerWakeup.awaitNanos(oldest == null ? requestTimeoutNanos : oldest.deadlineNanos - System.nanoTime());
            }
        } finally {
            lock.unlock();
        }
        if (timedOut != null) {
            fail(timedOut);
        }
        return null;
    }

    /** Completes the requests expecting no response that the writer's last write carried. */
    private void completeWritten() {
        List<Request> done;
        lock.lock();
        try {
            done = takeWrittenLocked();
        } finally {
            lock.unlock();
        }
        done.forEach(Request::completeWritten);
    }

    /** How long the writer may wait for room in the socket before it must check the oldest request's deadline. */
    private long nanosToWaitForTheSocket() {
        BrokerConnectionException timedOut;
        long waitNanos;
        lock.lock();
        try {
            long now = System.nanoTime();
            Request oldest = oldestLocked();
            timedOut = timeoutLocked(now);
            waitNanos = timedOut != null || oldest == null ? requestTimeoutNanos : oldest.deadlineNanos - now;
        } finally {
            lock.unlock();
        }
        if (timedOut != null) {
            // Closes the socket, so the write waiting for room ends at once.
            fail(timedOut);
        }
        return waitNanos;
    }

    /**
     * The failure to close the connection with if the oldest request in flight is past its deadline,
     * naming the timeout that applied, else null. Call with the lock held.
     */
    private BrokerConnectionException timeoutLocked(long now) {
        Request oldest = oldestLocked();
        if (oldest == null || now - oldest.deadlineNanos < 0) {
            return null;
        }
        return new RequestTimedOutException(oldest.api.displayName() + " request to " + broker
            + " got no response within " + TimeUnit.NANOSECONDS.toMillis(oldest.timeoutNanos) + " ms ("
            + ConnectionConfig.requestTimeoutNameFor(oldest.api) + ")");
    }

    /**
     * The request in flight longest: the oldest waiting for an answer, or one expecting none still
     * being written, whichever went first. Call with the lock held.
     */
    private Request oldestLocked() {
        Request answered = inFlight.peek();
        Request written = beingWritten.peek();
        if (answered == null || written == null) {
            return answered == null ? written : answered;
        }
        return written.deadlineNanos - answered.deadlineNanos < 0 ? written : answered;
    }

    /** A request is queued and the in-flight limit leaves room for it. Call with the lock held. */
    private boolean canWriteLocked() {
        return !queued.isEmpty() && inFlight.size() < config.maxInFlight();
    }

    private void readLoop() {
        try {
            while (true) {
                complete(wire.readFrame());
            }
        } catch (IOException | RuntimeException e) {
            fail(new BrokerConnectionException(failureMessage(e), e));
        } catch (Error e) {
            // The reader never dies silently: the requests learn why before the error propagates.
            fail(new BrokerConnectionException("the reader from " + broker + " failed: " + e, e));
            throw e;
        }
    }

    private String failureMessage(Throwable e) {
        if (e instanceof MalformedFrameException) {
            return "malformed response from " + broker + ": " + e.getMessage();
        }
        return "reading from " + broker + " failed: " + e.getMessage();
    }

    /**
     * Matches a response frame to the oldest request in flight, decodes it and completes it. The
     * request stays in flight until decoded, so a malformed body fails it with the connection.
     */
    private void complete(ByteBuffer frame) {
        int correlationId = Framing.correlationId(frame);
        Request request;
        lock.lock();
        try {
            request = inFlight.peek();
        } finally {
            lock.unlock();
        }
        if (request == null || request.correlationId != correlationId) {
            throw new MalformedFrameException("response with correlation id " + correlationId + " while "
                + (request == null ? "no request is in flight" : "the oldest request in flight has " + request.correlationId));
        }
        int frameBytes = Framing.SIZE_PREFIX_BYTES + frame.remaining();
        ApiMessage body = decode(request, frame);
        lock.lock();
        try {
            // Only this thread removes answered requests; a concurrent failure may have cleared it.
            if (inFlight.peek() == request) {
                inFlight.poll();
                listener.received(frameBytes);
                if (!writing && canWriteLocked()) {
                    writerWakeup.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        request.response.complete(body);
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
     * First failure wins: it closes the socket and fails every request; later ones are ignored.
     * The requests are failed once the lock is released: their callbacks may well send again, on
     * this connection's replacement or another one.
     */
    private void fail(BrokerConnectionException cause) {
        List<Request> failed = new ArrayList<>();
        lock.lock();
        try {
            if (closedBy != null) {
                return;
            }
            closedBy = cause;
            wire.close();
            listener.closed();
            // Requests expecting no response that are being written are left to the write's owner (failCutShort).
            failed.addAll(inFlight);
            failed.addAll(queued);
            inFlight.clear();
            queued.clear();
            writerWakeup.signalAll();
        } finally {
            lock.unlock();
        }
        failed.forEach(request -> request.response.completeExceptionally(cause));
        closed.complete(cause);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing is best effort: the connection is being abandoned either way.
        }
    }

    /** A request from the moment it is queued until it is answered or failed. */
    private static final class Request {
        final ApiKey api;
        final short version;
        final int correlationId;
        final ByteBuffer frame;
        /** How long the request may wait for its response once written: {@link ConnectionConfig#requestTimeoutFor} its API. */
        final long timeoutNanos;
        /** False for a request the broker does not answer: done once written. */
        final boolean expectsResponse;
        final CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        long deadlineNanos;

        Request(ApiKey api, short version, int correlationId, ByteBuffer frame, long timeoutNanos, boolean expectsResponse) {
            this.api = api;
            this.version = version;
            this.correlationId = correlationId;
            this.frame = frame;
            this.timeoutNanos = timeoutNanos;
            this.expectsResponse = expectsResponse;
        }

        /** A request expecting no response is done: it was written in full. */
        void completeWritten() {
            response.complete(null);
        }
    }
}
