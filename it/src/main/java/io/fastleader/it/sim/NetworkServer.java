package io.fastleader.it.sim;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network side of every broker of a simulated cluster: one thread ({@code <cluster name>-network})
 * and one {@link Selector} serve every broker's loopback listener and every client connection,
 * whatever their number. Request frames are read incrementally into a per-connection buffer and
 * handed to {@link Dispatch} on that thread; a connection then reads nothing more until its answer
 * is written whole (a broker mutes a channel while a request is in progress), so a connection's
 * requests are served one after another in the order sent, while other connections go on. An
 * answer's stage may complete on any thread: its completion is queued and the selector woken, and
 * the network thread writes it (partial writes resume when the socket is writable) and then serves
 * the next request already buffered. A negative or oversize frame, or a request that cannot be
 * served, closes its connection with a WARN. Listeners open and close on command
 * ({@link #listen}, {@link #closeBroker}), which is how brokers stop, die and restart.
 */
final class NetworkServer implements Closeable {

    /** Serves one request frame (after its size prefix) that reached a broker; see {@link RequestDispatcher#dispatch}. */
    @FunctionalInterface
    interface Dispatch {
        CompletionStage<ByteBuffer> dispatch(int brokerId, ByteBuffer frame);
    }

    private static final Logger LOG = LoggerFactory.getLogger(NetworkServer.class);

    /** Larger than any request the clients send (their default max.request.size is 1 MiB). */
    static final int MAX_REQUEST_BYTES = 100 * 1024 * 1024;

    /** Read buffer of a connection; a larger frame gets a buffer its size. */
    private static final int READ_BUFFER_BYTES = 16 * 1024;

    private final Dispatch dispatch;
    private final Selector selector;
    private final Thread thread;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Map<Integer, ServerSocketChannel> listeners = new HashMap<>();
    private final Map<Integer, Set<Connection>> connections = new HashMap<>();
    private volatile boolean closed;

    NetworkServer(String clusterName, Dispatch dispatch) {
        this.dispatch = dispatch;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a selector", e);
        }
        this.thread = new Thread(this::run, clusterName + "-network");
        thread.setDaemon(true);
        thread.start();
    }

    /** The host every listener binds: loopback. */
    String host() {
        return InetAddress.getLoopbackAddress().getHostAddress();
    }

    /**
     * Opens broker {@code brokerId}'s listener on {@code port} (0 for any free port; a given port is
     * bound with SO_REUSEADDR, so a restarted broker gets its port back while old connections linger).
     *
     * @return the port bound
     */
    int listen(int brokerId, int port) throws IOException {
        try {
            return call(() -> {
                if (listeners.containsKey(brokerId)) {
                    throw new IllegalStateException("broker " + brokerId + " is listening already");
                }
                ServerSocketChannel listener = ServerSocketChannel.open();
                try {
                    listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                    listener.configureBlocking(false);
                    listener.register(selector, SelectionKey.OP_ACCEPT, brokerId);
                } catch (IOException | RuntimeException e) {
                    listener.close();
                    throw e;
                }
                listeners.put(brokerId, listener);
                return ((InetSocketAddress) listener.getLocalAddress()).getPort();
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Closes broker {@code brokerId}'s listener and every connection to it, answers pending or
     * not. {@code abrupt} resets the connections (SO_LINGER 0), as a process that died.
     */
    void closeBroker(int brokerId, boolean abrupt) {
        call(() -> {
            ServerSocketChannel listener = listeners.remove(brokerId);
            if (listener != null) {
                closeQuietly(listener);
            }
            for (Connection connection : List.copyOf(connections.getOrDefault(brokerId, Set.of()))) {
                if (abrupt) {
                    try {
                        connection.channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                    } catch (IOException e) {
                        // closing anyway
                    }
                }
                close(connection);
            }
            // a channel registered with a selector is really closed only when its key is
            // deregistered, at the next selection: do it now, so the port refuses before this returns
            selector.selectNow();
            return null;
        });
    }

    /** Number of connections open to broker {@code brokerId}. */
    int connectionCount(int brokerId) {
        return call(() -> connections.getOrDefault(brokerId, Set.of()).size());
    }

    /** Runs {@code task} on the network thread and returns its result. */
    private <T> T call(Callable<T> task) {
        if (Thread.currentThread() == thread) {
            return callHere(task);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                result.complete(task.call());
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
            }
        });
        if (closed) {
            throw new IllegalStateException("the simulated cluster is closed");
        }
        selector.wakeup();
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the network thread", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof IOException failure) {
                throw new UncheckedIOException(failure);
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static <T> T callHere(Callable<T> task) {
        try {
            return task.call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void run() {
        try {
            while (!closed) {
                runTasks();
                if (!tasks.isEmpty()) {
                    continue; // a task queued another (an answer completed at once): no waiting in select
                }
                selector.select();
                Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
                while (ready.hasNext()) {
                    SelectionKey key = ready.next();
                    ready.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.attachment() instanceof Connection connection) {
                        try {
                            if (key.isWritable()) {
                                write(connection);
                            } else if (key.isReadable()) {
                                read(connection);
                            }
                        } catch (RuntimeException e) {
                            refused(connection, e); // one connection's failure must not stop the others
                        }
                    } else if (key.isAcceptable()) {
                        accept((ServerSocketChannel) key.channel(), (Integer) key.attachment());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.error("simulated cluster's network thread failed; every broker stops answering", e);
            }
        } finally {
            closed = true;
            listeners.values().forEach(NetworkServer::closeQuietly);
            connections.values().forEach(set -> set.forEach(c -> {
                c.open = false;
                closeQuietly(c.channel);
            }));
            closeQuietly(selector);
            runTasks(); // commands queued too late for the loop fail; late answers go nowhere
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("simulated cluster's network thread: a task failed", e);
            }
        }
    }

    private void accept(ServerSocketChannel listener, int brokerId) {
        SocketChannel channel;
        try {
            while ((channel = listener.accept()) != null) {
                Connection connection = new Connection(brokerId, channel);
                try {
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
                } catch (IOException e) {
                    closeQuietly(channel); // the client left before it was set up
                    continue;
                }
                connections.computeIfAbsent(brokerId, id -> new HashSet<>()).add(connection);
            }
        } catch (IOException e) {
            LOG.warn("simulated broker {} failed to accept a connection", brokerId, e);
        }
    }

    private void read(Connection connection) {
        int read;
        try {
            read = connection.channel.read(connection.in);
        } catch (IOException e) {
            close(connection); // reset by the client
            return;
        }
        if (read < 0) {
            close(connection);
            return;
        }
        serveBuffered(connection);
    }

    /** Serves the next whole request frame in the connection's buffer, if it has one and none is in progress. */
    private void serveBuffered(Connection connection) {
        if (connection.busy || !connection.open) {
            return;
        }
        ByteBuffer frame;
        try {
            frame = connection.nextFrame();
        } catch (FrameSizeException e) {
            LOG.warn("simulated broker {}: {}; closing the connection", connection.brokerId, e.getMessage());
            close(connection);
            return;
        }
        if (frame == null) {
            connection.key.interestOps(SelectionKey.OP_READ);
            return;
        }
        connection.busy = true;
        connection.key.interestOps(0);
        CompletionStage<ByteBuffer> answer;
        try {
            answer = dispatch.dispatch(connection.brokerId, frame);
        } catch (RuntimeException e) {
            refused(connection, e);
            return;
        }
        // completion may come from any thread: the network thread writes it
        answer.whenComplete((response, failure) -> {
            tasks.add(() -> answered(connection, response, failure));
            if (Thread.currentThread() != thread) {
                selector.wakeup();
            }
        });
    }

    private void answered(Connection connection, ByteBuffer response, Throwable failure) {
        if (!connection.open) {
            return; // closed while the request waited: the answer goes nowhere
        }
        if (failure != null) {
            refused(connection, failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
            return;
        }
        if (response == null) {
            idle(connection);
            return;
        }
        connection.out = response;
        write(connection);
    }

    private void write(Connection connection) {
        try {
            connection.channel.write(connection.out);
        } catch (IOException e) {
            close(connection);
            return;
        }
        if (connection.out.hasRemaining()) {
            connection.key.interestOps(SelectionKey.OP_WRITE);
            return;
        }
        connection.out = null;
        idle(connection);
    }

    /** The request in progress is done: serve the next one. */
    private void idle(Connection connection) {
        connection.busy = false;
        serveBuffered(connection);
    }

    private void refused(Connection connection, Throwable failure) {
        if (failure instanceof RequestDispatcher.ConnectionClosedByBroker) {
            LOG.info("simulated broker {}: {}; closing the connection", connection.brokerId, failure.getMessage());
        } else if (failure instanceof RequestDispatcher.ProtocolViolation) {
            LOG.warn("simulated broker {}: {}; closing the connection", connection.brokerId, failure.getMessage());
        } else {
            LOG.warn("simulated broker {}: a request failed; closing the connection", connection.brokerId, failure);
        }
        close(connection);
    }

    private void close(Connection connection) {
        connection.open = false;
        Set<Connection> open = connections.get(connection.brokerId);
        if (open != null) {
            open.remove(connection);
        }
        closeQuietly(connection.channel); // also cancels its key
    }

    /** Closes every listener and connection, and waits for the network thread to end. */
    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** A frame whose size prefix is negative or above {@link #MAX_REQUEST_BYTES}. */
    private static final class FrameSizeException extends Exception {
        FrameSizeException(String message) {
            super(message);
        }
    }

    /** One client connection: bytes read and not yet served, the answer being written, whether a request is in progress. */
    private static final class Connection {
        final int brokerId;
        final SocketChannel channel;
        SelectionKey key;
        /** In write mode: bytes read from the socket, holding the frames not yet served. */
        ByteBuffer in = ByteBuffer.allocate(READ_BUFFER_BYTES);
        ByteBuffer out;
        boolean busy;
        boolean open = true;

        Connection(int brokerId, SocketChannel channel) {
            this.brokerId = brokerId;
            this.channel = channel;
        }

        /** The next whole frame buffered (its bytes after the size prefix, copied), or null. */
        ByteBuffer nextFrame() throws FrameSizeException {
            if (in.position() < 4) {
                return null;
            }
            int size = in.getInt(0);
            if (size < 0 || size > MAX_REQUEST_BYTES) {
                throw new FrameSizeException("request size " + size + " refused");
            }
            if (in.position() < 4 + size) {
                if (in.capacity() < 4 + size) {
                    ByteBuffer larger = ByteBuffer.allocate(4 + size);
                    larger.put(in.flip());
                    in = larger;
                }
                return null;
            }
            byte[] frame = new byte[size];
            in.flip();
            in.position(4);
            in.get(frame);
            in.compact();
            if (in.capacity() > READ_BUFFER_BYTES && in.position() <= READ_BUFFER_BYTES) {
                // the large frame is served: give its buffer back
                ByteBuffer smaller = ByteBuffer.allocate(READ_BUFFER_BYTES);
                smaller.put(in.flip());
                in = smaller;
            }
            return ByteBuffer.wrap(frame);
        }
    }
}
