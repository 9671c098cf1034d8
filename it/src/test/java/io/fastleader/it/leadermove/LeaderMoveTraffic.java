package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.AckedRecords;
import io.fastleader.it.cluster.ReadBack;
import io.fastleader.it.cluster.SteadyProducer;
import io.fastleader.it.consumer.BackgroundConsumer;
import io.fastleader.it.consumer.Consumption;

/**
 * A {@link FastLeaderProducer} and a {@link io.fastleader.clients.consumer.FastLeaderConsumer}
 * working one topic together while the test moves its leaders: the producer sends numbered
 * records round-robin at a fixed rate (acks=all, idempotent), the consumer reads every partition
 * from the beginning on a thread of its own.
 *
 * <p>Traffic runs in phases. {@link #finishPhase()} stops the producer's phase and proves what
 * users care about: every record sent was acknowledged and is in the log exactly once, in send
 * order per partition, and the consumer handed out exactly that log. Both clients stay open
 * across phases, so a later phase shows how they carry on after the disturbance.
 * {@link #close()} proves that no client thread outlives the clients.
 */
final class LeaderMoveTraffic implements AutoCloseable {

    /** Records per second the producer sends in each phase. */
    static final int RECORDS_PER_SECOND = 1000;

    /** Records acknowledged and consumed that show the traffic is flowing. */
    private static final int PROGRESS = 300;

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, Object> clusterConfig;
    private final String topic;
    private final Set<TopicPartition> partitions;
    private final Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
    private final FastLeaderProducer<String, String> producer;
    private final BackgroundConsumer consumer;
    private SteadyProducer phase;
    /** Each partition's end offset when the phase started: where the phase's records begin. */
    private Map<TopicPartition, Long> phaseStart;

    /**
     * Starts both clients on {@code partitionCount} partitions of {@code topic}: the consumer reads
     * them all from the beginning; the producer waits for {@link #startPhase}.
     *
     * @param clusterConfig the cluster's client config (bootstrap servers, security)
     * @param overrides     settings for both clients on top of the cluster's and the defaults
     */
    LeaderMoveTraffic(Map<String, Object> clusterConfig, String topic, int partitionCount, Map<String, Object> overrides) {
        this(clusterConfig, clusterConfig, topic, partitionCount, overrides);
    }

    /**
     * As {@link #LeaderMoveTraffic(Map, String, int, Map)}, with fastleader's clients connecting
     * as {@code clientConfig} says (through a proxy, say) and the checks reading the log as
     * {@code clusterConfig} says.
     */
    LeaderMoveTraffic(Map<String, Object> clientConfig, Map<String, Object> clusterConfig, String topic, int partitionCount,
                      Map<String, Object> overrides) {
        this.clusterConfig = clusterConfig;
        this.topic = topic;
        this.partitions = partitions(topic, partitionCount);
        Map<String, Object> producerConfig = new HashMap<>(clientConfig);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerConfig.putAll(overrides);
        producer = new FastLeaderProducer<>(producerConfig, new StringSerializer(), new StringSerializer());
        Map<String, Object> consumerConfig = new HashMap<>(clientConfig);
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.putAll(overrides);
        consumer = new BackgroundConsumer(consumerConfig, this.partitions);
    }

    /** Starts producing round-robin to partitions 0 .. {@code partitionsWithTraffic} - 1, the others left idle. */
    void startPhase(int partitionsWithTraffic) {
        phaseStart = ReadBack.endOffsets(clusterConfig, partitions);
        phase = SteadyProducer.sharing(producer, topic, partitionsWithTraffic, RECORDS_PER_SECOND);
    }

    /** Returns once records are being acknowledged and consumed in this phase. */
    void awaitProgress() {
        phase.awaitMoreAcks(PROGRESS);
        consumer.awaitMoreConsumed(PROGRESS);
    }

    /**
     * Runs {@code disturbance} once traffic flows, and returns what it returned once traffic flows
     * again afterwards: records are acknowledged and consumed right up to it and after it. Whether
     * any record is sent while it runs depends on how long it takes: on a simulated cluster, less
     * than the time between two records.
     */
    <T> T whileFlowing(Supplier<T> disturbance) {
        awaitProgress();
        T result = disturbance.get();
        awaitProgress();
        return result;
    }

    /** {@link #whileFlowing(Supplier)} for a disturbance that returns nothing. */
    void whileFlowing(Runnable disturbance) {
        whileFlowing(() -> {
            disturbance.run();
            return null;
        });
    }

    /**
     * Stops producing, waits for every record of the phase to be acknowledged or fail, and checks
     * the phase end to end.
     *
     * @return what the consumer handed out in the phase
     * @throws AssertionError if a record failed, is missing, duplicated or out of order in the log,
     *                        or the consumer handed out anything but exactly the log
     */
    Consumption finishPhase() throws InterruptedException {
        phase.stopAndFlush();
        phase.close();
        Map<TopicPartition, Map<Long, String>> log = ReadBack.readAll(clusterConfig, partitions);
        Map<TopicPartition, Map<Long, String>> written = new HashMap<>();
        log.forEach((partition, records) ->
                written.put(partition, new TreeMap<>(records).tailMap(phaseStart.getOrDefault(partition, 0L))));
        AckedRecords.assertWrittenOnceInSendOrder(phase, written);
        Consumption consumed = consumer.finishAt(Consumption.endsOf(log, partitions));
        consumed.assertExactly(written);
        return consumed;
    }

    /**
     * Runs a phase with records for every partition and checks, besides what {@link #finishPhase}
     * checks, that each partition's records reached the consumer: after a disturbance, partitions
     * that were idle through it work too.
     */
    void assertEveryPartitionDelivers() throws InterruptedException {
        startPhase(partitions.size());
        awaitProgress();
        Consumption consumed = finishPhase();
        partitions.forEach(partition -> assertThat(consumed.of(partition)).as("records of %s consumed", partition).isNotEmpty());
    }

    /** The producer's metric {@code name} in {@code group}, summed over the tag sets that include {@code tags}. */
    double producerMetric(String group, String name, Map<String, String> tags) {
        return Consumption.metric(producer.metrics(), group, name, tags);
    }

    /** The consumer's metric {@code name} in {@code group}, summed over the tag sets that include {@code tags}. */
    double consumerMetric(String group, String name, Map<String, String> tags) {
        return Consumption.metric(consumer.metrics(), group, name, tags);
    }

    /** Closes both clients, then checks that none of their threads is left. */
    @Override
    public void close() throws InterruptedException {
        if (phase != null) {
            phase.close();
        }
        // Bounded, so that a test failing on stuck records reports that rather than its timeout.
        producer.close(CLOSE_TIMEOUT);
        consumer.close();
        List<String> left = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !threadsBefore.contains(thread) && thread.isAlive() && thread.getName().startsWith("fastleader-"))
                .map(Thread::getName)
                .toList();
        assertThat(left).as("client threads alive after close").isEmpty();
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        Set<TopicPartition> partitions = new HashSet<>();
        for (int i = 0; i < count; i++) {
            partitions.add(new TopicPartition(topic, i));
        }
        return partitions;
    }
}
