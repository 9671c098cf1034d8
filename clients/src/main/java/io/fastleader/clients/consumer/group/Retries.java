package io.fastleader.clients.consumer.group;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The timing of the consumer's request loops ({@code OffsetLookup}, {@link GroupOffsets}): a
 * deadline that fails a pending result, and a retry that runs after its backoff. Both run on the
 * JDK's shared delay thread, which only hands the work on: the tasks given here must not block.
 */
public final class Retries {

    private Retries() {
    }

    /**
     * Fails {@code result} with {@code timeout}'s exception once {@code deadlineMs} has passed on
     * {@code clockMs}, unless it completes first; the timer is cancelled when it does, so a far
     * deadline holds nothing once the result is in.
     */
    public static void failAtDeadline(CompletableFuture<?> result, long deadlineMs, LongSupplier clockMs,
                               Supplier<? extends Throwable> timeout) {
        CompletableFuture<Void> timer = new CompletableFuture<>();
        timer.orTimeout(untilMs(deadlineMs, clockMs.getAsLong()), TimeUnit.MILLISECONDS)
                .whenComplete((ignored, expired) -> {
                    if (expired != null && !result.isDone()) {
                        result.completeExceptionally(timeout.get());
                    }
                });
        result.whenComplete((ignored, error) -> timer.complete(null));
    }

    /**
     * Runs {@code task} on the delay thread after {@code delayMs}, never on the caller's thread: a
     * retry that fails at once (say to a broker backing off) cannot recurse into the next one.
     */
    public static void after(long delayMs, Runnable task) {
        CompletableFuture.delayedExecutor(Math.max(0, delayMs), TimeUnit.MILLISECONDS, Runnable::run).execute(task);
    }

    /** Milliseconds from {@code nowMs} to {@code atMs}, 0 if it has passed; saturates instead of overflowing. */
    public static long untilMs(long atMs, long nowMs) {
        long left = atMs - nowMs;
        // Overflows only for the far ends (Long.MAX_VALUE for never, Long.MIN_VALUE for at once).
        boolean overflowed = ((atMs ^ nowMs) & (atMs ^ left)) < 0;
        if (overflowed) {
            return atMs > nowMs ? Long.MAX_VALUE : 0;
        }
        return Math.max(0, left);
    }
}
