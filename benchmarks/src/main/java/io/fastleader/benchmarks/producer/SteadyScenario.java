package io.fastleader.benchmarks.producer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.Payload;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The {@code steady} scenario: each client in turn sends unkeyed records as fast as one thread
 * can call {@code send} (acks=all, every other setting at its default, so batching is the
 * default's: {@code linger.ms} 5, {@code batch.size} 16384, the uniform sticky partitioner) to a
 * fresh 6-partition topic with replication factor 3. After a warm-up, the acknowledgements and
 * the CPU used in a fixed window give records/s and CPU per record. Clients take turns, and the
 * turn order alternates from one repetition to the next, so neither always meets a colder JVM; a
 * first round, not kept, warms the brokers up.
 * Each topic is deleted after its turn, which keeps the brokers' disks small.
 *
 * @param cluster      the brokers
 * @param disturbances creates the topics (and, for reassign, moves their leaders)
 * @param options      sizes and durations
 */
record SteadyScenario(KafkaTestCluster cluster, Disturbances disturbances, BenchmarkOptions options) {

    static final int PARTITIONS = 6;
    static final List<ClientVariant> CLIENTS = List.of(ClientVariant.FASTLEADER, ClientVariant.KAFKA_CLIENTS);

    /** Every client's turn in every repetition, in the order they ran. */
    List<SteadyResult> run() throws InterruptedException {
        List<SteadyResult> results = new ArrayList<>();
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            // Round 0 is not kept: it only warms the brokers (and both clients' code) up, so that
            // the first measured turn does not meet brokers still being compiled.
            for (int repetition = 0; repetition <= options.steadyRepetitions(); repetition++) {
                List<ClientVariant> order = new ArrayList<>(CLIENTS);
                if (repetition % 2 == 0) {
                    Collections.reverse(order);
                }
                for (int turn = 0; turn < order.size(); turn++) {
                    SteadyResult result = turn(admin, order.get(turn), repetition, turn + 1);
                    if (repetition > 0) {
                        results.add(result);
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("deleting a steady topic failed: " + e.getCause(), e.getCause());
        }
        return results;
    }

    private SteadyResult turn(Admin admin, ClientVariant client, int repetition, int turn) throws InterruptedException, ExecutionException {
        String topic = "steady-" + repetition + "-" + client.label();
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3));
        SteadyResult result = measure(client, topic, repetition, turn);
        System.out.printf("steady  %-20s %s turn %d: %,.0f records/s, %.1f µs client CPU/record, %.1f µs process CPU/record%n",
            client.label(), repetition == 0 ? "warm-up round (not kept)" : "repetition " + repetition, turn, result.recordsPerSecond(),
            result.clientCpuMicrosPerRecord(), result.processCpuMicrosPerRecord());
        admin.deleteTopics(List.of(topic)).all().get();
        return result;
    }

    private SteadyResult measure(ClientVariant client, String topic, int repetition, int turn) throws InterruptedException {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "steady-" + repetition + "-" + client.label());
        byte[] value = Payload.value(options.recordBytes());
        AtomicLong acked = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        try (Producer<byte[], byte[]> producer = client.producer(config)) {
            Thread sender = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        producer.send(new ProducerRecord<>(topic, value), (metadata, exception) -> {
                            if (exception == null) {
                                acked.incrementAndGet();
                            } else {
                                errors.incrementAndGet();
                            }
                        });
                    } catch (RuntimeException e) {
                        // An interrupt while send waits for buffer memory ends the loop; anything else is an error.
                        if (Thread.currentThread().isInterrupted()) {
                            return;
                        }
                        errors.incrementAndGet();
                    }
                }
            }, "benchmark-steady-sender");
            sender.start();
            Thread.sleep(options.steadyWarmUp().toMillis());
            CpuClock cpu = CpuClock.start(client, sender);
            long ackedBefore = acked.get();
            long start = System.nanoTime();
            Thread.sleep(options.steadyDuration().toMillis());
            CpuClock.Elapsed used = cpu.elapsed();
            long records = acked.get() - ackedBefore;
            double seconds = (System.nanoTime() - start) / 1e9;
            sender.interrupt();
            sender.join(Duration.ofSeconds(30).toMillis());
            producer.flush();
            return new SteadyResult(client.label(), repetition, turn, records, seconds, records / seconds,
                used.clientNanos() / 1e3 / records, used.processNanos() / 1e3 / records, errors.get());
        }
    }

    /**
     * One client's turn.
     *
     * @param client                    the client's label
     * @param repetition                which repetition, from 1
     * @param turn                      its turn in that repetition, from 1
     * @param records                   records acknowledged in the measured window
     * @param seconds                   length of the window
     * @param recordsPerSecond          {@code records / seconds}
     * @param clientCpuMicrosPerRecord  CPU of the client's threads and its sending thread, per record
     * @param processCpuMicrosPerRecord CPU of the whole JVM (brokers included), per record
     * @param errors                    records that failed, in the whole turn
     */
    record SteadyResult(String client, int repetition, int turn, long records, double seconds, double recordsPerSecond,
                        double clientCpuMicrosPerRecord, double processCpuMicrosPerRecord, long errors) {
    }
}
