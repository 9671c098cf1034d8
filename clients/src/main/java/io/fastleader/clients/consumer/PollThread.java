package io.fastleader.clients.consumer;

import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * What the pieces working on the consumer's state owner share: the settings, the metrics, the
 * owner itself (which runs transport answers as its tasks), its clock, and the errors {@code poll}
 * raises.
 *
 * @param inbox   runs a task on the consumer's state owner ({@link ConsumerThread})
 * @param clockMs monotonic milliseconds
 * @param errors  errors met on the state owner, raised by the next {@code poll}
 */
record PollThread(ConsumerSettings settings, ConsumerMetrics metrics, Executor inbox, LongSupplier clockMs,
                  PendingErrors errors) {
}
