package io.fastleader.clients.metadata;

/** What the {@link LeaderCache} made of one {@link LeaderHint}. */
public enum HintVerdict {
    /** The hint advanced the partition's epoch: its next request may go to the new leader at once. */
    ACCEPTED("accepted"),
    /** The hint lacked a leader id or an epoch. */
    INCOMPLETE("incomplete"),
    /** The client does not track the partition. */
    UNTRACKED_PARTITION("untracked-partition"),
    /** The hint's epoch is not newer than the known one (an equal epoch naming another leader included). */
    NOT_ADVANCING("not-advancing"),
    /** The hinted leader is neither known from Metadata nor named in the response's {@code NodeEndpoints}. */
    UNKNOWN_LEADER_ENDPOINT("unknown-leader-endpoint");

    private final String metricTag;

    HintVerdict(String metricTag) {
        this.metricTag = metricTag;
    }

    /** Whether the hint changed the cache. */
    public boolean isAccepted() {
        return this == ACCEPTED;
    }

    /** The value of the {@code reason} tag on the rejected-hints metric. */
    String metricTag() {
        return metricTag;
    }
}
