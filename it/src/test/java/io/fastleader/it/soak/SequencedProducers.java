package io.fastleader.it.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

import io.fastleader.it.parity.Flavour;

/**
 * Producers of keyed records that carry a sequence number per key ({@code <key>#<seq>}), each on
 * a thread of its own at a steady rate, keeping every acknowledgement (partition and offset) for
 * the read-back. With {@code acks=all} and idempotence the read-back asserts every acknowledged
 * record present once, at its acknowledged offset, in per-key order; with {@code acks=1} it counts
 * what was lost.
 */
final class SequencedProducers {

    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
    /** A producer that fell this far behind its rate (blocked in send) starts its pace again instead of bursting. */
    private static final long MAX_CATCH_UP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final String topic;
    private final boolean idempotent;
    private final List<Sender> senders = new ArrayList<>();
    private final Progress progress = new Progress();
    private final Map<TopicPartition, Map<Long, String>> acked = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> sendFailures = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acknowledgements = new AtomicLong();
    /** Records acknowledged at an offset another record was acknowledged at before: one of the two is lost. */
    private final AtomicLong offsetsAcknowledgedTwice = new AtomicLong();
    private volatile boolean stopping;

    /**
     * @param acks              {@code all} (with idempotence, five requests in flight) or {@code 1} (without)
     * @param recordsPerSecond  each producer's rate
     */
    SequencedProducers(String name, Flavour flavour, Map<String, Object> clientConfig, String topic, String acks,
                       int producers, int keysPerProducer, int recordsPerSecond) {
        this.name = name;
        this.topic = topic;
        this.idempotent = acks.equals("all");
        for (int i = 1; i <= producers; i++) {
            Map<String, Object> config = new HashMap<>(clientConfig);
            String clientId = name + "-" + i;
            config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
            config.put(ProducerConfig.ACKS_CONFIG, acks);
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
            config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            senders.add(new Sender(clientId, flavour.producer(config), keysPerProducer, recordsPerSecond));
        }
    }

    String name() {
        return name;
    }

    String topic() {
        return topic;
    }

    Progress progress() {
        return progress;
    }

    void start() {
        progress.begin(System.currentTimeMillis());
        senders.forEach(sender -> sender.thread.start());
    }

    /** Stops sending, then closes every producer (which sends what it holds first), timed. */
    void stop(Closes closes) throws InterruptedException {
        stopping = true;
        for (Sender sender : senders) {
            sender.thread.join(TimeUnit.MINUTES.toMillis(2));
            closes.close(sender.clientId, CLOSE_TIMEOUT, sender.producer::close);
        }
    }

    /** Every acknowledged record: partition, then offset to value. */
    Map<TopicPartition, Map<Long, String>> acked() {
        return acked;
    }

    /**
     * Checks the topic's log against the acknowledgements (each offset's first: a second record
     * acknowledged at the same offset counts as missing). Idempotent producers must have every
     * acknowledged record once, at its offset, in per-key order, and no failed send; for the
     * others what was lost, duplicated or reordered is counted, not asserted.
     */
    void verify(Map<TopicPartition, Map<Long, String>> log, Findings findings) {
        // The second of two records acknowledged at one offset is not in the log there.
        long missing = offsetsAcknowledgedTwice.get();
        for (Map.Entry<TopicPartition, Map<Long, String>> partition : acked.entrySet()) {
            Map<Long, String> logged = log.getOrDefault(partition.getKey(), Map.of());
            for (Map.Entry<Long, String> ack : partition.getValue().entrySet()) {
                if (!ack.getValue().equals(logged.get(ack.getKey()))) {
                    missing++;
                }
            }
        }
        Map<String, Integer> occurrences = new HashMap<>();
        Map<String, Long> lastSequence = new HashMap<>();
        long outOfOrder = 0;
        for (Map<Long, String> partition : log.values()) {
            for (String value : new TreeMap<>(partition).values()) {
                occurrences.merge(value, 1, Integer::sum);
                int hash = value.lastIndexOf('#');
                String key = value.substring(0, hash);
                long sequence = Long.parseLong(value.substring(hash + 1));
                Long last = lastSequence.put(key, sequence);
                if (last != null && sequence <= last) {
                    outOfOrder++;
                }
            }
        }
        long duplicated = occurrences.values().stream().filter(count -> count > 1).count();
        long failed = sendFailures.values().stream().mapToLong(AtomicLong::get).sum();
        findings.figure(name, "sent", sent.get());
        findings.figure(name, "acknowledged", acknowledgements.get());
        findings.figure(name, "failed sends", failed == 0 ? "0" : failed + " " + sendFailures);
        findings.figure(name, idempotent ? "acknowledged missing" : "acknowledged lost (counted, not asserted)", missing);
        findings.figure(name, "records logged twice or more", duplicated);
        findings.figure(name, "records out of per-key order", outOfOrder);
        if (idempotent) {
            findings.check(name, missing == 0, missing + " acknowledged records are not in the log at their acknowledged offset");
            findings.check(name, duplicated == 0, duplicated + " records are in the log more than once");
            findings.check(name, outOfOrder == 0, outOfOrder + " records are out of their key's send order");
            findings.check(name, failed == 0, "sends failed: " + sendFailures);
        }
    }

    /** One producer and the thread that paces its sends. */
    private final class Sender {
        private final String clientId;
        private final Producer<String, String> producer;
        private final Thread thread;
        private final long[] sequences;
        private final long periodNanos;

        Sender(String clientId, Producer<String, String> producer, int keys, int recordsPerSecond) {
            this.clientId = clientId;
            this.producer = producer;
            this.sequences = new long[keys];
            this.periodNanos = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
            this.thread = new Thread(this::run, "soak-" + clientId);
        }

        private void run() {
            long due = System.nanoTime();
            for (long n = 0; !stopping; n++) {
                int key = (int) (n % sequences.length);
                String keyName = clientId + "-k" + key;
                send(keyName, keyName + "#" + sequences[key]++);
                due += periodNanos;
                long now = System.nanoTime();
                if (now - due > MAX_CATCH_UP_NANOS) {
                    due = now;
                }
                LockSupport.parkNanos(due - now);
            }
        }

        private void send(String key, String value) {
            sent.incrementAndGet();
            try {
                producer.send(new ProducerRecord<>(topic, key, value), (metadata, exception) -> {
                    if (exception != null) {
                        failed(exception);
                        return;
                    }
                    acknowledgements.incrementAndGet();
                    String before = acked.computeIfAbsent(new TopicPartition(metadata.topic(), metadata.partition()), p -> new ConcurrentHashMap<>())
                        .putIfAbsent(metadata.offset(), value);
                    if (before != null) {
                        offsetsAcknowledgedTwice.incrementAndGet();
                    }
                    progress.step(System.currentTimeMillis());
                });
            } catch (RuntimeException e) {
                failed(e);
            }
        }

        private void failed(Exception exception) {
            sendFailures.computeIfAbsent(exception.getClass().getSimpleName(), e -> new AtomicLong()).incrementAndGet();
        }
    }
}
