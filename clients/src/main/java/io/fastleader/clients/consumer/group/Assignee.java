package io.fastleader.clients.consumer.group;

import java.util.Collection;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/** What a group's reconciliation asks of the consumer it runs in: its assignment, and a commit before revoking. */
public interface Assignee {
    /** The partitions assigned now. */
    Set<TopicPartition> assignment();

    /** Makes exactly {@code partitions} the assignment; kept partitions keep their positions. */
    void assign(Collection<TopicPartition> partitions);

    /** Commits the positions of {@code partitions} before they are revoked, with auto-commit; failures are logged. */
    void commitBeforeRevoking(Set<TopicPartition> partitions);

    /**
     * As {@link #commitBeforeRevoking(Set)}, given up at {@code deadlineMs} (the consumer's clock) at the
     * latest: leaving on {@code close} shares the close's one deadline between the commit, the
     * revocation and the leave, as {@code KafkaConsumer} does.
     */
    void commitBeforeRevoking(Set<TopicPartition> partitions, long deadlineMs);
}
