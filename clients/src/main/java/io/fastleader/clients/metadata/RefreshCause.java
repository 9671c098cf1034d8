package io.fastleader.clients.metadata;

/** Why a Metadata refresh was sent; each is counted on the refreshes metric under its tag. */
public enum RefreshCause {
    /** {@code metadata.max.age.ms} passed since the last successful refresh. */
    PERIODIC("periodic"),
    /** A topic came into use, or is in use and still has no partitions. */
    NEW_TOPIC("new-topic"),
    /** A complete, advancing hint was applied; the refresh confirms it after a short delay. */
    HINT_CONFIRMATION("hint-confirmation"),
    /** A hint could not be used (incomplete, not advancing, unknown leader endpoint, untracked partition). */
    REJECTED_HINT("rejected-hint"),
    /** A broker refused a request for leadership reasons and gave no hint. */
    LEADER_ERROR("leader-error"),
    /** A broker refused a connect as misrouted (KIP-1242): the client went back to its bootstrap servers, whose answer it needs. */
    REBOOTSTRAP("rebootstrap");

    private final String metricTag;

    RefreshCause(String metricTag) {
        this.metricTag = metricTag;
    }

    /** The value of the {@code cause} tag on the refreshes metric. */
    String metricTag() {
        return metricTag;
    }
}
