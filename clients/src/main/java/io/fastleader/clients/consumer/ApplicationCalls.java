package io.fastleader.clients.consumer;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;

import io.fastleader.clients.network.Failures;

/**
 * How a call of the consumer's API runs: entered by the application's one thread (a second is
 * refused, as by {@code KafkaConsumer}) and run under the state owner's role
 * ({@link ConsumerThread}), on that thread or, while the owner's thread waits for a callback,
 * handed to it; its waits run the owner's other tasks and stop for {@code wakeup()} or an
 * interrupt of the application's thread. {@link #callOwned}, {@link #runOwned} and
 * {@link #close} are called on the application's thread (or, for a call within a call, under the
 * role, where they run in place), {@link #wakeup} on any thread, and the waits
 * ({@link #applyPending}, {@link #await}) under the role.
 */
final class ApplicationCalls {

    private static final long NO_OWNER = -1;

    private final ConsumerThread stateOwner;
    private final LongSupplier clockMs;
    private final AtomicLong owner = new AtomicLong(NO_OWNER);
    private final AtomicInteger ownerDepth = new AtomicInteger();
    private final AtomicBoolean wakeupRequested = new AtomicBoolean();
    /** Set when the application's thread is interrupted in a call handed to the owner's thread: the call stops. */
    private final AtomicBoolean interruptRequested = new AtomicBoolean();
    /** Set once {@code close} starts: from then on a {@link #wakeup()} is ignored, as {@code KafkaConsumer} ignores it. */
    private boolean closing;
    private boolean closed;

    ApplicationCalls(ConsumerThread stateOwner, LongSupplier clockMs) {
        this.stateOwner = stateOwner;
        this.clockMs = clockMs;
    }

    /**
     * Runs a call of the API on the state owner, as the consumer's one user ({@link #acquire}), and
     * returns its result; a call made by the owner itself (one call in another) runs in place.
     */
    <T> T callOwned(Supplier<T> call) {
        if (stateOwner.isCurrent()) {
            return call.get();
        }
        acquire();
        try {
            return stateOwner.call(call, () -> interruptRequested.set(true));
        } finally {
            release();
        }
    }

    /** Runs a call of the API that returns nothing as the consumer's one user ({@link #acquire}). */
    void runOwned(Runnable call) {
        callOwned(() -> {
            call.run();
            return null;
        });
    }

    /** Makes the call under way, or the next one, throw {@link WakeupException}. Safe to call from any thread. */
    void wakeup() {
        wakeupRequested.set(true);
        stateOwner.wakeUp();
    }

    /**
     * Closes the consumer once: runs {@code onOwner} on the state owner, with {@code wakeup()} ignored
     * from then on, then {@code releaseResources} on this thread. Later calls return at once.
     */
    void close(Runnable onOwner, Runnable releaseResources) {
        if (closed) {
            return;
        }
        acquire();
        try {
            stateOwner.call(() -> {
                closing = true;
                onOwner.run();
                return null;
            }, () -> interruptRequested.set(true));
            // Callbacks answered during the close run before it returns, also where it was handed to the owner's thread.
            stateOwner.runLaterTasks();
            closed = true;
            releaseResources.run();
        } finally {
            release();
        }
    }

    /** Runs the state owner's queued tasks (answers, timers) within a call, waiting up to {@code maxWaitMs} for the first one. */
    void applyPending(long maxWaitMs) {
        checkWakeupAndInterrupt();
        stateOwner.runPending(maxWaitMs);
        checkWakeupAndInterrupt();
    }

    /** Waits for {@code future} on the state owner, applying answers meanwhile; honours {@link #wakeup()}. */
    <T> T await(CompletableFuture<T> future, long deadlineMs, Supplier<String> timeoutMessage) {
        future.whenComplete((result, failure) -> stateOwner.wakeUp());
        while (!future.isDone()) {
            long remainingMs = deadlineMs - clockMs.getAsLong();
            if (remainingMs <= 0) {
                future.cancel(false);
                throw new TimeoutException(timeoutMessage.get());
            }
            applyPending(remainingMs);
        }
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    /** The failure as the application receives it: its Kafka exception, or one wrapping it. */
    static KafkaException unwrap(Throwable failure) {
        Throwable cause = Failures.cause(failure);
        if (cause instanceof KafkaException kafka) {
            return kafka;
        }
        return new KafkaException(cause);
    }

    /** When {@code timeout} from now ends, in the consumer's clock; {@code Long.MAX_VALUE} past its range. */
    long deadline(Duration timeout) {
        long nowMs = clockMs.getAsLong();
        long timeoutMs = timeout.toMillis();
        return timeoutMs > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + timeoutMs;
    }

    private void checkWakeupAndInterrupt() {
        if (!closing && wakeupRequested.compareAndSet(true, false)) {
            throw new WakeupException();
        }
        // The application's thread runs its calls itself unless one is handed to the owner's thread, which it then tells.
        boolean interrupted = stateOwner.isOwnersThread() ? interruptRequested.compareAndSet(true, false) : Thread.interrupted();
        if (interrupted) {
            throw new InterruptException(new InterruptedException());
        }
    }

    /** Enters a call; as in {@code KafkaConsumer}, a second thread is refused rather than served. */
    private void acquire() {
        long thread = Thread.currentThread().getId();
        if (thread != owner.get() && !owner.compareAndSet(NO_OWNER, thread)) {
            throw new ConcurrentModificationException("FastLeaderConsumer is not safe for multi-threaded access");
        }
        if (closed) {
            owner.set(NO_OWNER);
            throw new IllegalStateException("This consumer has already been closed.");
        }
        ownerDepth.incrementAndGet();
    }

    private void release() {
        if (ownerDepth.decrementAndGet() == 0) {
            owner.set(NO_OWNER);
        }
    }
}
