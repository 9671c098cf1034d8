package io.fastleader.it.sim;

import java.util.function.BooleanSupplier;

/** Waits for what another thread does: a condition polled until it holds, bounded so a failure cannot hang a test. */
final class Conditions {

    private static final long TIMEOUT_MS = 20_000;

    private Conditions() {
    }

    /** Returns once {@code condition} holds; fails after 20 s. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + TIMEOUT_MS + " ms: " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what, e);
            }
        }
    }
}
