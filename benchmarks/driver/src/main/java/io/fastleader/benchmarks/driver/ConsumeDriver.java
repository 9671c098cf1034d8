package io.fastleader.benchmarks.driver;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * One consumer turn of the steady benchmark ({@code steady.SteadyBenchmark}), in a JVM of its own,
 * so that what it measures is a whole process, as a user's container sees it. The consumer is
 * built by class name ({@code --consumer-class}) and used through the kafka-clients API, so the
 * driver runs on any variant's classpath: client id {@code --label}, the turn's
 * {@code fetch.min.bytes} and {@code max.poll.records}, everything else at its default, and
 * {@code --client-config} on top.
 *
 * <p>It reads {@code --topic}, a backlog the benchmark filled before and nothing writes to now. It
 * assigns itself every partition, without a group, so that no group protocol runs in the
 * measure; learns each partition's start and end offsets once, and polls flat out on its main
 * thread. A partition read to its end is sought back to its start at once, so the backlog is read
 * over and over and no fetch waits at the end of a log. Every record {@code poll} returns counts,
 * and a value that is not {@code --record-bytes} long is an error. After {@code --warmup-s}, a
 * window of {@code --window-s} is measured, and only that window, as {@link SteadyDriver} measures
 * it ({@link MeasuredWindow}). The driver then prints the consumer's fetch metrics, closes the
 * consumer, prints {@code RESULT} and the figures as one JSON object, and ends. It ends at once,
 * too, if its standard input ends ({@link InputWatch}).
 */
public final class ConsumeDriver {

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration CLOSE = Duration.ofSeconds(10);
    /** How the consumer fetched, as both clients report it under kafka-clients' names: why CPU per record differs. */
    private static final String FETCH_METRICS_GROUP = "consumer-fetch-manager-metrics";
    private static final List<String> FETCH_METRICS = List.of("fetch-rate", "records-per-request-avg", "fetch-size-avg",
        "fetch-latency-avg");

    private final ConsumeDriverOptions options;
    private final Consumer<byte[], byte[]> consumer;
    private final AtomicLong consumed = new AtomicLong();
    private final Errors errors = new Errors();
    private volatile boolean polling = true;

    private ConsumeDriver(ConsumeDriverOptions options, Consumer<byte[], byte[]> consumer) {
        this.options = options;
        this.consumer = consumer;
    }

    /** Runs one turn; see the class comment. */
    public static void main(String[] args) throws Exception {
        ConsumeDriverOptions options = ConsumeDriverOptions.parse(args);
        InputWatch.start();
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, options.label());
        config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, options.fetchMinBytes());
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, options.maxPollRecords());
        config.putAll(options.clientConfig());
        Deserializer<byte[]> deserializer = new ByteArrayDeserializer();
        @SuppressWarnings("unchecked")
        Consumer<byte[], byte[]> consumer = (Consumer<byte[], byte[]>) Class.forName(options.consumerClass())
            .getConstructor(Map.class, Deserializer.class, Deserializer.class).newInstance(config, deserializer, deserializer);
        new ConsumeDriver(options, consumer).run();
    }

    /** Polls on this thread while another one measures; the consumer is only ever used here. */
    private void run() throws Exception {
        FutureTask<MeasuredWindow> window = new FutureTask<>(() -> {
            try {
                return MeasuredWindow.measure(options.warmUp(), options.window(), consumed::get, startNanos -> { });
            } finally {
                polling = false;
            }
        });
        Thread timer = new Thread(window, "steady-window");
        // Should polling fail, the JVM ends without waiting for the window.
        timer.setDaemon(true);
        timer.start();
        try {
            pollFlatOut();
            System.err.println("fetching " + Metrics.named(consumer.metrics(), FETCH_METRICS_GROUP, FETCH_METRICS));
        } finally {
            consumer.close(CLOSE);
        }
        System.out.println("RESULT " + window.get().result(options.label(), errors, "null"));
        System.out.flush();
    }

    private void pollFlatOut() {
        List<TopicPartition> partitions = consumer.partitionsFor(options.topic()).stream()
            .map(partition -> new TopicPartition(partition.topic(), partition.partition()))
            .toList();
        consumer.assign(partitions);
        Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        starts.forEach(consumer::seek);
        while (polling) {
            try {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    if (record.value().length != options.recordBytes()) {
                        errors.add(record.topic() + "-" + record.partition() + " offset " + record.offset() + ": a value of "
                            + record.value().length + " bytes, not " + options.recordBytes());
                    }
                }
                consumed.addAndGet(records.count());
                for (TopicPartition partition : records.partitions()) {
                    List<ConsumerRecord<byte[], byte[]>> read = records.records(partition);
                    if (read.get(read.size() - 1).offset() + 1 >= ends.get(partition)) {
                        consumer.seek(partition, starts.get(partition));
                    }
                }
            } catch (RuntimeException e) {
                errors.add(e.toString());
            }
        }
    }
}
