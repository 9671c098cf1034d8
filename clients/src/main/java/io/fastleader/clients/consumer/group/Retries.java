package io.fastleader.clients.consumer.group;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The timing of the consumer's request loops ({@code OffsetLookup}, {@link GroupOffsets}): a
 * deadline that fails a pending result, and a retry that runs after its backoff, both on the
 * consumer's state owner.
 */
public final class Retries {

    private Retries() {
    }

    /**
     * Fails {@code result} with {@code timeout}'s exception once {@code deadlineMs} has passed on
     * {@code clockMs}, on {@code owner}, unless it completes first; the timer is cancelled when it
     * does, so a far deadline holds nothing once the result is in.
     */
    public static void failAtDeadline(CompletableFuture<?> result, long deadlineMs, LongSupplier clockMs, StateOwner owner,
                                      Supplier<? extends Throwable> timeout) {
        Runnable cancel = owner.after(untilMs(deadlineMs, clockMs.getAsLong()), () -> {
            if (!result.isDone()) {
                result.completeExceptionally(timeout.get());
            }
        });
        result.whenComplete((ignored, error) -> cancel.run());
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
