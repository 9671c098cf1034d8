package io.fastleader.it.soak;

/**
 * When a workload last made progress (an acknowledgement, a record consumed, a transaction
 * committed), and the longest wait between two steps of progress since it began: the stall a user
 * of that workload would have seen.
 */
final class Progress {

    private long startedMs = -1;
    private long lastMs = -1;
    private long longestMs;
    private long longestEndedMs = -1;
    private long steps;

    /**
     * The workload begins. Its first step's wait (joining a group, finding a coordinator) is not a
     * stall: waits count from the first step on.
     */
    synchronized void begin(long nowMs) {
        startedMs = nowMs;
    }

    /** One step of progress at {@code nowMs}. */
    synchronized void step(long nowMs) {
        steps++;
        if (lastMs >= 0 && nowMs - lastMs > longestMs) {
            longestMs = nowMs - lastMs;
            longestEndedMs = nowMs;
        }
        lastMs = Math.max(lastMs, nowMs);
    }

    /** What was seen so far. */
    synchronized Stall longest() {
        return new Stall(longestMs, longestEndedMs - longestMs, steps, startedMs);
    }

    /**
     * The longest wait between two steps: {@code millis} long, from {@code fromMs} (epoch
     * milliseconds; -1 if there was no step yet), out of {@code steps} steps.
     */
    record Stall(long millis, long fromMs, long steps, long startedMs) {
    }
}
