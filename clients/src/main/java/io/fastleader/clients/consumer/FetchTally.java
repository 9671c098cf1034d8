package io.fastleader.clients.consumer;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the application took of one Fetch response: reported to {@link ConsumerMetrics} once the
 * records of every partition in it have been taken or dropped, so that {@code fetch-size} and
 * {@code records-per-request} describe responses, as {@code KafkaConsumer} reports them, while
 * {@code bytes-consumed} and {@code records-consumed} count only records the application got.
 * Partitions without records to hand out count as taken at once. Consumer thread only.
 */
final class FetchTally {

    private final ConsumerMetrics metrics;
    private final Map<String, long[]> byTopic = new HashMap<>();
    private int partitionsLeft;
    private boolean sealed;

    /** A tally of a response that carried data of {@code topics}. */
    FetchTally(ConsumerMetrics metrics, Set<String> topics) {
        this.metrics = metrics;
        topics.forEach(topic -> byTopic.put(topic, new long[2]));
    }

    /** A partition's records were buffered: the response is reported once they are {@link #taken}. */
    void awaits() {
        partitionsLeft++;
    }

    /** A partition's records are done with, taken or dropped. */
    void taken(PartitionRecords<?, ?> records) {
        long[] topic = byTopic.computeIfAbsent(records.partition().topic(), name -> new long[2]);
        topic[0] += records.bytesTaken();
        topic[1] += records.recordsTaken();
        partitionsLeft--;
        reportIfDone();
    }

    /** Every partition of the response that buffered records has been {@link #awaits awaited}. */
    void seal() {
        sealed = true;
        reportIfDone();
    }

    private void reportIfDone() {
        if (!sealed || partitionsLeft > 0) {
            return;
        }
        long bytes = 0;
        int records = 0;
        for (Map.Entry<String, long[]> topic : byTopic.entrySet()) {
            long[] totals = topic.getValue();
            metrics.topicFetched(topic.getKey(), totals[0], (int) totals[1]);
            bytes += totals[0];
            records += (int) totals[1];
        }
        metrics.responseFetched(bytes, records);
    }
}
