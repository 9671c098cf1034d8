package io.fastleader.clients.producer;

import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * What {@link RecordAccumulator#append} did with a record.
 *
 * @param future          done when the record is acknowledged or failed
 * @param batchIsFull     the partition now has a full batch: worth waking the sender for
 * @param newBatchCreated the record started a new batch: a partition may have become sendable
 * @param appendedBytes   what the record added to its batch's estimated size, the batch's header
 *                        included for a new batch: what the sticky partitioner counts
 * @param lastBatchFull   the batch the record went into is now full: no later record joins it
 */
public record AppendResult(Future<RecordMetadata> future, boolean batchIsFull, boolean newBatchCreated, int appendedBytes,
                           boolean lastBatchFull) {
}
