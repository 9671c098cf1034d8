package io.fastleader.it.sim;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simulated broker's network side: a loopback listener, and a thread per client connection
 * (named {@code <cluster name>-broker-<id>-conn-<n>}) that reads one request frame at a time, has the
 * {@link RequestDispatcher} serve it and writes the answer before reading the next. Requests on
 * a connection are therefore served in the order sent, one after another, as a broker does; the
 * connections of all brokers meet only in {@link ClusterState}'s lock. A request the simulation
 * cannot serve closes its connection. {@link #close()} closes the listener and every connection
 * and waits for every thread to end.
 */
final class BrokerServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerServer.class);

    /** Larger than any request the clients send (their default max.request.size is 1 MiB). */
    private static final int MAX_REQUEST_BYTES = 100 * 1024 * 1024;

    private final int brokerId;
    private final String threadPrefix;
    private final RequestDispatcher dispatcher;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final List<Thread> connectionThreads = new ArrayList<>();
    private volatile boolean closed;
    private int connectionCount;

    BrokerServer(String clusterName, int brokerId, RequestDispatcher dispatcher) throws IOException {
        this.brokerId = brokerId;
        this.threadPrefix = clusterName + "-broker-" + brokerId;
        this.dispatcher = dispatcher;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = new Thread(this::accept, threadPrefix + "-accept");
        acceptor.setDaemon(true);
    }

    void start() {
        acceptor.start();
    }

    String host() {
        return listener.getInetAddress().getHostAddress();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("simulated broker {} stopped accepting", brokerId, e);
                }
                return;
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(socket);
                    return;
                }
                connections.add(socket);
                connectionThreads.removeIf(t -> !t.isAlive());
                Thread thread = new Thread(() -> serve(socket), threadPrefix + "-conn-" + connectionCount++);
                thread.setDaemon(true);
                connectionThreads.add(thread);
                thread.start();
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            while (!closed) {
                int size = in.readInt();
                if (size < 0 || size > MAX_REQUEST_BYTES) {
                    LOG.warn("simulated broker {}: request size {} refused; closing the connection", brokerId, size);
                    return;
                }
                byte[] frame = new byte[size];
                in.readFully(frame);
                ByteBuffer response = answer(dispatcher.dispatch(brokerId, ByteBuffer.wrap(frame)));
                if (response != null) {
                    out.write(response.array(), response.arrayOffset() + response.position(), response.remaining());
                    out.flush();
                }
            }
        } catch (EOFException | SocketException e) {
            // the client or close() closed the connection
        } catch (RequestDispatcher.ProtocolViolation e) {
            LOG.warn("simulated broker {}: {}; closing the connection", brokerId, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.warn("simulated broker {}: connection failed", brokerId, e);
            }
        } finally {
            connections.remove(socket);
        }
    }

    /** Waits for a request's answer: the connection serves nothing else meanwhile. */
    private static ByteBuffer answer(CompletionStage<ByteBuffer> pending) throws InterruptedException {
        try {
            return pending.toCompletableFuture().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        List<Thread> threads;
        synchronized (this) {
            closed = true;
            threads = List.copyOf(connectionThreads);
        }
        closeQuietly(listener);
        connections.forEach(BrokerServer::closeQuietly);
        threads.forEach(Thread::interrupt); // a connection waiting for an answer that will never come
        join(acceptor);
        threads.forEach(BrokerServer::join);
    }

    private static void join(Thread thread) {
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
}
