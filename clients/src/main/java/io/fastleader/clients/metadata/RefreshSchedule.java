package io.fastleader.clients.metadata;

import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;

import io.fastleader.clients.network.ExponentialBackoff;

/**
 * When to send the next Metadata request and for which topics: a state machine driven by the
 * caller's clock, with no I/O and no threads of its own (not thread-safe; the owner serialises calls,
 * and changes the {@link TopicUse} it asks only while holding the same lock).
 *
 * <ul>
 *   <li>One request at a time. What is asked for while one is in flight waits for the next, and
 *       everything due at once goes out in a single request (coalescing).</li>
 *   <li>Urgent causes ({@link RefreshCause#NEW_TOPIC}, {@link RefreshCause#REJECTED_HINT},
 *       {@link RefreshCause#LEADER_ERROR}) are due at once, but never sooner than
 *       {@code retry.backoff.ms} after the last answer, or the exponential backoff after a failure:
 *       a broker that keeps refusing cannot drive refreshes at round-trip speed.</li>
 *   <li>An accepted hint's confirmation is due {@code hint.confirmation.delay} after the hint.</li>
 *   <li>Every topic in use is refreshed {@code metadata.max.age.ms} after the last success.</li>
 * </ul>
 */
final class RefreshSchedule {

    private static final long NEVER = Long.MAX_VALUE;

    private final MetadataConfig config;
    private final ExponentialBackoff failureBackoff;
    private final DoubleSupplier random;
    private final TopicUse topicsInUse;
    private final Map<RefreshCause, Set<String>> urgent = new EnumMap<>(RefreshCause.class);
    private final Map<String, Long> confirmationsDueMs = new HashMap<>();
    private long lastSuccessMs = NEVER;
    private long notBeforeMs = Long.MIN_VALUE;
    private int consecutiveFailures;
    private RefreshPlan inFlight;

    /**
     * @param topicsInUse the topics periodic refreshes describe, as they are when each is planned
     * @param random      uniform in [0, 1), spreads each failure backoff
     */
    RefreshSchedule(MetadataConfig config, TopicUse topicsInUse, DoubleSupplier random) {
        this.config = config;
        this.failureBackoff = config.refreshBackoff();
        this.topicsInUse = topicsInUse;
        this.random = random;
    }

    /** Asks for the topics as soon as the backoff allows. */
    void refreshNow(RefreshCause cause, Collection<String> topics) {
        urgent.computeIfAbsent(cause, c -> new HashSet<>()).addAll(topics);
    }

    /** Asks for the topics once the confirmation delay has passed, counting from {@code nowMs}. */
    void confirmLater(Collection<String> topics, long nowMs) {
        confirmAt(topics, nowMs + config.hintConfirmationDelay().toMillis());
    }

    /** When the next request is due, {@link Long#MAX_VALUE} if none is wanted or one is in flight. */
    long nextDueMs() {
        if (inFlight != null) {
            return NEVER;
        }
        long dueMs = periodicDueMs();
        if (!urgent.isEmpty()) {
            dueMs = Math.min(dueMs, notBeforeMs);
        }
        for (long confirmationMs : confirmationsDueMs.values()) {
            dueMs = Math.min(dueMs, Math.max(confirmationMs, notBeforeMs));
        }
        return dueMs;
    }

    /**
     * Starts the next request if one is due.
     *
     * @return what to ask for, or null if nothing is due at {@code nowMs}
     */
    RefreshPlan start(long nowMs) {
        if (nowMs < nextDueMs()) {
            return null;
        }
        Map<RefreshCause, Set<String>> plan = new EnumMap<>(RefreshCause.class);
        if (nowMs >= periodicDueMs()) {
            plan.put(RefreshCause.PERIODIC, topicsInUse.topics());
        }
        if (nowMs >= notBeforeMs) {
            plan.putAll(urgent);
            urgent.clear();
            takeDueConfirmations(nowMs, plan);
        }
        inFlight = new RefreshPlan(plan);
        return inFlight;
    }

    /** The request in flight was answered at {@code nowMs}. */
    void succeeded(long nowMs) {
        inFlight = null;
        consecutiveFailures = 0;
        lastSuccessMs = nowMs;
        notBeforeMs = nowMs + config.retryBackoff().toMillis();
    }

    /** The request in flight failed at {@code nowMs}; what it asked for is asked for again after a backoff. */
    void failed(long nowMs) {
        RefreshPlan failed = inFlight;
        inFlight = null;
        consecutiveFailures++;
        notBeforeMs = nowMs + failureBackoff.millis(consecutiveFailures, random.getAsDouble());
        failed.topicsByCause().forEach((cause, topics) -> {
            if (cause == RefreshCause.HINT_CONFIRMATION) {
                confirmAt(topics, nowMs);
            } else if (cause != RefreshCause.PERIODIC) {
                refreshNow(cause, topics);
            }
        });
    }

    /** Every topic in use is due {@code metadata.max.age.ms} after the last success, outside any backoff. */
    private long periodicDueMs() {
        return lastSuccessMs == NEVER ? NEVER : Math.max(lastSuccessMs + config.metadataMaxAge().toMillis(), notBeforeMs);
    }

    private void confirmAt(Collection<String> topics, long dueMs) {
        for (String topic : topics) {
            confirmationsDueMs.merge(topic, dueMs, Math::min);
        }
    }

    private void takeDueConfirmations(long nowMs, Map<RefreshCause, Set<String>> plan) {
        Set<String> due = new HashSet<>();
        for (Iterator<Map.Entry<String, Long>> it = confirmationsDueMs.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> confirmation = it.next();
            if (confirmation.getValue() <= nowMs) {
                due.add(confirmation.getKey());
                it.remove();
            }
        }
        if (!due.isEmpty()) {
            plan.put(RefreshCause.HINT_CONFIRMATION, due);
        }
    }
}
