package io.fastleader.clients.producer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * The batches the sender has sent and not yet had answered, per partition, and the node each
 * partition's batches went to. Owned by the sender's thread; not thread-safe.
 *
 * <p>A partition may have several batches in flight, one per Produce request, as long as they all
 * went to one node: a connection answers in the order requests were sent, so the partition's
 * batches are settled in the order they were sent, and a refusal of one is known before the
 * answers to the batches behind it are read. When the partition's leader moves, its next batch
 * waits until the batches still on their way to the old leader are answered; refused, they go back
 * into the queue in front of it ({@link RecordAccumulator#reenqueue}) and are resent in order.
 */
final class InFlightBatches {

    private final Map<TopicPartition, Route> byPartition = new HashMap<>();

    /** Whether the partition's next batch may go to {@code node}: none is in flight, or all went there. */
    boolean mayGoTo(TopicPartition partition, int node) {
        Route route = byPartition.get(partition);
        return route == null || route.node == node;
    }

    /** Whether any batch of the partition is in flight. */
    boolean contains(TopicPartition partition) {
        return byPartition.containsKey(partition);
    }

    /**
     * Records a batch sent to {@code node}.
     *
     * @throws IllegalStateException when batches of its partition are in flight to another node
     */
    void sent(int node, ProducerBatch batch) {
        Route route = byPartition.computeIfAbsent(batch.topicPartition(), partition -> new Route(node));
        if (route.node != node) {
            throw new IllegalStateException(batch + " sent to node " + node + " while batches of its partition are in flight to node "
                    + route.node);
        }
        route.batches.add(batch);
    }

    /** Records that the batch's request was answered or failed. */
    void answered(ProducerBatch batch) {
        Route route = byPartition.get(batch.topicPartition());
        if (route != null && route.batches.remove(batch) && route.batches.isEmpty()) {
            byPartition.remove(batch.topicPartition());
        }
    }

    /** Whether no batch is in flight. */
    boolean isEmpty() {
        return byPartition.isEmpty();
    }

    /**
     * When the oldest batch in flight that has not ended was created, {@link Long#MAX_VALUE} when
     * none: asked at every pass of the sender, so it copies nothing.
     */
    long oldestUnendedCreatedMs() {
        long oldestMs = Long.MAX_VALUE;
        for (Route route : byPartition.values()) {
            for (ProducerBatch batch : route.batches) {
                if (!batch.isDone()) {
                    oldestMs = Math.min(oldestMs, batch.createdMs());
                }
            }
        }
        return oldestMs;
    }

    /** Every batch in flight, a copy. */
    List<ProducerBatch> batches() {
        List<ProducerBatch> batches = new ArrayList<>();
        byPartition.values().forEach(route -> batches.addAll(route.batches));
        return batches;
    }

    /** Where a partition's batches in flight went, and which they are, in the order they were sent. */
    private static final class Route {
        final int node;
        final List<ProducerBatch> batches = new ArrayList<>(2);

        Route(int node) {
            this.node = node;
        }
    }
}
