package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Waits for a cluster to report a state, by asking it again every {@link #POLL_INTERVAL} until a
 * deadline. Used instead of sleeping for a guessed time.
 */
public final class Await {

    /** How often the condition is checked. */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(100);

    private Await() {
    }

    /**
     * Returns once {@code condition} holds; exceptions it throws count as "not yet".
     *
     * @throws ClusterStateTimeoutException naming {@code what}, with the last exception as cause
     */
    public static void until(String what, Duration timeout, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for " + what, e);
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new ClusterStateTimeoutException("timed out after " + timeout + " waiting for " + what, last);
            }
            try {
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for " + what, e);
            }
        }
    }

    /** The cluster did not reach a state in time. */
    public static final class ClusterStateTimeoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClusterStateTimeoutException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
