package io.fastleader.clients.metadata;

import java.net.UnknownHostException;
import java.time.Duration;

import org.apache.kafka.common.KafkaException;

/**
 * {@code bootstrap.resolve.timeout.ms} (kafka-clients 4.4): how long a client built while its
 * bootstrap servers' names do not resolve goes on trying them. With the default, 0, the names are
 * resolved as the client is built and one that does not resolve fails the build; a positive value
 * builds the client regardless, and if no bootstrap server's name has resolved once that time has
 * passed, the client fails for good with kafka-clients' {@code BootstrapResolutionException}.
 * Decisions only, on the caller's clock: {@link ClusterMetadata} reports each bootstrap request's
 * outcome.
 */
final class BootstrapResolution {

    /** kafka-clients 4.4's key; earlier releases do not define it. */
    static final String TIMEOUT_CONFIG = "bootstrap.resolve.timeout.ms";
    /** The exception kafka-clients 4.4 fails with: named, since earlier releases have no such class. */
    private static final String EXCEPTION_CLASS = "org.apache.kafka.common.errors.BootstrapResolutionException";

    private final long timeoutMs;
    private final long startMs;
    private boolean resolved;

    /** Resolution that started at {@code nowMs}; with a zero timeout it was done as the client was built. */
    BootstrapResolution(Duration timeout, long nowMs) {
        this.timeoutMs = timeout.toMillis();
        this.startMs = nowMs;
        this.resolved = timeout.isZero();
    }

    /** Whether a bootstrap server's name has resolved, so that this timeout no longer applies. */
    boolean resolved() {
        return resolved;
    }

    /**
     * A request to a bootstrap server ended with {@code failure} (null: answered) at {@code nowMs}.
     *
     * @return the exception the client now fails with for good, or null: none while a name may still
     *         resolve in time, nor once one has
     */
    KafkaException requestEnded(Throwable failure, long nowMs) {
        if (resolved) {
            return null;
        }
        if (!unresolvedName(failure)) {
            resolved = true;
            return null;
        }
        return nowMs - startMs >= timeoutMs ? timedOut() : null;
    }

    /** How long the names may still take to resolve, at {@code nowMs}. */
    long remainingMs(long nowMs) {
        return Math.max(0, timeoutMs - (nowMs - startMs));
    }

    private static boolean unresolvedName(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    private KafkaException timedOut() {
        String message = "Failed to resolve bootstrap servers after " + timeoutMs
                + "ms. Please check your bootstrap.servers configuration and DNS settings.";
        try {
            return (KafkaException) Class.forName(EXCEPTION_CLASS).getConstructor(String.class).newInstance(message);
        } catch (ReflectiveOperationException | LinkageError notInThisRelease) {
            // Only kafka-clients 4.4 defines the key that sets a timeout, and its exception with it.
            return new KafkaException(message);
        }
    }
}
