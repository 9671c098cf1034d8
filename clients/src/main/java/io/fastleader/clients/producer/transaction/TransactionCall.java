package io.fastleader.clients.producer.transaction;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * One blocking transactional call of the application ({@code initTransactions},
 * {@code sendOffsetsToTransaction}, {@code commitTransaction}, {@code abortTransaction}) and its
 * outcome, completed by the sender. A call that runs out of {@code max.block.ms} goes on in the
 * background: calling the same method again waits for this same outcome, as {@code KafkaProducer}'s
 * calls do, and any other transactional call is refused until it has been waited for to its end.
 */
public final class TransactionCall {

    private final String operation;
    private final String awaited;
    private final TransactionState target;
    private final CompletableFuture<Void> outcome = new CompletableFuture<>();
    private volatile boolean seenToEnd;

    /**
     * @param operation the method's name, as {@code KafkaProducer}'s messages name it
     * @param awaited   what the call waits for, as {@code KafkaProducer}'s timeout message names it
     * @param target    the state the call moves the producer to, which a retry of it must name again
     */
    TransactionCall(String operation, String awaited, TransactionState target) {
        this.operation = operation;
        this.awaited = awaited;
        this.target = target;
    }

    String operation() {
        return operation;
    }

    TransactionState target() {
        return target;
    }

    /** Ends the call successfully; a call already ended stays as it was. */
    void done() {
        outcome.complete(null);
    }

    /** Ends the call with {@code error}; a call already ended stays as it was. */
    void fail(RuntimeException error) {
        outcome.completeExceptionally(error);
    }

    boolean isDone() {
        return outcome.isDone();
    }

    /** Whether the application waited for this call to its end, so another call may follow it. */
    boolean wasSeenToEnd() {
        return seenToEnd;
    }

    /**
     * Waits up to {@code timeoutMs} for the call's outcome.
     *
     * @param timeoutReason the second sentence of the {@link TimeoutException}'s message, {@code KafkaProducer}'s
     * @throws TimeoutException   when the call has not ended in time; it goes on, and may be waited for again
     * @throws InterruptException when interrupted while waiting
     * @throws KafkaException     (or a subclass) the call failed with
     */
    public void await(long timeoutMs, String timeoutReason) {
        try {
            outcome.get(timeoutMs, TimeUnit.MILLISECONDS);
            seenToEnd = true;
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("Timeout expired after " + timeoutMs + "ms while awaiting " + awaited + ". "
                    + timeoutReason);
        } catch (InterruptedException e) {
            throw new InterruptException("Received interrupt while awaiting " + awaited, e);
        } catch (ExecutionException e) {
            seenToEnd = true;
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new KafkaException(e.getCause());
        }
    }
}
