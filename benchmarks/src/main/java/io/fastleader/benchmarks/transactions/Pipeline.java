package io.fastleader.benchmarks.transactions;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;

import io.fastleader.benchmarks.common.ClientVariant;

/**
 * One variant's consume-transform-produce loop, on a thread of its own: a {@code read_committed}
 * consumer in its own group and a transactional producer, both of the variant's client. Each turn:
 * poll; if records came, begin a transaction, send each record transformed to the output (same
 * key, same partition number, same timestamp; the value gains the input's partition and offset),
 * add the consumer's offsets with {@code sendOffsetsToTransaction(offsets, consumer.groupMetadata())},
 * commit. Every {@code commitTransaction} is timed, from the call to its return (a call repeated
 * after a {@link TimeoutException} counts as part of the same commit).
 *
 * <p>Failures are handled as kafka-clients documents it: an abortable error aborts the transaction
 * and rewinds the consumer to the group's committed offsets; a fatal one (fenced, out of order
 * sequence, authorization, unsupported version), or an abort that fails, closes the producer and
 * starts a new one with the same {@code transactional.id} (whose {@code initTransactions} fences
 * the old one), then rewinds. Every such event is counted; a benchmark run should have none.
 */
final class Pipeline implements AutoCloseable {

    final ClientVariant variant;
    final String input;
    final String output;
    final String group;
    final String transactionalId;
    /** Each commit's latency, at the wall-clock time its {@code commitTransaction} was called. */
    final TimedSamples commits = new TimedSamples();
    /** Each output record's end-to-end latency, at its input record's send time (the output reader adds them). */
    final TimedSamples endToEnd = new TimedSamples();
    /** The feed's send-to-acknowledgement latency of this pipeline's input records, at their send time. */
    final TimedSamples feedAcks = new TimedSamples();
    final AtomicLong committed = new AtomicLong();
    final AtomicLong recordsCommitted = new AtomicLong();
    final AtomicLong aborted = new AtomicLong();
    final AtomicLong producersReplaced = new AtomicLong();
    final AtomicLong commitRetries = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final Map<String, Object> clientConfig;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean initialized;
    private volatile Throwable died;
    private volatile Consumer<byte[], byte[]> consumer;

    Pipeline(Map<String, Object> clientConfig, ClientVariant variant, String prefix, String transactionalId) {
        this.clientConfig = clientConfig;
        this.variant = variant;
        this.input = prefix + "-in-" + variant.label();
        this.output = prefix + "-out-" + variant.label();
        this.group = prefix + "-group-" + variant.label();
        this.transactionalId = transactionalId;
        this.thread = new Thread(this::loop, prefix + "-" + variant.label());
    }

    /** The output record of {@code input}: same key, value = the input's value (its send time), its partition and offset. */
    static byte[] transform(ConsumerRecord<byte[], byte[]> input) {
        return ByteBuffer.allocate(input.value().length + Integer.BYTES + Long.BYTES)
            .put(input.value()).putInt(input.partition()).putLong(input.offset()).array();
    }

    /** The send time of the input record an output value (or an input value) carries first. */
    static long sentAtMs(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }

    void start() {
        thread.start();
    }

    /** Whether the producer has finished {@code initTransactions} and the loop runs. */
    boolean initialized() {
        return initialized;
    }

    /** What ended the loop other than {@link #close}, or null. */
    Throwable died() {
        return died;
    }

    /** The first error the loop met (and handled), or null. */
    String firstError() {
        return firstError.get();
    }

    private Producer<byte[], byte[]> newProducer() {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId + "-" + producersReplaced.get());
        Producer<byte[], byte[]> producer = variant.producer(config);
        producer.initTransactions();
        return producer;
    }

    private void loop() {
        Producer<byte[], byte[]> producer = null;
        try {
            Map<String, Object> config = new HashMap<>(clientConfig);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, group);
            consumer = variant.consumer(config);
            consumer.subscribe(List.of(input));
            producer = newProducer();
            initialized = true;
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    producer.beginTransaction();
                    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                    for (ConsumerRecord<byte[], byte[]> record : records) {
                        producer.send(new ProducerRecord<>(output, record.partition(), record.timestamp(), record.key(), transform(record)));
                        offsets.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
                    }
                    producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                    long startMs = System.currentTimeMillis();
                    long start = System.nanoTime();
                    commit(producer);
                    commits.add(startMs, (System.nanoTime() - start) / 1_000);
                    committed.incrementAndGet();
                    recordsCommitted.addAndGet(records.count());
                } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException | UnsupportedVersionException e) {
                    noted(e);
                    producer = replace(producer);
                    rewind();
                } catch (WakeupException e) {
                    throw e;
                } catch (KafkaException e) {
                    noted(e);
                    try {
                        producer.abortTransaction();
                        aborted.incrementAndGet();
                    } catch (KafkaException abortFailed) {
                        noted(abortFailed);
                        producer = replace(producer);
                    }
                    rewind();
                }
            }
        } catch (WakeupException e) {
            if (running) {
                died = e;
            }
        } catch (Throwable e) {
            died = e;
            System.err.printf("%s: the pipeline DIED: %s%n", variant.label(), e);
            e.printStackTrace();
        } finally {
            if (producer != null) {
                closeQuietly(producer);
            }
            if (consumer != null) {
                try {
                    consumer.close(Duration.ofSeconds(10));
                } catch (RuntimeException e) {
                    noted(e);
                }
            }
        }
    }

    /** Commits, calling again after a {@link TimeoutException} as the API allows, while the benchmark runs. */
    private void commit(Producer<byte[], byte[]> producer) {
        while (true) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                commitRetries.incrementAndGet();
                noted(e);
                if (!running) {
                    throw e;
                }
            }
        }
    }

    private Producer<byte[], byte[]> replace(Producer<byte[], byte[]> producer) {
        closeQuietly(producer);
        producersReplaced.incrementAndGet();
        return newProducer();
    }

    private void closeQuietly(Producer<byte[], byte[]> producer) {
        try {
            producer.close(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            noted(e);
        }
    }

    /** Sets every assigned partition back to the group's committed offset, so what was aborted is read again. */
    private void rewind() {
        Set<TopicPartition> assigned = consumer.assignment();
        Map<TopicPartition, OffsetAndMetadata> offsets = consumer.committed(assigned);
        for (TopicPartition partition : assigned) {
            OffsetAndMetadata offset = offsets.get(partition);
            if (offset == null) {
                consumer.seekToBeginning(List.of(partition));
            } else {
                consumer.seek(partition, offset.offset());
            }
        }
    }

    private void noted(Exception e) {
        firstError.compareAndSet(null, e.toString());
    }

    /** Stops the loop (a commit under way finishes first) and closes the clients. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        Consumer<byte[], byte[]> polling = consumer;
        if (polling != null) {
            polling.wakeup();
        }
        thread.join(90_000);
        if (thread.isAlive()) {
            System.err.printf("%s: the pipeline did not stop within 90 s (HANG?)%n", variant.label());
        }
    }
}
