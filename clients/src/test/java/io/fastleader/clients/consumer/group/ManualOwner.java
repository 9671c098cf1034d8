package io.fastleader.clients.consumer.group;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;

/**
 * A {@link StateOwner} for unit tests, driven by the test's thread: tasks and timers run only
 * when the test says ({@link #runUntil}), on its own clock; application callbacks run in place.
 */
final class ManualOwner implements StateOwner {

    private record Timer(long atMs, long order, Runnable task, boolean[] cancelled) {
    }

    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final List<Timer> timers = new ArrayList<>();
    private long nowMs;
    private long order;

    ManualOwner(long startMs) {
        this.nowMs = startMs;
    }

    long nowMs() {
        return nowMs;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
    }

    @Override
    public Runnable after(long delayMs, Runnable task) {
        boolean[] cancelled = {false};
        timers.add(new Timer(nowMs + delayMs, order++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    @Override
    public void onApplicationThread(Runnable callback) {
        callback.run();
    }

    /** Moves the clock to {@code atMs}, running the queued tasks and every timer due by then, in time order. */
    void runUntil(long atMs) {
        runTasks();
        while (true) {
            Timer next = timers.stream().filter(timer -> timer.atMs() <= atMs)
                    .min(Comparator.comparingLong(Timer::atMs).thenComparingLong(Timer::order)).orElse(null);
            if (next == null) {
                break;
            }
            timers.remove(next);
            nowMs = Math.max(nowMs, next.atMs());
            if (!next.cancelled()[0]) {
                next.task().run();
            }
            runTasks();
        }
        nowMs = atMs;
    }

    private void runTasks() {
        Runnable task = tasks.poll();
        while (task != null) {
            task.run();
            task = tasks.poll();
        }
    }
}
