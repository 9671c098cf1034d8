package io.fastleader.clients.metadata;

import io.fastleader.clients.metadata.MetadataConfig.RecoveryStrategy;

/**
 * Which brokers a Metadata request may go to, the bootstrap servers or the brokers the last answer
 * named, and when the client gives the latter up for the former ({@code metadata.recovery.strategy},
 * KIP-899 and KIP-1102), as kafka-clients' {@code NetworkClient} decides it: a state machine driven
 * by the caller's clock, with no I/O (not thread-safe; {@link ClusterMetadata} serialises calls).
 *
 * <p>The client asks its bootstrap servers until an answer names the brokers, then only those. With
 * {@link RecoveryStrategy#REBOOTSTRAP} it goes back to the bootstrap servers when
 * <ul>
 *   <li>every known broker in turn could not be reached (no connection, or none answering), as
 *       kafka-clients does once no known broker is available;</li>
 *   <li>the client has wanted metadata for {@code metadata.recovery.rebootstrap.trigger.ms} without
 *       getting any;</li>
 *   <li>a broker answers a Metadata request {@code REBOOTSTRAP_REQUIRED}, or a connect to a known
 *       broker with it because the broker is not the node of the cluster the connect named
 *       (KIP-1242).</li>
 * </ul>
 * With {@link RecoveryStrategy#NONE} it never goes back: a client whose brokers are all replaced
 * is left without metadata, as kafka-clients' is.
 */
final class MetadataRecovery {

    /** How a Metadata request failed, as far as recovery cares. */
    enum Failure {
        /** The broker could not be reached, or did not answer in time. */
        UNREACHABLE,
        /** The broker answered {@code REBOOTSTRAP_REQUIRED}. */
        REBOOTSTRAP_REQUIRED,
        /** The broker answered, with another error. */
        ANSWERED_WITH_ERROR
    }

    private static final long NOT_WANTING = Long.MIN_VALUE;

    private final RecoveryStrategy strategy;
    private final long triggerMs;
    private boolean bootstrapping = true;
    /** Since when the client has wanted metadata it has not had, or {@link #NOT_WANTING}. */
    private long wantingSinceMs = NOT_WANTING;
    private int unreachableInARow;

    MetadataRecovery(RecoveryStrategy strategy, long triggerMs) {
        this.strategy = strategy;
        this.triggerMs = triggerMs;
    }

    /** Whether requests go to the bootstrap servers: until the first answer, and after each rebootstrap until the next. */
    boolean bootstrapping() {
        return bootstrapping;
    }

    /** A Metadata request was sent at {@code nowMs}: the trigger's time counts from the first since the last answer. */
    void requested(long nowMs) {
        if (wantingSinceMs == NOT_WANTING) {
            wantingSinceMs = nowMs;
        }
    }

    /** An answer was applied: the brokers it names are the ones asked from now on. */
    void answered() {
        bootstrapping = false;
        wantingSinceMs = NOT_WANTING;
        unreachableInARow = 0;
    }

    /**
     * A request to a known broker or a bootstrap server failed at {@code nowMs}.
     *
     * @param knownBrokers how many brokers the last answer named: a round of them unreachable in a row
     *                     is a rebootstrap
     * @return whether to go back to the bootstrap servers now (never while there already: the next
     *         of them is asked); if so, the caller does
     */
    boolean failed(Failure failure, long nowMs, int knownBrokers) {
        unreachableInARow = failure == Failure.UNREACHABLE ? unreachableInARow + 1 : 0;
        boolean due = failure == Failure.REBOOTSTRAP_REQUIRED || unreachableInARow >= knownBrokers
                || wantingSinceMs != NOT_WANTING && nowMs - wantingSinceMs >= triggerMs;
        return due && !bootstrapping && rebootstrap();
    }

    /**
     * A broker refused a connect as misrouted (KIP-1242): the client's view of the cluster is stale.
     *
     * @return whether to go back to the bootstrap servers now: not if already there
     */
    boolean misrouted() {
        return !bootstrapping && rebootstrap();
    }

    private boolean rebootstrap() {
        if (strategy != RecoveryStrategy.REBOOTSTRAP) {
            return false;
        }
        bootstrapping = true;
        unreachableInARow = 0;
        return true;
    }
}
