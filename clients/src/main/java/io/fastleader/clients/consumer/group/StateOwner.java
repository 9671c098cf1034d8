package io.fastleader.clients.consumer.group;

import java.util.concurrent.Executor;

/**
 * The one thread that owns a consumer's state, as the group sees it. It runs the tasks given to
 * it one at a time, in order: now ({@link #execute}) or once a delay has passed ({@link #after}).
 * Answers from the network reach group state only as tasks run here.
 */
public interface StateOwner extends Executor {

    /**
     * Runs {@code task} here once {@code delayMs} has passed, never on the caller's stack: a retry
     * that fails at once cannot recurse into the next one.
     *
     * @return cancels the task if it has not run yet
     */
    Runnable after(long delayMs, Runnable task);

    /**
     * Runs {@code callback} on the application's thread, the one waiting for the call now running
     * here (listener callbacks run there, as in {@code KafkaConsumer}), and returns once it ran;
     * meanwhile this thread goes on running its tasks, so the callback may call the consumer.
     *
     * @throws RuntimeException what the callback threw
     */
    void onApplicationThread(Runnable callback);
}
