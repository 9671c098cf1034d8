package io.fastleader.clients.consumer;

import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * What the pieces working on the consumer's thread share: the settings, the metrics, the inbox
 * that runs transport answers on that thread, its clock, and the errors {@code poll} raises.
 *
 * @param inbox   runs a task on the consumer's thread, in the next {@code poll} or blocking call
 * @param clockMs monotonic milliseconds
 * @param errors  errors met on the consumer's thread, raised by the next {@code poll}
 */
record PollThread(ConsumerSettings settings, ConsumerMetrics metrics, Executor inbox, LongSupplier clockMs,
                  PendingErrors errors) {
}
