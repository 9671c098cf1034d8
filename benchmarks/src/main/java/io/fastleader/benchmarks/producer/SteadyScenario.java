package io.fastleader.benchmarks.producer;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * can call {@code send} (acks=all, the uniform sticky partitioner, {@code batch.size} 16384) to a
 * fresh 6-partition topic with replication factor 3, once for every {@link SteadyCell cell} of the
 * grid (record size, {@code linger.ms}, {@code max.in.flight.requests.per.connection}). After a
 * warm-up, the acknowledgements and the CPU used in a fixed window give records/s and CPU per
 * record. Clients take turns, and the turn order alternates from one round to the next, so
 * neither always meets a colder JVM; a first round on the first cell, not kept, warms the brokers
 * up. Each topic is deleted after its turn, which keeps the brokers' disks small. With a profile
 * directory, every kept turn's window is recorded by JDK Flight Recorder.
 *
 * @param cluster      the brokers
 * @param disturbances creates the topics (and, for reassign, moves their leaders)
 * @param options      the grid, sizes, durations and profile directory
 */
record SteadyScenario(KafkaTestCluster cluster, Disturbances disturbances, BenchmarkOptions options) {

    static final int PARTITIONS = 6;
    static final List<ClientVariant> CLIENTS = List.of(ClientVariant.FASTLEADER, ClientVariant.KAFKA_CLIENTS);
    /** The thread that calls {@code send}; counted as the client's in CPU and profiles. */
    static final String SENDER_THREAD = "benchmark-steady-sender";
    private static final int HOT_FRAMES_PRINTED = 8;

    /**
     * Every client once on one cell.
     *
     * @param number     counts the rounds of the run from 0, the warm-up round
     * @param cell       what every client of the round sends with
     * @param repetition of this cell, from 1; 0 for the warm-up round, which is not kept
     */
    record Round(int number, SteadyCell cell, int repetition) {

        /** The clients in turn order: fastleader first in odd rounds, kafka-clients first in even ones. */
        List<ClientVariant> order() {
            List<ClientVariant> order = new ArrayList<>(CLIENTS);
            if (number % 2 == 0) {
                Collections.reverse(order);
            }
            return order;
        }

        /** Whether its turns are kept; the warm-up round's are not. */
        boolean kept() {
            return repetition > 0;
        }
    }

    /**
     * The rounds of a run: a warm-up round on the first cell, then {@code repetitions} rounds of
     * each cell in turn. Numbered through the whole run, so the order alternates across cells
     * too, and every cell sees both orders when {@code repetitions} is even.
     */
    static List<Round> rounds(List<SteadyCell> cells, int repetitions) {
        List<Round> rounds = new ArrayList<>();
        rounds.add(new Round(0, cells.get(0), 0));
        for (SteadyCell cell : cells) {
            for (int repetition = 1; repetition <= repetitions; repetition++) {
                rounds.add(new Round(rounds.size(), cell, repetition));
            }
        }
        return List.copyOf(rounds);
    }

    /** Every client's turn in every kept round, in the order they ran. */
    List<SteadyResult> run() throws InterruptedException, IOException {
        List<SteadyResult> results = new ArrayList<>();
        List<SteadyCell> grid = options.steadyGrid();
        List<Round> rounds = rounds(grid, options.steadyRepetitions());
        long turnSeconds = options.steadyWarmUp().plus(options.steadyDuration()).toSeconds();
        System.out.printf("steady: %d cells x %d repetitions after a warm-up round: %d turns of %d s sending (%.1f min, plus topics and producers)%n",
            grid.size(), options.steadyRepetitions(), rounds.size() * CLIENTS.size(), turnSeconds,
            rounds.size() * CLIENTS.size() * turnSeconds / 60.0);
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            for (Round round : rounds) {
                List<ClientVariant> order = round.order();
                for (int turn = 0; turn < order.size(); turn++) {
                    SteadyResult result = turn(admin, order.get(turn), round, turn + 1);
                    if (round.kept()) {
                        results.add(result);
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("deleting a steady topic failed: " + e.getCause(), e.getCause());
        }
        return results;
    }

    private SteadyResult turn(Admin admin, ClientVariant client, Round round, int turn)
        throws InterruptedException, IOException, ExecutionException {
        String name = "steady-" + round.number() + "-" + round.cell().name() + "-" + client.label();
        disturbances.createTopic(new NewTopic(name, PARTITIONS, (short) 3));
        SteadyResult result = measure(client, name, round, turn);
        System.out.printf("steady  %-20s %s, %s turn %d: %,.0f records/s, %.1f µs client CPU/record, %.1f µs process CPU/record%n",
            client.label(), round.cell().name(), round.kept() ? "repetition " + round.repetition() : "warm-up round (not kept)", turn,
            result.recordsPerSecond(), result.clientCpuMicrosPerRecord(), result.processCpuMicrosPerRecord());
        if (result.profile() != null) {
            System.out.println("  profile " + result.profile() + "; the client's hottest methods:");
            HotFrames.read(Path.of(result.profile()), HotFrames.STEADY_CLIENT_THREADS).print(System.out, HOT_FRAMES_PRINTED);
        }
        admin.deleteTopics(List.of(name)).all().get();
        return result;
    }

    /** Sends to {@code topic} as {@code name} (its client id too), measuring the window after the warm-up. */
    private SteadyResult measure(ClientVariant client, String name, Round round, int turn) throws InterruptedException {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, round.cell().lingerMs());
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, round.cell().maxInFlight());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, name);
        byte[] value = Payload.value(round.cell().recordBytes());
        AtomicLong acked = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        try (Producer<byte[], byte[]> producer = client.producer(config)) {
            Thread sender = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        producer.send(new ProducerRecord<>(name, value), (metadata, exception) -> {
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
            }, SENDER_THREAD);
            sender.start();
            Thread.sleep(options.steadyWarmUp().toMillis());
            Optional<TurnRecording> recording = round.kept() && options.profileJfr() != null
                ? Optional.of(TurnRecording.start(options.profileJfr().resolve(name + ".jfr")))
                : Optional.empty();
            CpuClock cpu = CpuClock.start(client, sender);
            long ackedBefore = acked.get();
            long start = System.nanoTime();
            Thread.sleep(options.steadyDuration().toMillis());
            CpuClock.Elapsed used = cpu.elapsed();
            long records = acked.get() - ackedBefore;
            double seconds = (System.nanoTime() - start) / 1e9;
            Optional<Path> profile = recording.map(TurnRecording::stop);
            sender.interrupt();
            sender.join(Duration.ofSeconds(30).toMillis());
            producer.flush();
            return new SteadyResult(round.cell(), client.label(), round.repetition(), turn, records, seconds, records / seconds,
                used.clientNanos() / 1e3 / records, used.processNanos() / 1e3 / records, errors.get(),
                profile.map(Path::toString).orElse(null));
        }
    }

    /**
     * One client's turn.
     *
     * @param cell                      what it sent with
     * @param client                    the client's label
     * @param repetition                which repetition of its cell, from 1
     * @param turn                      its turn in that repetition, from 1
     * @param records                   records acknowledged in the measured window
     * @param seconds                   length of the window
     * @param recordsPerSecond          {@code records / seconds}
     * @param clientCpuMicrosPerRecord  CPU of the client's threads and its sending thread, per record
     * @param processCpuMicrosPerRecord CPU of the whole JVM (brokers included), per record
     * @param errors                    records that failed, in the whole turn
     * @param profile                   the JDK Flight Recorder file of the window, or null when not profiled
     */
    record SteadyResult(SteadyCell cell, String client, int repetition, int turn, long records, double seconds, double recordsPerSecond,
                        double clientCpuMicrosPerRecord, double processCpuMicrosPerRecord, long errors,
                        String profile) {
    }
}
