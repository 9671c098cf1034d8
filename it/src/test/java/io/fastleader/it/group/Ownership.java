package io.fastleader.it.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.common.TopicPartition;

/**
 * Who owns each partition, as the members' rebalance listeners say: a member owns a partition from
 * its {@code onPartitionsAssigned} until its {@code onPartitionsRevoked} or {@code onPartitionsLost}.
 * A partition assigned to one member while another still owns it is a violation of the group's
 * one promise, recorded here for the test to assert on.
 */
final class Ownership {

    private final Map<TopicPartition, String> owners = new HashMap<>();
    private final List<String> violations = new ArrayList<>();

    synchronized void assigned(String member, Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            String owner = owners.putIfAbsent(partition, member);
            if (owner != null && !owner.equals(member)) {
                violations.add(partition + " assigned to " + member + " while " + owner + " owned it");
            }
        }
    }

    synchronized void released(String member, Collection<TopicPartition> partitions) {
        partitions.forEach(partition -> owners.remove(partition, member));
    }

    /** A member that died: it owns nothing from now on, whatever its listener would have said. */
    synchronized void died(String member) {
        owners.values().removeIf(member::equals);
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /** The partitions {@code member} owns. */
    synchronized Set<TopicPartition> of(String member) {
        Set<TopicPartition> owned = new TreeSet<>(GroupMember.PARTITION_ORDER);
        owners.forEach((partition, owner) -> {
            if (owner.equals(member)) {
                owned.add(partition);
            }
        });
        return owned;
    }

    /** Every owned partition, with its owner. */
    synchronized Map<TopicPartition, String> snapshot() {
        return Map.copyOf(owners);
    }
}
