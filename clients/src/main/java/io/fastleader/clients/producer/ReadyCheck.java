package io.fastleader.clients.producer;

import java.util.List;

import org.apache.kafka.common.TopicPartition;

/**
 * The answer of {@link RecordAccumulator#ready}.
 *
 * @param readyPartitions       partitions whose first batch should be sent now, each once
 * @param nextReadyCheckDelayMs how long the sender may wait before asking again: until the next
 *                              linger or retry backoff ends or the next queued batch reaches its
 *                              delivery timeout; {@link Long#MAX_VALUE} when nothing is queued
 * @param expiredBatches        batches taken out of their queues for having reached
 *                              {@code delivery.timeout.ms}, which the caller fails
 */
public record ReadyCheck(List<TopicPartition> readyPartitions, long nextReadyCheckDelayMs,
                         List<ProducerBatch> expiredBatches) {
}
