package io.fastleader.clients.consumer;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.Retries;
import io.fastleader.clients.consumer.group.StateOwner;

/**
 * The consumer's state owner: a role, held by one thread at a time, under which every change to
 * the consumer's state (assignment, positions, buffered records, group membership, heartbeats,
 * commits, offset lookups) runs as a task, one at a time. Network threads only hand it answers
 * ({@link #execute}); timers ({@link #after}) fire under it.
 *
 * <p>The application's thread takes the role for the length of a call ({@link #call}): the call
 * and the answers and timers that come meanwhile run on it, so a {@code poll} that finds records
 * buffered crosses no thread. Between calls the owner's own thread,
 * {@code fastleader-consumer-<client.id>}, holds it whenever there is work (answers, heartbeats,
 * auto-commit timers). A callback the application's thread must run (a rebalance listener, an
 * assignor) runs there with the role let go, so heartbeats go on meanwhile. When a task on the
 * owner's thread waits for such a callback ({@link #onApplicationThread}), the application's next
 * call is handed to the owner's thread instead, which runs it while it waits, as a call within
 * the waiting one.
 *
 * <p>A call may wait for an answer (a commit, a lookup): it then runs the owner's other tasks
 * while it waits ({@link #runPending}), so a call never blocks the answers it waits for.
 */
final class ConsumerThread implements StateOwner, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerThread.class);
    private static final Runnable NOTHING = () -> { };
    private static final long CLOSE_WAIT_MS = 5_000;

    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    /** Callbacks the owner's thread awaits on the application's thread: run in its calls or once the call under way ends. */
    private final LinkedBlockingQueue<Runnable> application = new LinkedBlockingQueue<>();
    /** Callbacks for the application's next call (commit callbacks): run at its start or while it waits, never as one ends. */
    private final ConcurrentLinkedQueue<Runnable> applicationLater = new ConcurrentLinkedQueue<>();
    /** Touched by the role's holder only. */
    private final PriorityQueue<Timer> timers = new PriorityQueue<>(Comparator.comparingLong(Timer::atMs).thenComparingLong(Timer::order));
    private final AtomicLong timerOrder = new AtomicLong();
    private final LongSupplier clockMs;
    private final Thread thread;
    /** The thread that holds the role, or null. */
    private final AtomicReference<Thread> holder = new AtomicReference<>();
    /** The thread a new task wakes: the role's holder, or the owner's thread while nobody holds it. */
    private volatile Thread waker;
    /** The application's thread while it waits for the role. */
    private volatile Thread roleWaiter;
    /** The owner's thread, woken while the application's thread held the role, waits for it. */
    private volatile boolean ownerWaitsForRole;
    /** The owner's thread holds the role and waits for the application's thread to run a callback. */
    private volatile boolean awaitingApplication;
    /** When the idle owner's thread wakes by itself (its next timer): an earlier timer wakes it. */
    private volatile long ownerWakesAtMs = Long.MAX_VALUE;
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
        this.waker = thread;
        thread.setDaemon(true);
        thread.start();
    }

    // ---------------------------------------------------------------- any thread

    @Override
    public void execute(Runnable task) {
        inbox.add(task);
        LockSupport.unpark(waker);
    }

    @Override
    public Runnable after(long delayMs, Runnable task) {
        Timer timer = new Timer(saturatedAdd(clockMs.getAsLong(), delayMs), timerOrder.incrementAndGet(), task);
        if (isCurrent()) {
            timers.add(timer);
        } else {
            execute(() -> timers.add(timer));
        }
        return () -> timer.cancelled = true;
    }

    /** Makes the role's holder look at its state again: a task waiting in {@link #runPending} returns. */
    void wakeUp() {
        execute(NOTHING);
    }

    /** Whether the caller is the owner's own thread, {@code fastleader-consumer-<client.id>}. */
    boolean isOwnersThread() {
        return Thread.currentThread() == thread;
    }

    /** Whether the caller holds the role: it is inside a call or a task. */
    boolean isCurrent() {
        return holder.get() == Thread.currentThread();
    }

    // ---------------------------------------------------------------- the application's thread

    /**
     * Runs {@code call} under the role and returns its result: on the calling thread, or handed to
     * the owner's thread while that waits for a callback of the application's, running the
     * callbacks it awaits ({@link #onApplicationThread}) meanwhile. The tasks queued for this
     * thread's next call ({@link #onApplicationThreadLater}) run first.
     * Called by the role's holder (a call made by a task or by a call), it runs {@code call} in place.
     *
     * @throws RuntimeException what {@code call} threw
     * @throws InterruptException if the application's thread is interrupted: the call is stopped
     *         (where handed over, through {@code interrupted}, which the call's waits look at)
     */
    <T> T call(Supplier<T> call, Runnable interrupted) {
        if (isCurrent()) {
            return call.get();
        }
        runLaterTasks();
        Thread caller = Thread.currentThread();
        while (!holder.compareAndSet(null, caller)) {
            if (awaitingApplication) {
                return handOver(call, interrupted);
            }
            awaitRole(caller, () -> awaitingApplication);
        }
        waker = caller;
        try {
            return call.get();
        } finally {
            releaseRole();
            runApplicationTasks();
        }
    }

    /**
     * Queues {@code task} for the application's thread: it runs while a call waits, or at the start of
     * the next call, never as the call under way ends. So a callback queued by the call that asked for
     * it runs in a later call, as {@code KafkaConsumer} runs commit callbacks.
     */
    void onApplicationThreadLater(Runnable task) {
        applicationLater.add(task);
    }

    /** Runs the tasks queued for the application's thread's next call ({@link #onApplicationThreadLater}); on that thread only. */
    void runLaterTasks() {
        runAll(applicationLater);
    }

    /**
     * Waits until the role is free or {@code stopWaiting} holds; the caller then looks again. The
     * owner's thread unparks the waiter when it lets the role go and when it starts awaiting a callback.
     */
    private void awaitRole(Thread caller, BooleanSupplier stopWaiting) {
        roleWaiter = caller;
        if (holder.get() != null && !stopWaiting.getAsBoolean()) {
            LockSupport.park(this);
        }
        roleWaiter = null;
    }

    /** {@link #call} while the owner's thread holds the role: the call runs there, this thread runs callbacks meanwhile. */
    private <T> T handOver(Supplier<T> call, Runnable interrupted) {
        CompletableFuture<T> result = new CompletableFuture<>();
        execute(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            } finally {
                // Kafka's InterruptException interrupts the thread that builds it; a call stopped for the
                // application's interrupted thread builds it here. The owner must not stay interrupted:
                // its every wait would fail at once.
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

    private void runApplicationTasks() {
        runAll(application);
    }

    /** Runs the tasks of {@code queue} in order, those queued meanwhile included, until it is empty. */
    private static void runAll(Queue<Runnable> queue) {
        Runnable task = queue.poll();
        while (task != null) {
            task.run();
            task = queue.poll();
        }
    }

    // ---------------------------------------------------------------- the role's holder

    /**
     * Runs {@code callback} on the application's thread, the one whose call is under way, and
     * returns once it ran. On that thread it runs in place, the role let go meanwhile so the
     * owner's thread goes on with heartbeats and answers; on the owner's thread the callback is
     * queued for the application's thread, and the owner's tasks (the application's calls among
     * them) run until it has run.
     */
    @Override
    public void onApplicationThread(Runnable callback) {
        if (!isOwnersThread()) {
            runWithoutRole(callback);
            return;
        }
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
        boolean awaitedBefore = awaitingApplication;
        awaitingApplication = true;
        LockSupport.unpark(roleWaiter);
        try {
            while (!done.isDone()) {
                runPending(Long.MAX_VALUE);
            }
        } finally {
            awaitingApplication = awaitedBefore;
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
     * Runs every queued task, then the timers that are due; when no task is queued, waits up to
     * {@code maxWaitMs} (or until the next timer) for one first. The tasks run first because one may
     * add a timer ({@link #after} from another thread), which must take its turn among the due ones.
     * By the role's holder only; on the application's thread, its queued callbacks run too.
     *
     * @throws InterruptException if the waiting thread is interrupted
     */
    void runPending(long maxWaitMs) {
        long waitMs = Math.min(maxWaitMs, untilNextTimerMs());
        Runnable task = inbox.poll();
        if (task == null && waitMs > 0) {
            task = awaitTask(waitMs);
        }
        while (task != null) {
            task.run();
            task = inbox.poll();
        }
        if (!isOwnersThread()) {
            runApplicationTasks();
            runLaterTasks();
        }
        runDueTimers();
    }

    private Runnable awaitTask(long waitMs) {
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(waitMs, TimeUnit.DAYS.toMillis(1)));
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptException(new InterruptedException());
            }
            long remainingNanos = deadlineNanos - System.nanoTime();
            if (remainingNanos <= 0) {
                return null;
            }
            LockSupport.parkNanos(this, remainingNanos);
            Runnable task = inbox.poll();
            if (task != null) {
                return task;
            }
        }
    }

    /** Lets the role go for the length of {@code callback}, on the application's thread, then takes it back. */
    private void runWithoutRole(Runnable callback) {
        Thread caller = Thread.currentThread();
        releaseRole();
        try {
            callback.run();
        } finally {
            // The owner's thread may have started awaiting another callback meanwhile: it is run here.
            while (!holder.compareAndSet(null, caller)) {
                Runnable task = awaitingApplication ? application.poll() : null;
                if (task != null) {
                    task.run();
                } else {
                    awaitRole(caller, () -> awaitingApplication && !application.isEmpty());
                }
            }
            waker = caller;
        }
    }

    /**
     * Gives the role up; the owner's thread takes it when there is work: a task queued, a timer
     * earlier than it would wake for, or it woke meanwhile.
     */
    private void releaseRole() {
        boolean ownerHasWork = nextTimerAtMs() < ownerWakesAtMs;
        waker = thread;
        holder.set(null);
        if (ownerHasWork || ownerWaitsForRole || !inbox.isEmpty()) {
            LockSupport.unpark(thread);
        }
        LockSupport.unpark(roleWaiter);
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

    private long nextTimerAtMs() {
        timers.removeIf(timer -> timer.cancelled);
        return timers.isEmpty() ? Long.MAX_VALUE : timers.peek().atMs;
    }

    private long untilNextTimerMs() {
        long nextMs = nextTimerAtMs();
        return nextMs == Long.MAX_VALUE ? Long.MAX_VALUE : Retries.untilMs(nextMs, clockMs.getAsLong());
    }

    // ---------------------------------------------------------------- the owner's thread

    private void runUntilClosed() {
        while (!closed) {
            if (!holder.compareAndSet(null, thread)) {
                awaitRelease();
                continue;
            }
            long wakeAtMs;
            try {
                runPending(0);
            } catch (RuntimeException e) {
                LOG.error("A task of the consumer's state owner failed", e);
            } finally {
                wakeAtMs = nextTimerAtMs();
                ownerWakesAtMs = wakeAtMs;
                holder.set(null);
                LockSupport.unpark(roleWaiter);
            }
            // An interrupt of this thread means nothing to it (a task built an InterruptException here): it must not end the sleep.
            Thread.interrupted();
            if (inbox.isEmpty() && !closed) {
                sleepUntil(wakeAtMs);
            }
        }
    }

    /**
     * Woken while the application's thread holds the role. For a task, sleeps on: the holder runs
     * it, or wakes this thread as it lets the role go with the task still queued. For a timer that
     * is due, waits until the role is let go.
     */
    private void awaitRelease() {
        long wakeAtMs = ownerWakesAtMs;
        if (wakeAtMs > clockMs.getAsLong()) {
            sleepUntil(wakeAtMs);
            return;
        }
        ownerWaitsForRole = true;
        if (holder.get() != null) {
            LockSupport.park(this);
        }
        ownerWaitsForRole = false;
    }

    private void sleepUntil(long wakeAtMs) {
        if (wakeAtMs == Long.MAX_VALUE) {
            LockSupport.park(this);
        } else {
            long untilMs = Retries.untilMs(wakeAtMs, clockMs.getAsLong());
            if (untilMs > 0) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(untilMs));
            }
        }
    }

    /** Stops the owner's thread once the tasks queued now have run, and waits for it to end. */
    @Override
    public void close() {
        execute(() -> closed = true);
        if (!isOwnersThread()) {
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
