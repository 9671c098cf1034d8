package io.fastleader.it.producer;

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

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Await;

/**
 * A {@link FastLeaderProducer} sending numbered records round-robin over a topic's partitions at
 * a fixed rate from one thread, remembering the order each partition's records were sent in,
 * where each acknowledged record landed, and every failure.
 */
final class ProducingLoop implements AutoCloseable {

    private static final int RECORDS_PER_TICK = 10;

    private final FastLeaderProducer<String, String> producer;
    private final String topic;
    private final int partitions;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "producing-loop"));
    private final AtomicLong sent = new AtomicLong();
    private final Map<TopicPartition, List<String>> sentInOrder = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Map<Long, String>> acked = new ConcurrentHashMap<>();
    private final AtomicLong ackedCount = new AtomicLong();
    private final ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();

    /** Starts sending {@code recordsPerSecond} records; {@code overrides} go on top of acks=all and idempotence. */
    ProducingLoop(Map<String, Object> clientConfig, Map<String, Object> overrides, String topic, int partitions,
                  int recordsPerSecond) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.putAll(overrides);
        this.producer = new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
        this.topic = topic;
        this.partitions = partitions;
        long tickMicros = 1_000_000L * RECORDS_PER_TICK / recordsPerSecond;
        ticker.scheduleAtFixedRate(this::sendTick, 0, tickMicros, TimeUnit.MICROSECONDS);
    }

    private void sendTick() {
        for (int i = 0; i < RECORDS_PER_TICK; i++) {
            long number = sent.get();
            String value = "record-" + number;
            TopicPartition partition = new TopicPartition(topic, (int) (number % partitions));
            sentInOrder.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
            producer.send(new ProducerRecord<>(topic, partition.partition(), value, value), (metadata, exception) -> {
                if (exception != null) {
                    failures.add(exception);
                } else {
                    acked.computeIfAbsent(partition, p -> new ConcurrentHashMap<>()).put(metadata.offset(), value);
                    ackedCount.incrementAndGet();
                }
            });
            sent.incrementAndGet();
        }
    }

    long ackedCount() {
        return ackedCount.get();
    }

    long sentCount() {
        return sent.get();
    }

    /** Returns once {@code count} more records than now have been acknowledged. */
    void awaitMoreAcks(long count) {
        long target = ackedCount() + count;
        Await.until(count + " more acknowledgements", Duration.ofSeconds(120), () -> ackedCount() >= target);
    }

    /** Stops sending and waits until every record sent was acknowledged or failed. */
    void stopAndFlush() throws InterruptedException {
        ticker.shutdown();
        if (!ticker.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the producing loop did not stop");
        }
        producer.flush();
    }

    /** Each partition's records in the order they were sent. Read after {@link #stopAndFlush}. */
    Map<TopicPartition, List<String>> sentInOrder() {
        return sentInOrder;
    }

    /** Every acknowledged record: partition, then offset to value. */
    Map<TopicPartition, Map<Long, String>> acked() {
        return acked;
    }

    List<Exception> failures() {
        return List.copyOf(failures);
    }

    /** The value of the producer's metric {@code name} in {@code group}, summed over its tags. */
    double metric(String group, String name) {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> entry : producer.metrics().entrySet()) {
            if (entry.getKey().group().equals(group) && entry.getKey().name().equals(name)) {
                sum += ((Number) entry.getValue().metricValue()).doubleValue();
            }
        }
        return sum;
    }

    FastLeaderProducer<String, String> producer() {
        return producer;
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        producer.close(Duration.ofSeconds(30));
    }
}
