package io.fastleader.clients.network;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

/**
 * The one thread that does the I/O of every connection of a client: Netty's NIO event loop. A
 * connection's reads, writes, timeouts and failures all happen here, so a connection's state has one
 * owner and no lock; a slow broker holds up only its own connection, since nothing on the loop
 * waits for a socket.
 */
public final class IoLoop implements AutoCloseable {

    /** Bound on waiting for the loop's thread to end at close: a callback it runs could otherwise hold close up for good. */
    private static final long THREAD_END_MILLIS = 10_000;

    private final ClientThreads threads = new ClientThreads();
    private final EventLoopGroup group;
    private final EventLoop loop;

    private IoLoop(String threadName, TimedIoHandler.SelectTimes selects) {
        this.group = new MultiThreadIoEventLoopGroup(1, threads.named(threadName), TimedIoHandler.factory(selects));
        this.loop = group.next();
    }

    /** Starts a loop whose thread is named {@code threadName} followed by a counter. */
    public static IoLoop start(String threadName) {
        return start(threadName, TimedIoHandler.SelectTimes.NONE);
    }

    /** Starts a loop as {@link #start(String)} does, telling {@code selects} the times of each select. */
    static IoLoop start(String threadName, TimedIoHandler.SelectTimes selects) {
        return new IoLoop(threadName, selects);
    }

    EventLoop eventLoop() {
        return loop;
    }

    /**
     * Runs {@code task} on the loop {@code delayNanos} from now, never on the calling thread.
     *
     * @return cancels the task if it has not run yet
     * @throws java.util.concurrent.RejectedExecutionException once the loop has stopped
     */
    public Future<?> schedule(Runnable task, long delayNanos) {
        return loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code task} on the loop, after what it is doing now, never on the calling thread.
     *
     * @return false if the loop has stopped and will run nothing more
     */
    public boolean execute(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Whether the calling thread is the loop's: it must never wait for I/O, which only it can do. */
    public boolean inLoop() {
        return loop.inEventLoop();
    }

    /**
     * Stops the loop and waits for its thread to end. Connections still open on it are closed by
     * Netty without their requests being failed: close them first.
     */
    @Override
    public void close() {
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        if (!inLoop()) {
            threads.awaitEnd(timeout -> group.terminationFuture().await(timeout), THREAD_END_MILLIS);
        }
    }
}
