package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A producer sending numbered records at a fixed rate in the background from one thread,
 * remembering where each acknowledged record landed and every failure: kafka-clients' own
 * (acks=all, idempotent), or any {@link Producer} given to it, such as fastleader's. Given a
 * partition count it sends round-robin over the partitions and remembers each partition's send
 * order, for checks of ordering.
 */
public final class SteadyProducer implements AutoCloseable {

    private static final int RECORDS_PER_TICK = 10;

    private final Producer<String, String> producer;
    private final boolean closesProducer;
    private final String topic;
    private final int partitions;
    private final Map<TopicPartition, List<String>> sentInOrder = new ConcurrentHashMap<>();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "steady-producer"));
    private final AtomicLong sent = new AtomicLong();
    private final Map<TopicPartition, Map<Long, String>> acked = new ConcurrentHashMap<>();
    private final AtomicLong ackedCount = new AtomicLong();
    private final ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();

    /** Starts sending {@code recordsPerSecond} records to {@code topic} with kafka-clients' producer. */
    SteadyProducer(Map<String, Object> clientConfig, String topic, int recordsPerSecond) {
        this(kafkaProducer(clientConfig), topic, 0, recordsPerSecond);
    }

    /**
     * Starts sending {@code recordsPerSecond} records round-robin over {@code partitions} partitions
     * of {@code topic} with kafka-clients' producer, configured as for the fixtures' own tests.
     */
    public static SteadyProducer kafkaClients(Map<String, Object> clientConfig, String topic, int partitions, int recordsPerSecond) {
        return new SteadyProducer(kafkaProducer(clientConfig), topic, partitions, recordsPerSecond);
    }

    private static KafkaProducer<String, String> kafkaProducer(Map<String, Object> clientConfig) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        // One request in flight per connection. With the default five, kafka-clients 4.3.1 was
        // seen here to strand partitions right after topic creation: a partition's first batch
        // came back NOT_LEADER_OR_FOLLOWER after a later batch had already been appended, and its
        // retries failed OUT_OF_ORDER_SEQUENCE_NUMBER until the delivery timeout. These tests
        // prove the fixtures, not that client behaviour.
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /**
     * Starts sending {@code recordsPerSecond} records to {@code topic} with {@code producer}, which
     * it closes on close.
     *
     * @param partitions 0 lets the producer partition (by key); otherwise record n goes to partition n % partitions
     */
    public SteadyProducer(Producer<String, String> producer, String topic, int partitions, int recordsPerSecond) {
        this(producer, true, topic, partitions, recordsPerSecond);
    }

    /**
     * Starts sending {@code recordsPerSecond} records round-robin over {@code partitions}
     * partitions of {@code topic} with {@code producer}, which stays open on close: one phase of
     * a test that goes on producing with it afterwards.
     */
    public static SteadyProducer sharing(Producer<String, String> producer, String topic, int partitions, int recordsPerSecond) {
        return new SteadyProducer(producer, false, topic, partitions, recordsPerSecond);
    }

    private SteadyProducer(Producer<String, String> producer, boolean closesProducer, String topic, int partitions,
                           int recordsPerSecond) {
        this.producer = producer;
        this.closesProducer = closesProducer;
        this.topic = topic;
        this.partitions = partitions;
        long tickMicros = 1_000_000L * RECORDS_PER_TICK / recordsPerSecond;
        ticker.scheduleAtFixedRate(this::sendTick, 0, tickMicros, TimeUnit.MICROSECONDS);
    }

    private void sendTick() {
        for (int i = 0; i < RECORDS_PER_TICK; i++) {
            long number = sent.get();
            String value = "record-" + number;
            Integer partition = partitions == 0 ? null : (int) (number % partitions);
            if (partition != null) {
                sentInOrder.computeIfAbsent(new TopicPartition(topic, partition), tp -> new ArrayList<>()).add(value);
            }
            producer.send(new ProducerRecord<>(topic, partition, value, value), (metadata, exception) -> {
                if (exception != null) {
                    failures.add(exception);
                } else {
                    acked.computeIfAbsent(new TopicPartition(topic, metadata.partition()), tp -> new ConcurrentHashMap<>())
                        .put(metadata.offset(), value);
                    ackedCount.incrementAndGet();
                }
            });
            // Counted once handed over, so a record counted as sent has its callback coming.
            sent.incrementAndGet();
        }
    }

    /** Records acknowledged so far. */
    public long ackedCount() {
        return ackedCount.get();
    }

    /** Returns once {@code count} more records than now have been acknowledged. */
    public void awaitMoreAcks(long count) {
        long target = ackedCount() + count;
        Await.until(count + " more acknowledgements", Duration.ofSeconds(120), () -> ackedCount() >= target);
    }

    /** Stops sending and waits for every record in flight to be acknowledged or fail. */
    public void stopAndFlush() throws InterruptedException {
        ticker.shutdown();
        if (!ticker.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("producer ticker did not stop");
        }
        producer.flush();
    }

    public long sentCount() {
        return sent.get();
    }

    /** Every acknowledged record: partition, then offset to value. */
    public Map<TopicPartition, Map<Long, String>> acked() {
        return acked;
    }

    public List<Exception> failures() {
        return List.copyOf(failures);
    }

    /** With a partition count: each partition's records in the order they were sent. Read after {@link #stopAndFlush}. */
    public Map<TopicPartition, List<String>> sentInOrder() {
        return sentInOrder;
    }

    /** The producer's metric {@code name} in {@code group}, summed over its tags. */
    public double metric(String group, String name) {
        return producer.metrics().entrySet().stream()
            .filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(name))
            .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
            .sum();
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        if (closesProducer) {
            producer.close(Duration.ofSeconds(30));
        }
    }
}
