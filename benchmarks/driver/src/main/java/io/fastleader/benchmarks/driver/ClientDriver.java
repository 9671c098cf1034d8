package io.fastleader.benchmarks.driver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One client variant of the leader-move benchmark, in a JVM of its own. A producer sends
 * fixed-size records at a fixed rate (linger.ms=0; acks=all with idempotence on, or acks=1 without) round-robin over
 * the topic's partitions, and a consumer of every partition reads them back. Both are built by
 * class name and used through the kafka-clients API that 3.6 already has, so this one driver runs
 * on any variant's classpath.
 *
 * <p>Records carry the variant's label as key, so variants can share one topic, and a sequence
 * number and send time as value. Commands come as lines on standard input. The driver prints
 * {@code READY} once the consumer is in position, starts sending on {@code start} (so that every
 * variant starts at once), counts latencies in its percentiles from {@code measure} on (after the
 * warm-up), prints a {@code PROGRESS} line every few seconds, answers {@code requests} with
 * {@code REQUESTS} and the requests both clients have sent so far per API as JSON (from
 * fastleader's metrics or kafka-clients' NetworkClient log, as {@code --requests-from} says, or
 * none), and on {@code stop} stops sending, waits for the consumer to catch up, and prints
 * {@code RESULT} followed by its figures as JSON. With {@code --records-file}, every measured
 * record's partition, send and acknowledgement times go to that file ({@link RecordTimes}),
 * complete once {@code RESULT} is printed.
 */
public final class ClientDriver {

    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final long PROGRESS_SECONDS = 5;
    private static final int HEADER_BYTES = 2 * Long.BYTES;
    private static final String SLOW_BATCH_SETTING = "fastleader.slow.batch.log.ms";
    private static final int SLOWEST_KEPT = 20;

    private final DriverOptions options;
    private final byte[] key;
    private final Tally tally = new Tally();
    private final ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "driver-sender"));
    private final Producer<byte[], byte[]> producer;
    private final Consumer<byte[], byte[]> consumer;
    private final SentRequests sentRequests;
    private final SlowBatchLog slowBatches;
    private final RecordTimes recordTimes;
    private final ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "driver-progress"));
    private volatile boolean consuming = true;
    private long nextSequence;

    private ClientDriver(DriverOptions options) throws ReflectiveOperationException, IOException {
        this.options = options;
        this.recordTimes = options.recordsFile() == null ? null : RecordTimes.create(options.recordsFile());
        this.key = options.label().getBytes(StandardCharsets.UTF_8);
        String producerId = options.label() + "-producer";
        String consumerId = options.label() + "-consumer";
        // The log is counted from before the clients exist, so that their first requests count too.
        SentRequests logged = options.requestsFrom() == SentRequests.Source.LOG
            ? SentRequests.fromLog(Set.of(producerId, consumerId)) : null;
        // Installed before the producer exists, so that its first slow batch is seen too.
        this.slowBatches = options.clientConfig().containsKey(SLOW_BATCH_SETTING) ? SlowBatchLog.install(SLOWEST_KEPT) : null;
        Map<String, Object> producerConfig = new HashMap<>(options.connection());
        producerConfig.putAll(options.clientConfig());
        producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, producerId);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, options.acks());
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // Idempotence needs acks=all; with acks=1 every variant runs without it alike.
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, options.acks().equals("all"));
        this.producer = construct(options.producerClass(), producerConfig, Serializer.class, new ByteArraySerializer());
        Map<String, Object> consumerConfig = new HashMap<>(options.connection());
        consumerConfig.putAll(options.clientConfig());
        // A producer setting: the consumer would log it as unknown.
        consumerConfig.remove(SLOW_BATCH_SETTING);
        consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, consumerId);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = construct(options.consumerClass(), consumerConfig, Deserializer.class, new ByteArrayDeserializer());
        this.sentRequests = switch (options.requestsFrom()) {
            case LOG -> logged;
            case METRICS -> SentRequests.fromMetrics(producer, consumer);
            case NONE -> Map::of;
        };
    }

    /** Runs one variant; see the class comment for the conversation on standard input and output. */
    public static void main(String[] args) throws Exception {
        new ClientDriver(DriverOptions.parse(args)).run();
    }

    private void run() throws Exception {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int partition = 0; partition < options.partitions(); partition++) {
            partitions.add(new TopicPartition(options.topic(), partition));
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        Thread poller = new Thread(this::consume, "driver-consumer");
        poller.start();
        System.out.println("READY");
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        // An end of input (the coordinator died) counts as stop.
        while ((command = commands.readLine()) != null && !command.trim().equals("stop")) {
            switch (command.trim()) {
                case "start" -> startSending();
                case "measure" -> startMeasuring();
                case "requests" -> System.out.println("REQUESTS " + Tally.object(sentRequests.byApi()));
                default -> System.out.println("unknown command: " + command);
            }
        }
        sender.shutdown();
        sender.awaitTermination(10, TimeUnit.SECONDS);
        producer.flush();
        tally.awaitConsumedAllAcked(CATCH_UP);
        progress.shutdownNow();
        consuming = false;
        poller.join(TimeUnit.SECONDS.toMillis(10));
        Map<String, Double> metrics = Metrics.totals(producer.metrics(), consumer.metrics());
        producer.close(Duration.ofSeconds(10));
        if (recordTimes != null) {
            recordTimes.close();
        }
        System.out.println("RESULT " + tally.toJson(options.label(), metrics, slowBatches == null ? List.of() : slowBatches.slowest()));
        System.out.flush();
    }

    private void startMeasuring() {
        tally.startMeasuring();
        if (slowBatches != null) {
            slowBatches.startMeasuring();
        }
    }

    private void startSending() {
        long periodMicros = Math.max(1, 1_000_000L / options.rate());
        sender.scheduleAtFixedRate(this::sendOne, 0, periodMicros, TimeUnit.MICROSECONDS);
        progress.scheduleAtFixedRate(() -> System.out.println("PROGRESS " + tally.progress()), PROGRESS_SECONDS, PROGRESS_SECONDS,
            TimeUnit.SECONDS);
    }

    private void sendOne() {
        long sequence = nextSequence++;
        ByteBuffer value = ByteBuffer.allocate(Math.max(HEADER_BYTES, options.recordSize()));
        long sentNanos = System.nanoTime();
        long sentMicros = RecordTimes.nowMicros();
        value.putLong(0, sequence).putLong(Long.BYTES, sentNanos);
        int partition = (int) (sequence % options.partitions());
        tally.sent();
        try {
            producer.send(new ProducerRecord<>(options.topic(), partition, key, value.array()), (metadata, exception) -> {
                if (exception == null) {
                    long ackedNanos = System.nanoTime();
                    if (tally.acked(sequence, sentNanos) && recordTimes != null) {
                        // The wall clock places the send; the monotonic clock measures the latency, as in the histogram.
                        recordTimes.write(partition, sentMicros, sentMicros + TimeUnit.NANOSECONDS.toMicros(ackedNanos - sentNanos));
                    }
                } else {
                    tally.failed(exception);
                }
            });
        } catch (RuntimeException e) {
            tally.failed(e);
        }
    }

    private void consume() {
        try {
            while (consuming) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                    if (Arrays.equals(record.key(), key)) {
                        ByteBuffer value = ByteBuffer.wrap(record.value());
                        tally.consumed(value.getLong(0), value.getLong(Long.BYTES));
                    }
                }
            }
        } catch (RuntimeException e) {
            tally.failed(e);
        } finally {
            consumer.close(Duration.ofSeconds(10));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T construct(String className, Map<String, Object> config, Class<?> serdeType, Object serde)
            throws ReflectiveOperationException {
        return (T) Class.forName(className).getConstructor(Map.class, serdeType, serdeType).newInstance(config, serde, serde);
    }
}
