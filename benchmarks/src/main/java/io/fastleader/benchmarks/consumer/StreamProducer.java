package io.fastleader.benchmarks.consumer;

import java.util.HashMap;
import java.util.Map;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.FixedRate;
import io.fastleader.benchmarks.common.Payload;
import io.fastleader.benchmarks.common.SendCounts;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The stream every consumer reads: one kafka-clients KafkaProducer sending records numbered 0, 1,
 * 2, ... (the number is the key, so the records spread over every partition) at a fixed rate,
 * acks=all, linger.ms=0, idempotence on. The producer stamps each record's CreateTime in
 * {@code send}. Remembers which numbers were acknowledged, and when ({@link System#nanoTime}).
 */
final class StreamProducer implements AutoCloseable {

    static final String CLIENT_ID = "consumer-benchmark-producer";

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final int rate;
    private final byte[] value;
    private final SendCounts counts = new SendCounts();
    private final LongColumn sendMillis = new LongColumn();
    private final LongColumn sendNanos = new LongColumn();
    private final LongColumn ackNanos = new LongColumn();
    private final LongColumn partitions = new LongColumn();
    private final LongColumn offsets = new LongColumn();
    private FixedRate ticker;

    StreamProducer(Map<String, Object> clusterConfig, String topic, ConsumerBenchmarkOptions options) {
        Map<String, Object> config = new HashMap<>(clusterConfig);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, CLIENT_ID);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, options.producerInFlight());
        this.producer = ClientVariant.KAFKA_CLIENTS.producer(config);
        this.topic = topic;
        this.rate = options.rate();
        this.value = Payload.value(options.recordBytes());
    }

    /** Starts sending. */
    void start() {
        ticker = FixedRate.start("benchmark-stream-producer", rate, this::sendNext);
    }

    private void sendNext() {
        long n = counts.sent();
        sendMillis.set(n, System.currentTimeMillis());
        sendNanos.set(n, System.nanoTime());
        counts.send(producer, new ProducerRecord<>(topic, Payload.key(n), value), metadata -> {
            ackNanos.set(n, System.nanoTime());
            partitions.set(n, metadata.partition());
            offsets.set(n, metadata.offset());
        });
    }

    /** Stops sending and waits until every record sent is acknowledged or failed. */
    void stop() throws InterruptedException {
        ticker.stop();
        producer.flush();
    }

    /** What became of the records sent so far; they are numbered 0 to {@code counts().sent()} less one. */
    SendCounts counts() {
        return counts;
    }

    /** When record {@code n} was given to {@code send}, wall clock ms (its CreateTime, give or take a millisecond). */
    long sendMillis(long n) {
        return sendMillis.get(n);
    }

    /** When record {@code n} was given to {@code send}, {@link System#nanoTime}. */
    long sendNanos(long n) {
        return sendNanos.get(n);
    }

    /** When record {@code n} was acknowledged ({@link System#nanoTime}), {@link LongColumn#NONE} if it was not. */
    long ackNanos(long n) {
        return ackNanos.get(n);
    }

    /** Where record {@code n} was written, as {@code partition@offset}, for naming a missing or duplicated record. */
    String position(long n) {
        return partitions.get(n) == LongColumn.NONE ? "not acknowledged" : partitions.get(n) + "@" + offsets.get(n);
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.close();
        }
        producer.close();
    }
}
