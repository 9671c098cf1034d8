package io.fastleader.clients.consumer;

import java.util.ArrayDeque;

import org.apache.kafka.common.KafkaException;

/**
 * Errors met on the consumer's thread while applying answers (out of range, truncation, no
 * offset, a partition error retrying cannot fix), kept until the application's next call that
 * raises them ({@code poll}, {@code position}), oldest first, each once.
 */
final class PendingErrors {

    private final ArrayDeque<RuntimeException> errors = new ArrayDeque<>();

    void add(RuntimeException error) {
        errors.add(error);
    }

    /** Runs a state transition, keeping the Kafka exception it throws. */
    void capture(Runnable transition) {
        try {
            transition.run();
        } catch (KafkaException e) {
            errors.add(e);
        }
    }

    /** Throws the oldest pending error, once. */
    void throwOldest() {
        RuntimeException error = errors.poll();
        if (error != null) {
            throw error;
        }
    }
}
