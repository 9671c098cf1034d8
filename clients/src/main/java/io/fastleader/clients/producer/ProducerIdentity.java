package io.fastleader.clients.producer;

import org.apache.kafka.common.TopicPartition;

import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;

/**
 * The idempotent producer's identity (producer id and epoch, from InitProducerId) and its
 * per-partition sequence numbers. Owned by the sender's thread; not thread-safe.
 *
 * <p>A transactional producer's identity comes from its transaction coordinator
 * ({@link io.fastleader.clients.producer.transaction.Transactions}) and changes only there: a lost
 * sequence fails the batch, and so the transaction, instead of bumping the epoch here.
 *
 * <p>While no identity is held (at start, and while an epoch bump is under way) nothing may be
 * sent. A bump (KIP-360) asks the broker for a new epoch with the current id and epoch, and
 * every partition's sequence then starts again at 0: each batch is stamped when it is sent under
 * an identity it does not carry yet, so the batches still queued are re-sequenced in their
 * queue's order as they go out.
 */
public final class ProducerIdentity {

    /** Sent as InitProducerId's TransactionTimeoutMs; brokers ignore it without a transactional id. */
    private static final int NO_TRANSACTION_TIMEOUT_MS = 60_000;

    private final SequenceNumbers sequences = new SequenceNumbers();
    private final boolean transactional;
    private long producerId = -1;
    private short producerEpoch = -1;
    private boolean held;

    /**
     * @param transactional whether batches are stamped as transactional, and the identity is the
     *                      transaction coordinator's to change
     */
    public ProducerIdentity(boolean transactional) {
        this.transactional = transactional;
    }

    /** Whether the identity is a transactional producer's. */
    public boolean isTransactional() {
        return transactional;
    }

    /** Whether an identity is held, so batches may be stamped and sent. */
    public boolean isHeld() {
        return held;
    }

    /** The InitProducerId request to send: a first one, or a bump carrying the current id and epoch. */
    public InitProducerIdRequestData initRequest() {
        return new InitProducerIdRequestData()
                .setTransactionalId(null)
                .setTransactionTimeoutMs(NO_TRANSACTION_TIMEOUT_MS)
                .setProducerId(producerId)
                .setProducerEpoch(producerEpoch);
    }

    /** Takes the identity of a successful InitProducerId response; every partition starts again at sequence 0. */
    public void initialized(InitProducerIdResponseData response) {
        initialized(response.producerId(), response.producerEpoch());
    }

    /** Takes a new identity; every partition starts again at sequence 0. */
    public void initialized(long newProducerId, short newEpoch) {
        producerId = newProducerId;
        producerEpoch = newEpoch;
        sequences.reset();
        held = true;
    }

    /**
     * Asks for an epoch bump because the batch's sequence state is lost (the broker refused its
     * sequence, or the batch failed for good after taking one, leaving a gap). A batch stamped under
     * an earlier identity asks for nothing: the bump it would ask for has happened.
     *
     * @return whether a bump is now needed; never for a transactional producer
     */
    public boolean bumpFor(ProducerBatch batch) {
        if (transactional || !isCurrent(batch)) {
            return false;
        }
        held = false;
        return true;
    }

    /** Whether the batch carries a sequence under the identity held now. */
    private boolean isCurrent(ProducerBatch batch) {
        return held && batch.hasSequence() && batch.producerId() == producerId && batch.producerEpoch() == producerEpoch;
    }

    /**
     * Whether the broker refused the batch as out of sequence only because an earlier batch of its
     * partition is not written yet (refused too, or still in flight): its sequence lies beyond the
     * one the broker expects. Such a batch is retried behind the earlier one, under the same
     * identity. Any other refusal (at the expected sequence: the broker lost this producer's state;
     * behind it: the broker wrote later batches first, so this one can never be written at its
     * sequence) needs an epoch bump.
     */
    public boolean waitsForAnEarlierBatch(ProducerBatch batch) {
        return isCurrent(batch) && sequences.isAheadOfExpected(batch.topicPartition(), batch.baseSequence());
    }

    /**
     * Whether a batch of the partition may be sent while another is in flight. Not until the broker
     * wrote one under the held identity: before that it has no state for this producer there and
     * takes any sequence first, so a batch sent behind a refused one would be written ahead of it.
     */
    public boolean mayPipeline(TopicPartition partition) {
        return held && sequences.anyWritten(partition);
    }

    /** Records that the broker wrote the batch; a batch stamped under an earlier identity changes nothing. */
    public void written(ProducerBatch batch) {
        if (isCurrent(batch)) {
            sequences.written(batch.topicPartition(), batch.baseSequence(), batch.recordCount());
        }
    }

    /**
     * Gives a batch about to be sent its producer state: a batch already stamped under the current
     * identity keeps its sequence (a retry must reuse it), any other takes the partition's next one.
     */
    public void stamp(ProducerBatch batch) {
        if (!held) {
            throw new IllegalStateException("no producer id is held");
        }
        if (isCurrent(batch)) {
            return;
        }
        batch.setProducerState(producerId, producerEpoch, sequences.take(batch.topicPartition(), batch.recordCount()),
                transactional);
    }
}
