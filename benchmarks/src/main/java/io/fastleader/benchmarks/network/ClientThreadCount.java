package io.fastleader.benchmarks.network;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.sim.SimulatedCluster;

/**
 * How many platform threads fastleader clients hold once connected to every broker of a large
 * simulated cluster. Prints one line of counts.
 *
 * <p>A {@link SimulatedCluster} of {@code brokers} brokers gets one topic of {@code brokers}
 * partitions (RF 3), so every broker leads one. Each FastLeaderProducer writes one record to every
 * partition; each FastLeaderConsumer (assigned every partition, no group) polls until it has read
 * them all. By then every client has connections to every broker (a consumer two: Fetch and the
 * rest). Once the clients' {@code connection-count} total has stayed the same for a second, the
 * JVM's live platform threads are counted ({@code ThreadMXBean}, which from Java 21 counts platform
 * threads only: virtual threads are not in it, their carriers are), and those named
 * {@code fastleader-*}; then both again after every client is closed.
 *
 * <p>Arguments: {@code producers} (default 5), {@code consumers} (default 5), {@code brokers}
 * (default 100).
 */
public final class ClientThreadCount {

    private static final String TOPIC = "threads";
    /** A bound on a run that hangs, never a figure. */
    private static final long SETUP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);
    /** How long the connection count must stay unchanged before threads are counted. */
    private static final Duration SETTLED = Duration.ofSeconds(1);

    private ClientThreadCount() {
    }

    public static void main(String[] args) throws Exception {
        int producers = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int consumers = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int brokers = args.length > 2 ? Integer.parseInt(args[2]) : 100;

        try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(brokers).requestLogCapacity(0).start()) {
            cluster.createTopic(TOPIC, brokers, 3);
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < brokers; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            int before = platformThreads();
            List<FastLeaderProducer<String, String>> producerClients = new ArrayList<>();
            List<FastLeaderConsumer<String, String>> consumerClients = new ArrayList<>();
            long deadline = System.nanoTime() + SETUP_TIMEOUT_NANOS;
            try {
                for (int i = 0; i < producers; i++) {
                    FastLeaderProducer<String, String> producer = producer(cluster);
                    producerClients.add(producer);
                    for (TopicPartition partition : partitions) {
                        producer.send(new ProducerRecord<>(TOPIC, partition.partition(), null, "from producer " + i));
                    }
                    producer.flush();
                }
                for (int i = 0; i < consumers; i++) {
                    FastLeaderConsumer<String, String> consumer = consumer(cluster);
                    consumerClients.add(consumer);
                    consumer.assign(partitions);
                    Set<Integer> read = new HashSet<>();
                    while (read.size() < partitions.size()) {
                        requireBefore(deadline, "consumer " + i + " read " + read.size() + " of " + partitions.size() + " partitions");
                        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                            read.add(record.partition());
                        }
                    }
                }
                long connections = awaitSettledConnections(producerClients, consumerClients, deadline);
                int connected = platformThreads();
                long ours = fastleaderPlatformThreads();
                Map<String, Long> kinds = fastleaderThreadKinds();
                closeAll(producerClients, consumerClients);
                System.out.printf("Java %d: %d producers + %d consumers on %d brokers, "
                        + "%d connections; platform threads: %d before the clients, %d connected (%d named fastleader-*), "
                        + "%d after close (%d named fastleader-*)%n", Runtime.version().feature(), producers,
                    consumers, brokers, connections, before, connected, ours, platformThreads(), fastleaderPlatformThreads());
                System.out.println("connected, fastleader-* threads by kind: " + kinds);
            } finally {
                closeAll(producerClients, consumerClients);
            }
        }
    }

    private static FastLeaderProducer<String, String> producer(SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static FastLeaderConsumer<String, String> consumer(SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    /**
     * Waits until the clients' connections, opened ahead of need in the background, have stopped
     * changing in number for {@link #SETTLED}, and returns that number.
     */
    private static long awaitSettledConnections(List<FastLeaderProducer<String, String>> producers,
                                                List<FastLeaderConsumer<String, String>> consumers,
                                                long deadline) throws InterruptedException {
        long count = connections(producers, consumers);
        long unchangedSince = System.nanoTime();
        while (System.nanoTime() - unchangedSince < SETTLED.toNanos()) {
            requireBefore(deadline, "the connection count settled (now " + count + ")");
            TimeUnit.MILLISECONDS.sleep(100);
            long now = connections(producers, consumers);
            if (now != count) {
                count = now;
                unchangedSince = System.nanoTime();
            }
        }
        return count;
    }

    private static long connections(List<FastLeaderProducer<String, String>> producers,
                                    List<FastLeaderConsumer<String, String>> consumers) {
        long total = 0;
        for (FastLeaderProducer<String, String> producer : producers) {
            total += connectionCount(producer.metrics());
        }
        for (FastLeaderConsumer<String, String> consumer : consumers) {
            total += connectionCount(consumer.metrics());
        }
        return total;
    }

    private static long connectionCount(Map<MetricName, ? extends Metric> metrics) {
        return metrics.entrySet().stream()
            .filter(metric -> metric.getKey().name().equals("connection-count"))
            .mapToLong(metric -> ((Number) metric.getValue().metricValue()).longValue())
            .sum();
    }

    /** Live platform threads: from Java 21 {@code ThreadMXBean} does not count virtual threads. */
    private static int platformThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** Live platform threads of fastleader's clients ({@code getAllStackTraces} lists no virtual thread). */
    private static long fastleaderPlatformThreads() {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith("fastleader-"))
            .count();
    }

    /** fastleader's live threads counted by name with its numbers masked, so each kind is one entry. */
    private static Map<String, Long> fastleaderThreadKinds() {
        return Thread.getAllStackTraces().keySet().stream()
            .map(Thread::getName)
            .filter(name -> name.startsWith("fastleader-"))
            .collect(Collectors.groupingBy(name -> name.replaceAll("[0-9]+", "N"), TreeMap::new, Collectors.counting()));
    }

    private static void closeAll(List<FastLeaderProducer<String, String>> producers,
                                 List<FastLeaderConsumer<String, String>> consumers) {
        producers.forEach(FastLeaderProducer::close);
        producers.clear();
        consumers.forEach(FastLeaderConsumer::close);
        consumers.clear();
    }

    private static void requireBefore(long deadline, String what) {
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("not done within " + TimeUnit.NANOSECONDS.toSeconds(SETUP_TIMEOUT_NANOS)
                + " s: " + what);
        }
    }
}
