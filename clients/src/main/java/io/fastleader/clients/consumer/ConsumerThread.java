package io.fastleader.clients.consumer;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.Retries;
import io.fastleader.clients.consumer.group.StateOwner;

/**
 * The consumer's state owner: one thread, {@code fastleader-consumer-<client.id>}, that runs every
 * change to the consumer's state (assignment, positions, buffered records, group membership,
 * heartbeats, commits, offset lookups) as a task, one at a time. Network threads only hand it
 * answers ({@link #execute}); timers ({@link #after}) fire on it; the application's thread only
 * hands it calls ({@link #call}) and waits for their results, running meanwhile what must run on the
 * application's thread (listener callbacks, commit callbacks).
 *
 * <p>A call may wait for an answer (a commit, a lookup): it then runs the owner's other tasks
 * while it waits ({@link #runPending}), so a call never blocks the answers it waits for, and
 * heartbeats go on during a long {@code poll}.
 */
final class ConsumerThread implements StateOwner, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerThread.class);
    private static final Runnable NOTHING = () -> { };
    private static final long CLOSE_WAIT_MS = 5_000;

    private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
    /** Tasks for the application's thread, run while it waits for a call. */
    private final LinkedBlockingQueue<Runnable> application = new LinkedBlockingQueue<>();
    /** Touched on the owner's thread only. */
    private final PriorityQueue<Timer> timers = new PriorityQueue<>(Comparator.comparingLong(Timer::atMs).thenComparingLong(Timer::order));
    private final AtomicLong timerOrder = new AtomicLong();
    private final LongSupplier clockMs;
    private final Thread thread;
    private volatile boolean closed;

    private static final class Timer {
        private final long atMs;
        private final long order;
        private final Runnable task;
        private volatile boolean cancelled;

        Timer(long atMs, long order, Runnable task) {
            this.atMs = atMs;
            this.order = order;
            this.task = task;
        }

        long atMs() {
            return atMs;
        }

        long order() {
            return order;
        }
    }

    ConsumerThread(String clientId, LongSupplier clockMs) {
        this.clockMs = clockMs;
        this.thread = new Thread(this::runUntilClosed, "fastleader-consumer-" + clientId);
        thread.setDaemon(true);
        thread.start();
    }

    // ---------------------------------------------------------------- any thread

    @Override
    public void execute(Runnable task) {
        inbox.add(task);
    }

    @Override
    public Runnable after(long delayMs, Runnable task) {
        Timer timer = new Timer(saturatedAdd(clockMs.getAsLong(), delayMs), timerOrder.incrementAndGet(), task);
        execute(() -> timers.add(timer));
        return () -> timer.cancelled = true;
    }

    /** Makes the owner look at its state again: a task waiting in {@link #runPending} returns. */
    void wakeUp() {
        inbox.add(NOTHING);
    }

    /** Whether the caller is the owner's thread, already inside a task. */
    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    // ---------------------------------------------------------------- the application's thread

    /**
     * Runs {@code call} on the owner's thread and returns its result, running the application's
     * tasks ({@link #onApplicationThread}, {@link #onApplicationThreadLater}) meanwhile. Called on
     * the owner's thread (a call made by a task), it runs {@code call} in place.
     *
     * @throws RuntimeException what {@code call} threw
     * @throws InterruptException if the application's thread is interrupted: the call is stopped
     *         through {@code interrupted}, which the call's waits look at, and waited for
     */
    <T> T call(Supplier<T> call, Runnable interrupted) {
        if (isCurrent()) {
            return call.get();
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        execute(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            } finally {
                // Kafka's InterruptException interrupts the thread that builds it; a call stopped for the
                // application's interrupted thread builds it here. The owner must not stay interrupted:
                // its every wait would fail at once, and it would spin instead of running tasks.
                Thread.interrupted();
            }
        });
        result.whenComplete((ignored, failure) -> application.add(NOTHING));
        boolean wasInterrupted = false;
        while (!result.isDone()) {
            try {
                application.take().run();
            } catch (InterruptedException e) {
                if (!wasInterrupted) {
                    wasInterrupted = true;
                    interrupted.run();
                    wakeUp();
                }
            }
        }
        if (wasInterrupted) {
            Thread.currentThread().interrupt();
        }
        runApplicationTasks();
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: the result is complete", e);
        }
    }

    /** Queues {@code task} for the application's thread: it runs while that thread next waits for a call. */
    void onApplicationThreadLater(Runnable task) {
        application.add(task);
    }

    private void runApplicationTasks() {
        Runnable task = application.poll();
        while (task != null) {
            task.run();
            task = application.poll();
        }
    }

    // ---------------------------------------------------------------- the owner's thread

    @Override
    public void onApplicationThread(Runnable callback) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        application.add(() -> {
            try {
                callback.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            } finally {
                wakeUp();
            }
        });
        while (!done.isDone()) {
            runPending(Long.MAX_VALUE);
        }
        try {
            done.get();
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: the callback has run", e);
        }
    }

    /**
     * Runs the timers that are due and every queued task; when none is queued, waits up to
     * {@code maxWaitMs} (or until the next timer) for one first. On the owner's thread only.
     */
    void runPending(long maxWaitMs) {
        runDueTimers();
        long waitMs = Math.min(maxWaitMs, untilNextTimerMs());
        Runnable task;
        try {
            task = waitMs > 0 ? inbox.poll(waitMs, TimeUnit.MILLISECONDS) : inbox.poll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
        while (task != null) {
            task.run();
            task = inbox.poll();
        }
        runDueTimers();
    }

    private void runDueTimers() {
        long nowMs = clockMs.getAsLong();
        while (!timers.isEmpty() && timers.peek().atMs <= nowMs) {
            Timer due = timers.poll();
            if (!due.cancelled) {
                due.task.run();
            }
        }
    }

    private long untilNextTimerMs() {
        timers.removeIf(timer -> timer.cancelled);
        return timers.isEmpty() ? Long.MAX_VALUE : Retries.untilMs(timers.peek().atMs, clockMs.getAsLong());
    }

    private void runUntilClosed() {
        while (!closed) {
            try {
                runPending(Long.MAX_VALUE);
            } catch (RuntimeException e) {
                LOG.error("A task of the consumer's state owner failed", e);
            }
        }
    }

    /** Stops the owner's thread once the tasks queued now have run, and waits for it to end. */
    @Override
    public void close() {
        execute(() -> closed = true);
        if (!isCurrent()) {
            try {
                thread.join(CLOSE_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static RuntimeException rethrown(Throwable failure) {
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new KafkaException(failure);
    }

    private static long saturatedAdd(long nowMs, long delayMs) {
        return delayMs > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + Math.max(0, delayMs);
    }
}
