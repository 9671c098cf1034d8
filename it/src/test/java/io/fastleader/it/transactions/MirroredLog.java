package io.fastleader.it.transactions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

import io.fastleader.it.cluster.Await;

/**
 * Writes a topic whose partitions all hold the same log, and knows what is at each of its offsets.
 *
 * <p>Every record goes to every partition, each acknowledged before the next is sent, and every
 * transaction writes to every partition, its markers awaited before anything else is written: so
 * each partition gets the same records and the same transaction markers at the same offsets.
 * Knowing which records were aborted and where the markers are, this tells what a consumer should
 * hand out under each isolation level, and where its position should end.
 */
final class MirroredLog {

    private static final Duration MARKERS_TIMEOUT = Duration.ofSeconds(30);

    /** A record a consumer handed out, or should. */
    record Seen(long offset, String value) {
    }

    private final Admin admin;
    private final String topic;
    private final int partitions;
    /** The value at each offset; null at a transaction marker. */
    private final List<String> values = new ArrayList<>();
    private final Set<Long> aborted = new HashSet<>();
    /** The offsets each producer wrote in its open transaction, by producer. */
    private final Map<Producer<String, String>, List<Long>> open = new IdentityHashMap<>();

    /** @param admin what the markers are awaited through */
    MirroredLog(Admin admin, String topic, int partitions) {
        this.admin = admin;
        this.topic = topic;
        this.partitions = partitions;
    }

    String topic() {
        return topic;
    }

    /** Begins a transaction of {@code producer}, whose transactions are initialized already. */
    void begin(Producer<String, String> producer) {
        producer.beginTransaction();
        open.put(producer, new ArrayList<>());
    }

    /** Writes {@code value} to every partition, in {@code producer}'s open transaction if it has one. */
    void send(Producer<String, String> producer, String value) throws ExecutionException, InterruptedException {
        for (int partition = 0; partition < partitions; partition++) {
            producer.send(new ProducerRecord<>(topic, partition, "key", value)).get();
        }
        List<Long> transaction = open.get(producer);
        if (transaction != null) {
            transaction.add(end());
        }
        values.add(value);
    }

    /** Commits {@code producer}'s transaction: a COMMIT marker follows in every partition. */
    void commit(Producer<String, String> producer) {
        producer.commitTransaction();
        open.remove(producer);
        awaitMarkers();
    }

    /** Aborts {@code producer}'s transaction: its records are aborted, and an ABORT marker follows in every partition. */
    void abort(Producer<String, String> producer) {
        producer.abortTransaction();
        aborted.addAll(open.remove(producer));
        awaitMarkers();
    }

    private void awaitMarkers() {
        values.add(null);
        // The transaction coordinator writes the markers after the commit or abort has returned, so
        // a record sent at once could land before them.
        Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, partitions).boxed()
                .collect(Collectors.toMap(partition -> new TopicPartition(topic, partition), partition -> OffsetSpec.latest()));
        Await.until("the transaction markers at offset " + (end() - 1) + " of " + topic, MARKERS_TIMEOUT,
                () -> admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS).values().stream()
                        .allMatch(listed -> listed.offset() == end()));
    }

    /** Each partition's log end offset, markers included: where a consumer that read everything stands. */
    long end() {
        return values.size();
    }

    /** Each partition's last stable offset: the first offset of a transaction still open, else {@link #end()}. */
    long lastStableOffset() {
        return open.values().stream().filter(offsets -> !offsets.isEmpty())
                .mapToLong(offsets -> offsets.get(0)).min().orElse(end());
    }

    /** What {@code read_committed} hands out of each partition: records below the last stable offset, none aborted. */
    List<Seen> readCommitted() {
        return records(lastStableOffset()).stream().filter(seen -> !aborted.contains(seen.offset())).toList();
    }

    /** What {@code read_uncommitted} hands out of each partition: every record, aborted or still open. */
    List<Seen> readUncommitted() {
        return records(end());
    }

    /** The offsets of the aborted records. */
    Set<Long> abortedOffsets() {
        return Set.copyOf(aborted);
    }

    /** The offsets of the transaction markers. */
    List<Long> markerOffsets() {
        return LongStream.range(0, end()).filter(offset -> values.get((int) offset) == null).boxed().toList();
    }

    private List<Seen> records(long below) {
        return LongStream.range(0, below).filter(offset -> values.get((int) offset) != null)
                .mapToObj(offset -> new Seen(offset, values.get((int) offset))).toList();
    }
}
