package io.fastleader.it.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A userspace TCP relay that makes a loopback hop cost what a network hop costs: it listens on a
 * loopback port of its own and forwards every connection it accepts to one upstream address,
 * holding each chunk of bytes back by a fixed delay (plus optional jitter) in each direction. A
 * request and its response through the link therefore cost at least the sum of both directions'
 * delays on top of the upstream's own time.
 *
 * <p>Jitter never reorders bytes: a chunk is due at {@code max(due time of the chunk before it,
 * arrival + delay + uniform(0, jitter))}. Nothing is lost: a half-close or a close travels behind
 * the data, with the same delay. What the link does not model: the TCP handshake (a connection is
 * accepted locally at once), bandwidth, and loss. If the upstream refuses the connection, the
 * accepted client socket is closed at once, as the upstream itself would have refused it.
 *
 * <p>{@link #suspend()} behaves like the upstream host going away: the listening socket closes,
 * so new connections are refused, and every open connection is closed. {@link #resume()} listens
 * again on the same port. {@link #close()} frees everything; no thread is left behind.
 *
 * <p>{@link #addedDelay(Duration)} changes the network under running connections: it adds to both
 * directions' delays for every chunk read from then on, until it is set back to zero.
 *
 * <p>Threads are daemons named {@code delay-link-<port>-...}: one accepting thread while the link
 * listens, and per connection and direction one reading and one writing thread. A link is meant
 * for tests and benchmarks with tens of connections, not for thousands.
 */
public final class DelayLink implements AutoCloseable {

    private static final int CHUNK_BYTES = 64 * 1024;
    /** A connect to a loopback upstream is refused or accepted at once; this only bounds a stuck one. */
    private static final int UPSTREAM_CONNECT_TIMEOUT_MS = 5_000;
    /** Bounds how long {@link #close()} and {@link #suspend()} wait for a thread to notice its socket closed. */
    private static final Duration THREAD_EXIT_TIMEOUT = Duration.ofSeconds(10);

    private final InetSocketAddress upstream;
    private final Duration towardsUpstream;
    private final Duration towardsClient;
    private final Duration jitter;
    private final InetSocketAddress address;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final AtomicLong bytesFromUpstream = new AtomicLong();
    /** Read by every reading thread per chunk; no lock, as a chunk needs only some recent value. */
    private volatile Duration addedDelay = Duration.ZERO;

    private ServerSocket listener;
    private Thread acceptor;
    private boolean closed;

    private DelayLink(InetSocketAddress listenAt, InetSocketAddress upstream, Duration towardsUpstream, Duration towardsClient, Duration jitter) {
        this.upstream = Objects.requireNonNull(upstream, "upstream");
        this.towardsUpstream = requireNonNegative(towardsUpstream, "delay towards the upstream");
        this.towardsClient = requireNonNegative(towardsClient, "delay towards the client");
        this.jitter = requireNonNegative(jitter, "jitter");
        if (!listenAt.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("a delay link listens on loopback only, not on " + listenAt);
        }
        this.listener = bind(listenAt);
        this.address = new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
        startAccepting();
    }

    /**
     * Opens a link that delays both directions alike, so a round trip through it costs at least
     * {@code 2 × oneWayDelay}.
     *
     * @param upstream    where accepted connections go
     * @param oneWayDelay how long each chunk of bytes is held back, in either direction; zero relays at once
     * @param jitter      up to this much extra delay per chunk, drawn uniformly; zero for none
     * @throws IllegalArgumentException if a duration is negative
     * @throws UncheckedIOException     if no loopback port can be bound
     */
    public static DelayLink open(InetSocketAddress upstream, Duration oneWayDelay, Duration jitter) {
        return open(upstream, oneWayDelay, oneWayDelay, jitter);
    }

    /**
     * Opens a link whose directions are delayed differently, for a path that is slow one way only
     * (a node that hears from the rest of the cluster late).
     *
     * @param upstream        where accepted connections go
     * @param towardsUpstream delay of the bytes the client sends
     * @param towardsClient   delay of the bytes the upstream answers
     * @param jitter          up to this much extra delay per chunk, in either direction
     * @throws IllegalArgumentException if a duration is negative
     * @throws UncheckedIOException     if no loopback port can be bound
     */
    public static DelayLink open(InetSocketAddress upstream, Duration towardsUpstream, Duration towardsClient, Duration jitter) {
        return open(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), upstream, towardsUpstream, towardsClient, jitter);
    }

    /**
     * Opens a link on a loopback address and port of the caller's choosing: any address of
     * {@code 127.0.0.0/8} works on Linux, so that one port number can lead to different links
     * for processes that resolve one host name to different loopback addresses.
     *
     * @param listenAt        a loopback address, with port 0 for any free port
     * @param upstream        where accepted connections go
     * @param towardsUpstream delay of the bytes the client sends
     * @param towardsClient   delay of the bytes the upstream answers
     * @param jitter          up to this much extra delay per chunk, in either direction
     * @throws IllegalArgumentException if a duration is negative or {@code listenAt} is not a loopback address
     * @throws UncheckedIOException     if {@code listenAt} cannot be bound
     */
    public static DelayLink open(InetSocketAddress listenAt, InetSocketAddress upstream,
                                 Duration towardsUpstream, Duration towardsClient, Duration jitter) {
        return new DelayLink(listenAt, upstream, towardsUpstream, towardsClient, jitter);
    }

    /** The loopback address and port clients connect to; they stay the same across {@link #suspend()} and {@link #resume()}. */
    public InetSocketAddress address() {
        return address;
    }

    /** The port of {@link #address()}. */
    public int port() {
        return address.getPort();
    }

    /**
     * How many bytes the upstream has sent through the link, counted as they reach it, before
     * their delay: a test sees an answer leave the upstream while it is still on its way.
     */
    public long bytesFromUpstream() {
        return bytesFromUpstream.get();
    }

    /** Where accepted connections are forwarded to. */
    public InetSocketAddress upstream() {
        return upstream;
    }

    /**
     * Adds {@code extra} to the delay of each direction, on top of the delays the link was opened
     * with, for every chunk of bytes read after this call, on open connections and new ones alike;
     * chunks already on their way keep the time they are due at. {@link Duration#ZERO} removes it.
     * A smaller value never lets a chunk overtake the one before it: a chunk is never due earlier
     * than its predecessor, so bytes stay in order. The added delay stays across
     * {@link #suspend()} and {@link #resume()}.
     *
     * @param extra the extra one-way delay; replaces any added before
     * @throws IllegalArgumentException if {@code extra} is negative
     */
    public void addedDelay(Duration extra) {
        addedDelay = requireNonNegative(extra, "added delay");
    }

    /** Whether the link is suspended: not listening, no connection open. */
    public synchronized boolean isSuspended() {
        return listener == null && !closed;
    }

    /**
     * Stops listening and closes every open connection at once, as if the upstream host stopped:
     * new connections are refused until {@link #resume()}. Does nothing if already suspended.
     */
    public synchronized void suspend() {
        ensureOpen();
        if (listener != null) {
            stopListeningAndDisconnect();
        }
    }

    /**
     * Listens again, on the same port. Does nothing if the link is listening.
     *
     * @throws UncheckedIOException if the port has been taken meanwhile
     */
    public synchronized void resume() {
        ensureOpen();
        if (listener == null) {
            listener = bind(address);
            startAccepting();
        }
    }

    /** Stops listening, closes every connection and waits for every thread of the link to end. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (listener != null) {
            stopListeningAndDisconnect();
        }
        closed = true;
    }

    @Override
    public String toString() {
        return "DelayLink[" + address + " -> " + upstream + ", towards upstream " + towardsUpstream
            + ", towards client " + towardsClient + ", jitter " + jitter + ", added " + addedDelay + "]";
    }

    private void stopListeningAndDisconnect() {
        closeQuietly(listener);
        listener = null;
        // Once the accepting thread has ended, no connection can be added behind the loop below.
        join(acceptor);
        acceptor = null;
        for (Connection connection : connections) {
            connection.close();
            connection.join();
        }
        connections.clear();
    }

    private ServerSocket bind(InetSocketAddress listenAt) {
        try {
            ServerSocket socket = new ServerSocket();
            // A resumed link must get its port back while the old connections sit in TIME_WAIT.
            socket.setReuseAddress(true);
            socket.bind(listenAt);
            return socket;
        } catch (IOException e) {
            throw new UncheckedIOException("a delay link to " + upstream + " cannot listen on " + listenAt, e);
        }
    }

    private void startAccepting() {
        ServerSocket listening = listener;
        acceptor = daemon("accept", () -> acceptUntilClosed(listening));
        acceptor.start();
    }

    private void acceptUntilClosed(ServerSocket listening) {
        while (true) {
            Socket client;
            try {
                client = listening.accept();
            } catch (IOException e) {
                return; // suspend() or close() closed the listening socket
            }
            Socket upstreamSocket = connectUpstream();
            if (upstreamSocket == null) {
                closeQuietly(client);
                continue;
            }
            try {
                // Nagle's algorithm would add a delay of its own to the one the link models.
                client.setTcpNoDelay(true);
                upstreamSocket.setTcpNoDelay(true);
            } catch (SocketException e) {
                closeQuietly(client);
                closeQuietly(upstreamSocket);
                continue;
            }
            // No lock: suspend() and close() wait for this thread to end before they close connections.
            connections.removeIf(Connection::isFinished);
            Connection connection = new Connection(connectionCount.incrementAndGet(), client, upstreamSocket);
            connections.add(connection);
            connection.start();
        }
    }

    /** A socket connected to the upstream, or null if the upstream refused. */
    private Socket connectUpstream() {
        Socket socket = new Socket();
        try {
            socket.connect(upstream, UPSTREAM_CONNECT_TIMEOUT_MS);
            return socket;
        } catch (IOException e) {
            closeQuietly(socket);
            return null;
        }
    }

    private Thread daemon(String role, Runnable task) {
        Thread thread = new Thread(task, "delay-link-" + address.getPort() + "-" + role);
        thread.setDaemon(true);
        return thread;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private static Duration requireNonNegative(Duration duration, String what) {
        Objects.requireNonNull(duration, what);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, but is " + duration);
        }
        return duration;
    }

    private static void join(Thread thread) {
        if (thread == null || thread == Thread.currentThread()) {
            return;
        }
        try {
            thread.join(THREAD_EXIT_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new IllegalStateException("thread " + thread.getName() + " did not end within " + THREAD_EXIT_TIMEOUT);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing is all that is left to do with it.
        }
    }

    /** What a reading thread saw, to be passed on at {@code dueNanos}. */
    private record Chunk(Kind kind, byte[] bytes, long dueNanos) {
        enum Kind { DATA, END_OF_STREAM, FAILED }
    }

    /** One accepted connection and its upstream twin, relayed in both directions. */
    private final class Connection {
        private final Socket client;
        private final Socket upstreamSocket;
        private final List<Thread> threads = new ArrayList<>(4);
        private final AtomicInteger directionsFinished = new AtomicInteger();

        Connection(int number, Socket client, Socket upstreamSocket) {
            this.client = client;
            this.upstreamSocket = upstreamSocket;
            relay(number + "-up", client, upstreamSocket, towardsUpstream, new AtomicLong());
            relay(number + "-down", upstreamSocket, client, towardsClient, bytesFromUpstream);
        }

        void start() {
            threads.forEach(Thread::start);
        }

        /** A reading and a writing thread that carry {@code from}'s bytes to {@code to}, {@code delay} late, counted in {@code read}. */
        private void relay(String direction, Socket from, Socket to, Duration delay, AtomicLong read) {
            BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
            threads.add(daemon(direction + "-read", () -> read(from, delay, queue, read)));
            threads.add(daemon(direction + "-write", () -> write(queue, from, to)));
        }

        private void read(Socket from, Duration delay, BlockingQueue<Chunk> queue, AtomicLong counted) {
            long lastDue = Long.MIN_VALUE;
            try {
                InputStream in = from.getInputStream();
                byte[] buffer = new byte[CHUNK_BYTES];
                while (true) {
                    int read = in.read(buffer);
                    // Never earlier than the chunk before: neither jitter nor a removed added delay may reorder bytes.
                    lastDue = Math.max(lastDue, dueNanos(delay));
                    if (read < 0) {
                        queue.add(new Chunk(Chunk.Kind.END_OF_STREAM, null, lastDue));
                        return;
                    }
                    counted.addAndGet(read);
                    queue.add(new Chunk(Chunk.Kind.DATA, Arrays.copyOf(buffer, read), lastDue));
                }
            } catch (IOException e) {
                // A reset, or the link closed the socket: the other side learns of it in turn.
                queue.add(new Chunk(Chunk.Kind.FAILED, null, Math.max(lastDue, dueNanos(delay))));
            }
        }

        private long dueNanos(Duration delay) {
            long extra = jitter.isZero() ? 0 : ThreadLocalRandom.current().nextLong(jitter.toNanos() + 1);
            return System.nanoTime() + delay.toNanos() + addedDelay.toNanos() + extra;
        }

        private void write(BlockingQueue<Chunk> queue, Socket from, Socket to) {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = queue.take();
                    long wait = chunk.dueNanos() - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    switch (chunk.kind()) {
                        case DATA -> out.write(chunk.bytes());
                        case END_OF_STREAM -> {
                            to.shutdownOutput();
                            directionFinished();
                            return;
                        }
                        case FAILED -> {
                            close();
                            return;
                        }
                    }
                }
            } catch (IOException e) {
                // The receiving side is gone. What it sent before going still travels the other
                // way, which ends by itself; this direction stops reading.
                try {
                    from.shutdownInput();
                } catch (IOException alreadyClosed) {
                    // Then the reading thread has stopped already.
                }
                directionFinished();
            } catch (InterruptedException e) {
                // close() stops the writer; the sockets are closed already.
            }
        }

        private void directionFinished() {
            if (directionsFinished.incrementAndGet() == 2) {
                close();
            }
        }

        /** Whether all four threads have ended. */
        boolean isFinished() {
            return threads.stream().noneMatch(Thread::isAlive);
        }

        /** Closes both sockets and stops all four threads; safe to call from any of them, and more than once. */
        void close() {
            closeQuietly(client);
            closeQuietly(upstreamSocket);
            for (Thread thread : threads) {
                if (thread != Thread.currentThread()) {
                    thread.interrupt();
                }
            }
        }

        void join() {
            threads.forEach(DelayLink::join);
        }
    }
}
