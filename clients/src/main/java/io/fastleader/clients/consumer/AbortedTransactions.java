package io.fastleader.clients.consumer;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.Set;

import io.fastleader.protocol.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Tells, batch by batch in offset order, which batches of one partition's fetched data belong to
 * aborted transactions, from the {@code AbortedTransactions} list of the Fetch response.
 *
 * <p>A producer runs at most one transaction at a time, so "aborted" is a state of the producer:
 * it starts when a batch of that producer reaches the first offset of one of its aborted
 * transactions, and ends at that producer's ABORT marker.
 */
final class AbortedTransactions {

    private final Queue<AbortedTransaction> notStarted;
    private final Set<Long> abortedProducers = new HashSet<>();

    /** @param aborted the response's aborted transactions, in any order; null or empty when there are none */
    AbortedTransactions(List<AbortedTransaction> aborted) {
        this.notStarted = aborted == null ? new ArrayDeque<>() : aborted.stream()
                .sorted(Comparator.comparingLong(AbortedTransaction::firstOffset))
                .collect(ArrayDeque::new, ArrayDeque::add, ArrayDeque::addAll);
    }

    /** None: what a {@code read_uncommitted} reader uses, which sees every data batch. */
    static AbortedTransactions none() {
        return new AbortedTransactions(null);
    }

    /**
     * Whether {@code batch} holds records of an aborted transaction. Must see every batch of the
     * partition in offset order, control batches included, since those end transactions.
     */
    boolean covers(RecordBatch batch) {
        if (!batch.hasProducerId()) {
            return false;
        }
        while (!notStarted.isEmpty() && notStarted.peek().firstOffset() <= batch.lastOffset()) {
            abortedProducers.add(notStarted.poll().producerId());
        }
        long producerId = batch.producerId();
        if (!abortedProducers.contains(producerId)) {
            return false;
        }
        if (batch.isControlBatch()) {
            if (isAbortMarker(batch)) {
                abortedProducers.remove(producerId);
            }
            return false;
        }
        return batch.isTransactional();
    }

    private static boolean isAbortMarker(RecordBatch controlBatch) {
        // A marker batch holds one control record; compaction may have removed it after the delete horizon.
        Iterator<Record> records = controlBatch.iterator();
        return records.hasNext() && ControlRecordType.parse(records.next().key()) == ControlRecordType.ABORT;
    }
}
