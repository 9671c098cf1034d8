package io.fastleader.it.transactions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.CommitFailedException;
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
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.it.parity.Flavour;

/**
 * A consume-transform-produce application, as an exactly-once application is written: a group of
 * members, each a {@code read_committed} consumer without auto-commit and a producer with a
 * transactional id of its own, copying an input topic to an output topic one transaction per
 * {@code poll}. Each input record becomes {@link #copy(ConsumerRecord) its copy}, with the same key.
 * An abortable error aborts the transaction and seeks back to the group's committed offsets; a
 * fenced producer or a commit refused for the group's generation rebuilds the member, as its
 * successor would be started.
 *
 * <p>The test paces the copy by counts: members copy only while fewer input records than
 * {@link #allow allowed} have been committed (their partitions are paused otherwise, and they go on
 * polling), so the stages of a roll each see transactions under way however fast the machine is.
 */
public final class CopyPipeline implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CopyPipeline.class);
    private static final Duration POLL = Duration.ofMillis(100);
    /** Calls that time out are called again (a timed-out commit must be), this many times in all. */
    private static final int ATTEMPTS = 5;

    private final String name;
    private final String input;
    private final String output;
    private final List<Member> members = new ArrayList<>();
    private final AtomicLong committed = new AtomicLong();
    private final Map<String, AtomicLong> events = new ConcurrentHashMap<>();
    private final Set<Throwable> failures = ConcurrentHashMap.newKeySet();
    private volatile long allowed;

    /**
     * Starts {@code memberCount} members of the group {@code name} copying {@code input} to
     * {@code output}; they copy nothing until {@link #allow} lets them.
     *
     * @param clientConfig the cluster's client settings and any client keys of the test's (both clients get them)
     */
    public CopyPipeline(String name, Flavour flavour, Map<String, Object> clientConfig, String input, String output, int memberCount) {
        this.name = name;
        this.input = input;
        this.output = output;
        for (int i = 1; i <= memberCount; i++) {
            members.add(new Member(name + "-member-" + i, flavour, clientConfig));
        }
        members.forEach(member -> member.thread.start());
    }

    /** The copy of an input record: its value, and the partition and offset it was read at. */
    public static String copy(ConsumerRecord<String, String> record) {
        return record.value() + " from " + record.partition() + "@" + record.offset();
    }

    public String name() {
        return name;
    }

    public String group() {
        return name;
    }

    /** The members' transactional ids, one each. */
    public List<String> transactionalIds() {
        return members.stream().map(member -> member.name).toList();
    }

    /** Lets the members copy until {@code records} input records were committed in all. */
    public void allow(long records) {
        allowed = records;
    }

    /** Input records whose transaction committed. */
    public long committed() {
        return committed.get();
    }

    /** Exceptions that stopped a member: none is expected. */
    public Set<Throwable> failures() {
        return failures;
    }

    /** What happened how often: transactions committed and aborted, members rebuilt, by the exception's class. */
    public Map<String, AtomicLong> events() {
        return events;
    }

    /** Stops every member after its transaction in progress, and closes its clients. */
    @Override
    public void close() throws InterruptedException {
        members.forEach(Member::stop);
        for (Member member : members) {
            member.thread.join(TimeUnit.SECONDS.toMillis(60));
            if (member.thread.isAlive()) {
                failures.add(new IllegalStateException(member.name + " did not stop within 60 s"));
            }
        }
    }

    private void count(String event) {
        events.computeIfAbsent(event, e -> new AtomicLong()).incrementAndGet();
    }

    /** One member: its clients, rebuilt after they were fenced, on a thread of its own. */
    private final class Member {
        private final String name;
        private final Flavour flavour;
        private final Map<String, Object> consumerConfig = new HashMap<>();
        private final Map<String, Object> producerConfig = new HashMap<>();
        private final Thread thread;
        private volatile Consumer<String, String> consumer;
        private volatile boolean stopping;

        Member(String name, Flavour flavour, Map<String, Object> clientConfig) {
            this.name = name;
            this.flavour = flavour;
            consumerConfig.putAll(clientConfig);
            consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, group());
            consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            consumerConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            // Small transactions: many of them begin and commit while a broker shuts down.
            consumerConfig.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50);
            // The classic protocol's session and heartbeat are the client's: seconds, not the defaults' 45.
            consumerConfig.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
            consumerConfig.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
            producerConfig.putAll(clientConfig);
            producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, name);
            producerConfig.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, name);
            producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
            this.thread = new Thread(this::run, name);
        }

        void stop() {
            stopping = true;
            Consumer<String, String> running = consumer;
            if (running != null) {
                running.wakeup();
            }
        }

        private void run() {
            while (!stopping) {
                Consumer<String, String> built = flavour.consumer(consumerConfig);
                consumer = built;
                Producer<String, String> producer = flavour.producer(producerConfig);
                try {
                    attempt("initTransactions", producer::initTransactions);
                    built.subscribe(List.of(input));
                    copyUntilStopped(built, producer);
                } catch (ProducerFencedException | CommitFailedException | Rebuild e) {
                    count("rebuilt after " + e.getClass().getSimpleName());
                    LOG.info("{} rebuilt: {}", name, e.toString());
                } catch (WakeupException stopped) {
                    // stop() woke a poll up.
                } catch (Throwable e) {
                    LOG.warn("{} failed", name, e);
                    failures.add(e);
                    return;
                } finally {
                    producer.close(Duration.ofSeconds(20));
                    built.close(Duration.ofSeconds(20));
                }
            }
        }

        private void copyUntilStopped(Consumer<String, String> consumer, Producer<String, String> producer) {
            while (!stopping) {
                if (committed.get() < allowed) {
                    consumer.resume(consumer.paused());
                } else {
                    consumer.pause(consumer.assignment());
                }
                ConsumerRecords<String, String> records = consumer.poll(POLL);
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    producer.beginTransaction();
                    for (ConsumerRecord<String, String> record : records) {
                        producer.send(new ProducerRecord<>(output, record.key(), copy(record)));
                    }
                    attempt("sendOffsetsToTransaction", () -> producer.sendOffsetsToTransaction(next(records), consumer.groupMetadata()));
                    attempt("commitTransaction", producer::commitTransaction);
                    committed.addAndGet(records.count());
                    count("committed");
                } catch (ProducerFencedException | CommitFailedException e) {
                    throw e;
                } catch (KafkaException e) {
                    // Abortable: nothing of this transaction is visible; read its records again.
                    count("aborted after " + e.getClass().getSimpleName());
                    LOG.info("{} aborts: {}", name, e.toString());
                    abort(producer, e);
                    seekToCommitted(consumer);
                }
            }
        }

        /**
         * Aborts after {@code failure}. A producer that cannot abort was in a fatal state already
         * (say, fenced, and {@code failure} said so in other words): it is rebuilt.
         */
        private void abort(Producer<String, String> producer, KafkaException failure) {
            try {
                attempt("abortTransaction", producer::abortTransaction);
            } catch (KafkaException e) {
                LOG.info("{} cannot abort after {}: {}", name, failure, e.toString());
                count("abort failed with " + e.getClass().getSimpleName());
                throw new Rebuild(e);
            }
        }

        /** Each partition's offset past its last record in {@code records}. */
        private Map<TopicPartition, OffsetAndMetadata> next(ConsumerRecords<String, String> records) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition partition : records.partitions()) {
                List<ConsumerRecord<String, String>> of = records.records(partition);
                offsets.put(partition, new OffsetAndMetadata(of.get(of.size() - 1).offset() + 1));
            }
            return offsets;
        }

        /** Back to the group's committed offsets (the beginning where none is), as after an aborted transaction. */
        private void seekToCommitted(Consumer<String, String> consumer) {
            Set<TopicPartition> assigned = consumer.assignment();
            Map<TopicPartition, OffsetAndMetadata> offsets = consumer.committed(assigned);
            List<TopicPartition> none = new ArrayList<>();
            for (TopicPartition partition : assigned) {
                OffsetAndMetadata offset = offsets.get(partition);
                if (offset == null) {
                    none.add(partition);
                } else {
                    consumer.seek(partition, offset);
                }
            }
            consumer.seekToBeginning(none);
        }

        /** Runs a blocking call again after it timed out, as {@code KafkaProducer} asks of {@code initTransactions} and {@code commitTransaction}. */
        private void attempt(String call, Runnable blocking) {
            for (int attempt = 1; ; attempt++) {
                try {
                    blocking.run();
                    return;
                } catch (TimeoutException e) {
                    count(call + " timed out");
                    LOG.info("{}: {} timed out (attempt {}): {}", name, call, attempt, e.toString());
                    if (attempt == ATTEMPTS) {
                        throw e;
                    }
                }
            }
        }
    }

    /** A member's producer could not go on: it is rebuilt, as after being fenced. */
    private static final class Rebuild extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Rebuild(KafkaException cause) {
            super(cause);
        }
    }
}
