package io.fastleader.benchmarks.simulated;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.sim.LoggedRecord;
import io.fastleader.it.sim.SimulatedCluster;

/**
 * A {@link SimulatedCluster} with producers connected, for timing leader moves on the simulated
 * side. {@code topics} topics of {@code partitionsPerTopic} partitions (RF 3) over
 * {@code brokers} brokers; the leaders of the first {@code movedTopics} topics move, each to the
 * replica after it, at every {@link #move()}. {@code clients} producers, FastLeaderProducer and
 * KafkaProducer 4.3.1 alternately (acks=all, idempotent, linger 0), share those topics: client
 * {@code c} writes partition {@code p} of every moved topic where {@code p % clients == c}, so
 * together they write every moved partition, each partition from one client, and each client
 * asks Metadata for every moved topic.
 *
 * <p>One round: {@link #move()}, then {@link #produceAndAwaitAppends()}: each client sends one
 * record to each of its partitions, and the call returns once every one of those records is in
 * its partition's log; {@link #checkLedByNewLeaders()} then checks that each was appended under
 * the epoch of the move, that is at the new leader.
 */
public final class ProducingCluster implements AutoCloseable {

    /** A bound on a round that hangs, never a figure. */
    private static final long ROUND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** How long the poll for appends parks between passes, leaving the cores to the cluster and the clients. */
    private static final long POLL_PARK_NANOS = 20_000;

    private final SimulatedCluster cluster;
    private final List<String> movedTopics = new ArrayList<>();
    private final List<Producer<String, String>> clients = new ArrayList<>();
    /** Each client's partitions, in send order. */
    private final List<List<TopicPartition>> written = new ArrayList<>();
    private final SimulationThreads simulationThreads;
    private Map<TopicPartition, Integer> lastEpochs = Map.of();
    private long round;

    /**
     * Starts the cluster and the clients, and has each client produce once to each of its
     * partitions, so every client is connected with its metadata known before the first move.
     */
    public ProducingCluster(int brokers, int topics, int movedTopics, int partitionsPerTopic, int clients) {
        if (movedTopics > topics || clients > partitionsPerTopic) {
            throw new IllegalArgumentException("moved topics " + movedTopics + " of " + topics + ", " + clients
                + " clients for " + partitionsPerTopic + " partitions a topic");
        }
        cluster = SimulatedCluster.builder().brokers(brokers).requestLogCapacity(0).start();
        for (int t = 0; t < topics; t++) {
            String topic = String.format("topic-%04d", t);
            cluster.createTopic(topic, partitionsPerTopic, 3);
            if (t < movedTopics) {
                this.movedTopics.add(topic);
            }
        }
        simulationThreads = SimulationThreads.of(cluster);
        for (int c = 0; c < clients; c++) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : this.movedTopics) {
                for (int p = c; p < partitionsPerTopic; p += clients) {
                    partitions.add(new TopicPartition(topic, p));
                }
            }
            written.add(partitions);
            this.clients.add(producer(c % 2 == 0));
        }
        produceAndAwaitAppends();
    }

    private Producer<String, String> producer(boolean fastleader) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.brokerAddress(0));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // bounds on a hang, never reached in a round
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        StringSerializer serializer = new StringSerializer();
        return fastleader ? new FastLeaderProducer<>(config, serializer, serializer) : new KafkaProducer<>(config, serializer, serializer);
    }

    /**
     * Moves the leader of every partition of the moved topics to the replica after it, at once
     * ({@link SimulatedCluster#moveLeaders}).
     *
     * @return how many partitions moved
     */
    public int move() {
        Map<TopicPartition, Integer> rotation = new LinkedHashMap<>();
        for (String topic : movedTopics) {
            rotation.putAll(cluster.nextReplicas(topic));
        }
        lastEpochs = cluster.moveLeaders(rotation);
        return lastEpochs.size();
    }

    /**
     * Each client sends one record to each of its partitions; returns once every record of the
     * round is in its partition's log (each partition's high watermark one further: only one
     * client writes it).
     *
     * @return for each client, in order, the nanoseconds from this call until its last record of
     *         the round was seen in the log
     * @throws IllegalStateException if the records are not all appended within 60 s
     */
    public long[] produceAndAwaitAppends() {
        round++;
        long started = System.nanoTime();
        long[][] ends = new long[clients.size()][];
        for (int c = 0; c < clients.size(); c++) {
            List<TopicPartition> partitions = written.get(c);
            ends[c] = new long[partitions.size()];
            for (int i = 0; i < partitions.size(); i++) {
                ends[c][i] = cluster.highWatermark(partitions.get(i)) + 1;
            }
        }
        AtomicReferenceArray<Exception> failures = new AtomicReferenceArray<>(clients.size());
        for (int c = 0; c < clients.size(); c++) {
            Producer<String, String> client = clients.get(c);
            int index = c;
            for (TopicPartition tp : written.get(c)) {
                client.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, "round-" + round), (metadata, e) -> {
                    if (e != null) {
                        failures.compareAndSet(index, null, e);
                    }
                });
            }
        }
        long deadline = started + ROUND_TIMEOUT_NANOS;
        long[] appended = new long[clients.size()];
        int[] next = new int[clients.size()];
        int clientsLeft = clients.size();
        while (clientsLeft > 0) {
            for (int c = 0; c < clients.size(); c++) {
                List<TopicPartition> partitions = written.get(c);
                if (next[c] == partitions.size()) {
                    continue;
                }
                // up to the client's first partition still short; the others are checked on a later pass
                while (next[c] < partitions.size() && cluster.highWatermark(partitions.get(next[c])) >= ends[c][next[c]]) {
                    next[c]++;
                }
                if (next[c] == partitions.size()) {
                    appended[c] = System.nanoTime() - started;
                    clientsLeft--;
                }
            }
            if (clientsLeft > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(notAppended(next, failures));
                }
                LockSupport.parkNanos(POLL_PARK_NANOS);
            }
        }
        return appended;
    }

    /** Which clients' records of this round are not all appended: the first partition short and the client's first send error. */
    private String notAppended(int[] next, AtomicReferenceArray<Exception> failures) {
        StringBuilder message = new StringBuilder("records of round " + round + " not all appended within 60 s:");
        for (int c = 0; c < clients.size(); c++) {
            if (next[c] < written.get(c).size()) {
                message.append(" client ").append(c).append(isFastleader(c) ? " (FastLeaderProducer)" : " (KafkaProducer)")
                    .append(" at ").append(written.get(c).get(next[c])).append(", first send error: ").append(failures.get(c));
            }
        }
        return message.toString();
    }

    /** Whether client {@code index} is a FastLeaderProducer (the others are KafkaProducers). */
    public boolean isFastleader(int index) {
        return clients.get(index) instanceof FastLeaderProducer;
    }

    /**
     * Checks that each moved partition's last record is this round's, appended under the epoch
     * the last {@link #move()} gave it.
     *
     * @throws IllegalStateException naming the first partition where it is not
     */
    public void checkLedByNewLeaders() {
        lastEpochs.forEach((tp, epoch) -> {
            List<LoggedRecord> log = cluster.records(tp);
            LoggedRecord last = log.get(log.size() - 1);
            if (last.leaderEpoch() != epoch || !last.valueString().equals("round-" + round)) {
                throw new IllegalStateException(tp + "'s last record " + last + " is not round " + round + "'s at epoch " + epoch);
            }
        });
    }

    /** CPU time the cluster's own threads (its network and timer threads) have used so far, in nanoseconds. */
    public long simulationThreadsCpuNanos() {
        return simulationThreads.cpuNanos();
    }

    /** Partitions moved at each {@link #move()}. */
    public int movedPartitions() {
        return written.stream().mapToInt(List::size).sum();
    }

    @Override
    public void close() {
        clients.forEach(Producer::close);
        cluster.close();
    }
}
