package io.fastleader.it.cluster;

import java.time.Duration;
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
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * kafka-clients' own producer sending numbered records at a fixed rate in the background
 * (acks=all, idempotent), remembering where each acknowledged record landed and every failure.
 */
final class SteadyProducer implements AutoCloseable {

    private static final int RECORDS_PER_TICK = 10;

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "steady-producer"));
    private final AtomicLong sent = new AtomicLong();
    private final Map<TopicPartition, Map<Long, String>> acked = new ConcurrentHashMap<>();
    private final AtomicLong ackedCount = new AtomicLong();
    private final ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();

    /** Starts sending {@code recordsPerSecond} records to {@code topic}. */
    SteadyProducer(Map<String, Object> clientConfig, String topic, int recordsPerSecond) {
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
        this.producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        this.topic = topic;
        long tickMicros = 1_000_000L * RECORDS_PER_TICK / recordsPerSecond;
        ticker.scheduleAtFixedRate(this::sendTick, 0, tickMicros, TimeUnit.MICROSECONDS);
    }

    private void sendTick() {
        for (int i = 0; i < RECORDS_PER_TICK; i++) {
            String value = "record-" + sent.getAndIncrement();
            producer.send(new ProducerRecord<>(topic, value, value), (metadata, exception) -> {
                if (exception != null) {
                    failures.add(exception);
                } else {
                    acked.computeIfAbsent(new TopicPartition(topic, metadata.partition()), tp -> new ConcurrentHashMap<>())
                        .put(metadata.offset(), value);
                    ackedCount.incrementAndGet();
                }
            });
        }
    }

    /** Records acknowledged so far. */
    long ackedCount() {
        return ackedCount.get();
    }

    /** Returns once {@code count} more records than now have been acknowledged. */
    void awaitMoreAcks(long count) {
        long target = ackedCount() + count;
        Await.until(count + " more acknowledgements", Duration.ofSeconds(120), () -> ackedCount() >= target);
    }

    /** Stops sending and waits for every record in flight to be acknowledged or fail. */
    void stopAndFlush() throws InterruptedException {
        ticker.shutdown();
        if (!ticker.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("producer ticker did not stop");
        }
        producer.flush();
    }

    long sentCount() {
        return sent.get();
    }

    /** Every acknowledged record: partition, then offset to value. */
    Map<TopicPartition, Map<Long, String>> acked() {
        return acked;
    }

    List<Exception> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        producer.close(Duration.ofSeconds(30));
    }
}
