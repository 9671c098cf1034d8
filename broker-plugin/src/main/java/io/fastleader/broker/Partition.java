package io.fastleader.broker;

import java.util.Objects;

/**
 * A topic partition by name. Hint resolution keys partitions by topic name because Produce
 * requests name their topics; Fetch requests carry topic ids, which {@link MetadataView} maps
 * back to names.
 *
 * @param topic the topic name
 * @param index the partition index
 */
public record Partition(String topic, int index) {

    public Partition {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public String toString() {
        return topic + "-" + index;
    }
}
