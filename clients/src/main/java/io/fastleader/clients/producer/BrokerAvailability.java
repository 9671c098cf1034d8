package io.fastleader.clients.producer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code partitioner.availability.timeout.ms} (KIP-794): a broker that has had batches ready to go
 * for longer than the timeout without taking any is unavailable to the adaptive partitioner, which
 * then draws a new sticky partition among the others. As in {@code KafkaProducer}, the sender notes
 * at each pass which leaders had batches ready and which of them took some; a broker is available
 * again once it takes batches. The sender writes, appending threads read.
 */
final class BrokerAvailability {

    private final long timeoutMs;
    private final Map<Integer, Readiness> byNode = new ConcurrentHashMap<>();

    /** @param timeoutMs {@code partitioner.availability.timeout.ms}; 0 never finds a broker unavailable */
    BrokerAvailability(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** Whether the sender needs to note readiness at all: with a timeout of 0 it does not. */
    boolean isOn() {
        return timeoutMs > 0;
    }

    /** At the sender's pass at {@code nowMs}, {@code node} had batches ready, and took some if {@code took}. */
    void noteReady(int node, boolean took, long nowMs) {
        Readiness readiness = byNode.computeIfAbsent(node, id -> new Readiness(nowMs));
        readiness.readyMs = nowMs;
        if (took) {
            readiness.tookMs = nowMs;
        }
    }

    /** Whether {@code node} has not had batches ready for longer than the timeout without taking any. */
    boolean isAvailable(int node) {
        if (timeoutMs == 0) {
            return true;
        }
        Readiness readiness = byNode.get(node);
        // The ready time is read first: a pass under way moves it first, so the gap read is never one the sender never had.
        return readiness == null || readiness.readyMs - readiness.tookMs <= timeoutMs;
    }

    private static final class Readiness {
        private volatile long readyMs;
        private volatile long tookMs;

        private Readiness(long nowMs) {
            this.readyMs = nowMs;
            this.tookMs = nowMs;
        }
    }
}
