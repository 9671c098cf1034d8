package io.fastleader.clients.metadata;

import java.util.Objects;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A {@code CurrentLeader} hint: the leader a broker named for a partition when it refused a
 * Produce or Fetch. Brokers that know no leader send -1 for either field.
 *
 * @param partition   the refused partition
 * @param topicId     the id of the topic the refused request was for, {@link Uuid#ZERO_UUID} if the
 *                    sender did not know it; a hint for another incarnation of the topic (deleted and
 *                    recreated since) is not applied
 * @param leaderId    the leader the broker named, -1 if none
 * @param leaderEpoch that leader's epoch, -1 if none
 */
public record LeaderHint(TopicPartition partition, Uuid topicId, int leaderId, int leaderEpoch) {

    public LeaderHint {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(topicId, "topicId");
    }

    /** Whether the hint names both a leader and an epoch; an incomplete one cannot be acted on. */
    public boolean isComplete() {
        return leaderId >= 0 && leaderEpoch >= 0;
    }
}
