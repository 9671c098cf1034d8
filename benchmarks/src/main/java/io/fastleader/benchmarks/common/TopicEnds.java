package io.fastleader.benchmarks.common;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** The end of a benchmark's run: a group that has committed the end of its input, an output read to its end. */
public final class TopicEnds {

    private TopicEnds() {
    }

    /**
     * Whether a group committed the end of its input in time, and what was seen last.
     *
     * @param committed every input partition's committed offset is its end offset
     * @param lastSeen  the last offsets compared, or the last error
     */
    public record Committed(boolean committed, String lastSeen) {
    }

    /**
     * Waits until {@code group} has committed the end of every partition in {@code inputs} (a
     * partition it never committed counts as at 0; offsets of a transaction still pending count
     * only once it completes), for at most {@code timeout} or until {@code giveUp}.
     */
    public static Committed awaitCommittedToEnd(Admin admin, String group, Collection<TopicPartition> inputs, Duration timeout,
                                                BooleanSupplier giveUp) throws InterruptedException {
        String seen = "nothing";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !giveUp.getAsBoolean()) {
            try {
                Map<TopicPartition, Long> ends = admin.listOffsets(inputs.stream()
                        .collect(Collectors.toMap(partition -> partition, partition -> OffsetSpec.latest())))
                    .all().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, end -> end.getValue().offset()));
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group,
                    new ListConsumerGroupOffsetsOptions().requireStable(true)).partitionsToOffsetAndMetadata().get();
                seen = "committed " + offsets + ", ends " + ends;
                if (ends.entrySet().stream().allMatch(end -> end.getValue().longValue()
                    == Optional.ofNullable(offsets.get(end.getKey())).map(OffsetAndMetadata::offset).orElse(0L))) {
                    return new Committed(true, seen);
                }
            } catch (Exception e) {
                seen = e.toString();
            }
            Thread.sleep(200);
        }
        return new Committed(false, seen);
    }

    /**
     * Reads {@code partitions} with {@code consumer} from their start to the end offsets they have now
     * (under {@code read_committed}, their last stable offsets), handing every record to {@code each}.
     *
     * @throws IllegalStateException if that takes longer than {@code timeout}
     */
    public static <K, V> void readFromStartToEnd(Consumer<K, V> consumer, List<TopicPartition> partitions, Duration timeout,
                                                 java.util.function.Consumer<ConsumerRecord<K, V>> each) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("could not read " + partitions + " to their end " + ends + " within " + timeout);
            }
            for (ConsumerRecord<K, V> record : consumer.poll(Duration.ofMillis(200))) {
                each.accept(record);
            }
        }
    }
}
