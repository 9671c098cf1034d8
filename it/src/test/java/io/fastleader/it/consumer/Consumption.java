package io.fastleader.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;

/**
 * What a consumer's polls handed out, per partition in the order they handed it out, and the
 * loop that polls until the consumer's positions reach given end offsets. Works with any
 * {@link Consumer}, so fastleader's and kafka-clients' answers can be compared record for record.
 */
public final class Consumption {

    /** How long one consumption may take before the test fails. */
    public static final Duration TIMEOUT = Duration.ofSeconds(90);

    private static final Duration POLL = Duration.ofMillis(100);

    private final Map<TopicPartition, List<ConsumerRecord<String, String>>> records = new HashMap<>();
    /** Written by the polling thread only; read by others to follow progress. */
    private volatile long count;

    /** Polls {@code consumer} until its position in each partition of {@code ends} is at or past the partition's end. */
    static Consumption until(Consumer<String, String> consumer, Map<TopicPartition, Long> ends) {
        Consumption consumption = new Consumption();
        consumption.pollUntil(consumer, () -> ends, TIMEOUT);
        return consumption;
    }

    /**
     * Polls until every partition of the map {@code ends} supplies is reached; while it supplies
     * null, polls on. Exceptions of {@code poll} and {@code position} propagate at once.
     *
     * @throws AssertionError if not reached within {@code timeout}
     */
    void pollUntil(Consumer<String, String> consumer, Supplier<Map<TopicPartition, Long>> ends, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            add(consumer.poll(POLL));
            Map<TopicPartition, Long> target = ends.get();
            if (target != null && reached(consumer, target)) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                Map<TopicPartition, Long> positions = new HashMap<>();
                consumer.assignment().forEach(partition -> positions.put(partition, consumer.position(partition)));
                throw new AssertionError("positions " + positions + " did not reach " + target + " within " + timeout);
            }
        }
    }

    private static boolean reached(Consumer<String, String> consumer, Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
    }

    void add(ConsumerRecords<String, String> polled) {
        for (ConsumerRecord<String, String> record : polled) {
            records.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), tp -> new ArrayList<>()).add(record);
            count++;
        }
    }

    /** Records handed out so far. */
    public long count() {
        return count;
    }

    /** The records of {@code partition} in the order they were handed out. */
    public List<ConsumerRecord<String, String>> of(TopicPartition partition) {
        return records.getOrDefault(partition, List.of());
    }

    /** Each record of {@code partition} as {@code offset=value}, in the order handed out. */
    public List<String> offsetsAndValues(TopicPartition partition) {
        return of(partition).stream().map(record -> record.offset() + "=" + record.value()).toList();
    }

    /** Each record of {@code partition} with everything a consumer reports of it, in the order handed out. */
    List<String> described(TopicPartition partition) {
        return of(partition).stream().map(record -> record.offset() + " key=" + record.key() + " value=" + record.value()
                + " timestamp=" + record.timestamp() + " " + record.timestampType() + " epoch=" + record.leaderEpoch()
                + " headers=" + headers(record)).toList();
    }

    private static List<String> headers(ConsumerRecord<String, String> record) {
        List<String> headers = new ArrayList<>();
        record.headers().forEach(header -> headers.add(header.key() + "=" + new String(header.value(), StandardCharsets.UTF_8)));
        return headers;
    }

    /**
     * Each partition of {@code log} was handed out exactly as the log holds it: every record once,
     * in offset order, nothing else.
     *
     * @param log partition, then offset to value, as kafka-clients reads the whole log
     */
    public void assertExactly(Map<TopicPartition, Map<Long, String>> log) {
        log.forEach((partition, records) -> assertThat(offsetsAndValues(partition)).as("records of %s handed out", partition)
                .containsExactlyElementsOf(new TreeMap<>(records).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList()));
        assertThat(log.keySet()).as("partitions with records").containsAll(records.keySet());
    }

    /** The end offset of every partition of {@code log}: one past its last record, 0 when empty. */
    public static Map<TopicPartition, Long> endsOf(Map<TopicPartition, Map<Long, String>> log, Iterable<TopicPartition> partitions) {
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (TopicPartition partition : partitions) {
            Map<Long, String> records = log.getOrDefault(partition, Map.of());
            ends.put(partition, records.isEmpty() ? 0L : new TreeMap<>(records).lastKey() + 1);
        }
        return ends;
    }

    /** A client's metric {@code name} in {@code group}, summed over its tags. */
    public static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        return metric(metrics, group, name, Map.of());
    }

    /** A client's metric {@code name} in {@code group}, summed over the tag sets that include {@code tags}. */
    public static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name, Map<String, String> tags) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(name)
                        && e.getKey().tags().entrySet().containsAll(tags.entrySet()))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }
}
