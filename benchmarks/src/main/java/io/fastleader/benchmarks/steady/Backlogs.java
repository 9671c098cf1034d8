package io.fastleader.benchmarks.steady;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.fastleader.benchmarks.driver.RecordValues;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * The topics the consume turns read, one per record size, made on first use: created as a producer
 * turn's topic is, and filled from this JVM by a plain KafkaProducer 4.3.1 (acks=all,
 * {@code linger.ms} {@value #FILL_LINGER_MS}) with unkeyed records of the producer turns' values
 * ({@link RecordValues}). Nothing writes to a backlog once it is filled, so every consume turn of
 * a record size reads the same records. {@link #delete} drops one once the run is done with it,
 * {@link #close} any left.
 */
final class Backlogs implements AutoCloseable {

    private static final int FILL_LINGER_MS = 5;
    private static final long MIB = 1024 * 1024;

    private final KafkaTestCluster cluster;
    private final Disturbances disturbances;
    private final Admin admin;
    private final int mib;
    private final Map<Integer, String> topics = new HashMap<>();

    /** No backlog yet; each will hold {@code mib} MiB of record values. */
    Backlogs(KafkaTestCluster cluster, Disturbances disturbances, Admin admin, int mib) {
        this.cluster = cluster;
        this.disturbances = disturbances;
        this.admin = admin;
        this.mib = mib;
    }

    /** The backlog of {@code recordBytes} records, filled first if it is not yet. */
    String topic(int recordBytes) throws Exception {
        String topic = topics.get(recordBytes);
        if (topic == null) {
            topic = fill(recordBytes);
            topics.put(recordBytes, topic);
        }
        return topic;
    }

    /** Deletes the backlog of {@code recordBytes} records, if there is one. */
    void delete(int recordBytes) {
        String topic = topics.remove(recordBytes);
        if (topic != null) {
            SteadyRun.deleteTopic(admin, topic);
        }
    }

    /** Deletes every backlog left. */
    @Override
    public void close() {
        List.copyOf(topics.keySet()).forEach(this::delete);
    }

    private String fill(int recordBytes) throws Exception {
        String topic = "steady-jvm-backlog-" + recordBytes + "b";
        long records = mib * MIB / recordBytes;
        System.out.printf("filling %s with %,d records of %d B (%d MiB of values)%n", topic, records, recordBytes, mib);
        long started = System.nanoTime();
        disturbances.createTopic(new NewTopic(topic, SteadyRun.PARTITIONS, SteadyRun.REPLICATION_FACTOR));
        try {
            send(topic, recordBytes, records);
        } catch (Exception e) {
            // half a backlog would make the next turn of this size read less than the others
            SteadyRun.deleteTopic(admin, topic);
            throw e;
        }
        System.out.printf("filled %s in %.1f s%n", topic, (System.nanoTime() - started) / 1e9);
        return topic;
    }

    private void send(String topic, int recordBytes, long records) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, FILL_LINGER_MS);
        byte[][] values = RecordValues.of(recordBytes);
        AtomicReference<Exception> firstError = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long n = 0; n < records; n++) {
                producer.send(new ProducerRecord<>(topic, values[(int) (n % values.length)]), (metadata, exception) -> {
                    if (exception != null) {
                        firstError.compareAndSet(null, exception);
                    }
                });
            }
            producer.flush();
        }
        if (firstError.get() != null) {
            throw new IllegalStateException("filling " + topic + " failed: " + firstError.get(), firstError.get());
        }
    }
}
