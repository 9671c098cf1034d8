package io.fastleader.clients.producer;

/**
 * What a batch is doing at a moment of its life, from its creation to its end: the pieces of a
 * {@link BatchTimeline}. Every moment belongs to exactly one phase, decided where the sender decides
 * whether the batch may go ({@link RecordAccumulator#ready}, {@link SendPlan}, {@link RecordAccumulator#drain})
 * or where it hears back from the broker.
 */
public enum BatchPhase {

    /**
     * In the accumulator for any reason the other phases do not name: lingering, left for a later
     * request than the one its partition's first batch went in, held by the node's in-flight limit,
     * by an idempotent partition's first batch going alone, or while the producer waits for its
     * producer id. Batches queued behind a partition's first batch wait in its phase.
     */
    QUEUED("queued"),
    /** A Produce request carrying it was written to a node, and neither its answer nor the connection's failure has come. */
    IN_FLIGHT("in-flight"),
    /** Ready to go to a new leader, but batches of its partition are still in flight to the old one ({@link InFlightBatches}). */
    BEHIND_IN_FLIGHT("behind-in-flight"),
    /** Waiting out a retry backoff ({@code retry.backoff.ms} .. {@code retry.backoff.max.ms}). */
    BACKOFF("backoff"),
    /**
     * Its partition's leader, or the leader's address, is unknown: waiting for Metadata to name it;
     * under {@code acks=0}, also while the leader it knows closed a connection and no answer has come since.
     */
    METADATA("metadata"),
    /** Its request was handed to the leader's connection, which is not usable yet (TCP, TLS, SASL, ApiVersions). */
    CONNECTING("connecting"),
    /** Its partition is not in the transaction yet: AddPartitionsToTxn is under way (transaction version 1). */
    TRANSACTION("transaction");

    private final String label;

    BatchPhase(String label) {
        this.label = label;
    }

    /** The phase's name in the slow-batch log line. */
    public String label() {
        return label;
    }
}
