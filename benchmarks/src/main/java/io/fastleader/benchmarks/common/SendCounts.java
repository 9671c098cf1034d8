package io.fastleader.benchmarks.common;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends through a producer and counts what became of each record: sent, acknowledged, failed
 * (the callback's exception or {@code send} throwing), and the first failure. One thread sends;
 * any thread reads.
 */
public final class SendCounts {

    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();

    /** Sends {@code record}; {@code onAck} runs in the producer's callback once it is acknowledged. */
    public <K, V> void send(Producer<K, V> producer, ProducerRecord<K, V> record, Consumer<RecordMetadata> onAck) {
        try {
            producer.send(record, (metadata, exception) -> {
                if (exception != null) {
                    failed(exception);
                    return;
                }
                acked.incrementAndGet();
                onAck.accept(metadata);
            });
        } catch (RuntimeException e) {
            failed(e);
        }
        sent.incrementAndGet();
    }

    private void failed(Exception e) {
        failed.incrementAndGet();
        firstError.compareAndSet(null, e.toString());
    }

    /** Records given to {@link #send} so far. */
    public long sent() {
        return sent.get();
    }

    /** Records acknowledged so far. */
    public long acked() {
        return acked.get();
    }

    /** Records failed so far. */
    public long failed() {
        return failed.get();
    }

    /** The first failure, null if none. */
    public String firstError() {
        return firstError.get();
    }
}
