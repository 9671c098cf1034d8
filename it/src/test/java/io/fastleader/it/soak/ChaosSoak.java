package io.fastleader.it.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.utils.AppInfoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.NetworkModel;
import io.fastleader.it.parity.Flavour;

/**
 * The chaos soak: every workload of both libraries at once ({@link Lane}) on one cluster of
 * child-JVM brokers, through faults drawn from a seed ({@link Fault}) one at a time with recovery
 * between, then a drain and the read-back. The first faults are every kind once, in a seeded
 * order, however long they take; the rest are drawn at random until the run's time is up.
 *
 * <p>The seed fixes what the faults are, their targets and durations, and the churn's choices; it
 * cannot fix how the clients' threads interleave with them, so a replay repeats the schedule, not
 * every byte.
 */
final class ChaosSoak {

    private static final Logger LOG = LoggerFactory.getLogger(ChaosSoak.class);

    static final int BROKERS = 3;
    /** Between two faults, once recovered: long enough for the workloads to show they run again. */
    private static final int QUIET_MIN_MS = 2_000;
    private static final int QUIET_MAX_MS = 5_000;
    /** Growth allowed between the snapshot before the workloads and the one after they closed. */
    static final int THREADS_ALLOWED = 10;
    static final long FILE_DESCRIPTORS_ALLOWED = 50;
    static final long HEAP_ALLOWED_BYTES = 64L * 1024 * 1024;
    private static final Duration RESOURCES_SETTLE_TIMEOUT = Duration.ofSeconds(60);

    /** A fault as it was applied: what it did, when it began, ended, and when the cluster had recovered. */
    record Applied(Fault fault, String what, long startMs, long endMs, long recoveredMs) {
    }

    /** What a run found, and its report. */
    record Result(List<String> failures, String report) {
    }

    private final SoakSettings settings;
    private final Random random;
    private final List<Applied> applied = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final Closes closes = new Closes();

    ChaosSoak(SoakSettings settings) {
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    Result run() throws InterruptedException {
        try (KafkaTestCluster cluster = ClusterSpec.builder()
                .brokers(BROKERS)
                .execution(Execution.CHILD_JVM)
                // C1 only: a broker restarted on two cores shared with every client is back sooner (about 28 s, not 41).
                .brokerJvmOption(ClusterSpec.C1_ONLY)
                // Relays in front of every broker's client listener, so faults can slow or cut them.
                .network(NetworkModel.loopback().withClientRtt(Duration.ofMillis(1)))
                // KIP-848 sessions: a killed member's partitions wait out 10 s, not the default 45 s.
                .brokerConfig("group.consumer.min.session.timeout.ms", "6000")
                .brokerConfig("group.consumer.session.timeout.ms", "10000")
                .brokerConfig("group.consumer.min.heartbeat.interval.ms", "1000")
                .brokerConfig("group.consumer.heartbeat.interval.ms", "1000")
                // Coordinators' logs of 10 partitions, not 50: less to replicate and to load after each move on two cores.
                .brokerConfig("offsets.topic.num.partitions", "10")
                .brokerConfig("transaction.state.log.num.partitions", "10")
                .start()) {
            Map<Flavour, Findings> findings = new LinkedHashMap<>();
            Map<Flavour, Map<String, Progress.Stall>> stalls = new LinkedHashMap<>();
            Resources before;
            try (Disturbances disturbances = new Disturbances(cluster);
                 Admin admin = Admin.create(cluster.clientConfig())) {
                List<String> topics = new ArrayList<>();
                for (Flavour flavour : Flavour.values()) {
                    for (NewTopic topic : Lane.topics(flavour)) {
                        disturbances.createTopic(topic);
                        topics.add(topic.name());
                    }
                }
                before = Resources.now();
                runLanes(cluster, disturbances, admin, topics, findings, stalls);
            }
            // Taken once the harness's own admin clients are closed too: each connection they hold
            // keeps a relay link's threads alive, and which brokers they reach varies with the faults.
            Resources after = awaitSettled(before);
            checkResources(before, after);
            List<String> failed = allFailures(findings);
            String report = new SoakReport(settings, cluster.kafkaVersion(), AppInfoParser.getVersion(), applied, findings, stalls,
                closes, before, after, failed).render();
            return new Result(failed, report);
        }
    }

    private void runLanes(KafkaTestCluster cluster, Disturbances disturbances, Admin admin, List<String> topics,
                          Map<Flavour, Findings> findings, Map<Flavour, Map<String, Progress.Stall>> stalls) throws InterruptedException {
        List<Lane> lanes = startLanes(cluster.clientConfig());
        Chaos chaos = new Chaos(cluster, disturbances, admin, topics, lanes);
        applyFaults(chaos);
        LOG.info("faults over; draining");
        for (Lane lane : lanes) {
            lane.stopProducers();
        }
        for (Lane lane : lanes) {
            try {
                lane.awaitDrained(admin);
            } catch (RuntimeException e) {
                failures.add(lane.flavour() + " did not drain: " + e.getMessage());
            }
        }
        for (Lane lane : lanes) {
            lane.close();
        }
        for (Lane lane : lanes) {
            findings.put(lane.flavour(), lane.verify());
            stalls.put(lane.flavour(), lane.stalls());
        }
    }

    /**
     * Builds and starts both lanes on a thread of lower priority ({@link ClientPriority}), so every
     * client thread has it, while this thread, which restarts the brokers, keeps its own.
     */
    private List<Lane> startLanes(Map<String, Object> clientConfig) throws InterruptedException {
        List<Lane> lanes = new ArrayList<>();
        List<Long> seeds = List.of(random.nextLong(), random.nextLong());
        RuntimeException[] failed = new RuntimeException[1];
        Thread starter = new Thread(() -> {
            ClientPriority.lowerThisThread();
            try {
                for (Flavour flavour : Flavour.values()) {
                    lanes.add(new Lane(flavour, clientConfig, new Random(seeds.get(flavour.ordinal())), closes));
                }
                lanes.forEach(Lane::start);
            } catch (RuntimeException e) {
                failed[0] = e;
            }
        }, "soak-clients");
        starter.start();
        starter.join();
        if (failed[0] != null) {
            throw failed[0];
        }
        return lanes;
    }

    /** Every kind of fault once in a seeded order (even past the run's time), then faults drawn at random until the time is up. */
    private void applyFaults(Chaos chaos) throws InterruptedException {
        long deadline = System.currentTimeMillis() + settings.duration().toMillis();
        List<Fault> firstRound = new ArrayList<>(List.of(Fault.values()));
        Collections.shuffle(firstRound, random);
        while (!firstRound.isEmpty() || System.currentTimeMillis() < deadline) {
            Fault fault = firstRound.isEmpty() ? Fault.values()[random.nextInt(Fault.values().length)] : firstRound.remove(0);
            long start = System.currentTimeMillis();
            String what;
            try {
                what = fault.apply(chaos, random);
            } catch (RuntimeException e) {
                what = "failed: " + e;
                failures.add(fault + " could not be applied: " + e);
                LOG.warn("{} could not be applied", fault, e);
            }
            long end = System.currentTimeMillis();
            try {
                chaos.recover();
            } catch (RuntimeException e) {
                failures.add("the cluster did not recover from " + fault + ": " + e);
                LOG.warn("the cluster did not recover from {}", fault, e);
            }
            applied.add(new Applied(fault, what, start, end, System.currentTimeMillis()));
            LOG.info("{}: {}", fault, what);
            Thread.sleep(QUIET_MIN_MS + random.nextInt(QUIET_MAX_MS - QUIET_MIN_MS + 1));
        }
    }

    /** The snapshot after the run, once the threads that end after their clients closed (relays, readers) have ended. */
    private static Resources awaitSettled(Resources before) {
        Resources[] after = {Resources.now()};
        try {
            Await.until("the soak's threads to end", RESOURCES_SETTLE_TIMEOUT, () -> {
                after[0] = Resources.now();
                return after[0].threads().size() <= before.threads().size() + THREADS_ALLOWED;
            });
        } catch (Await.ClusterStateTimeoutException e) {
            // checkResources reports it, naming the threads.
        }
        return after[0];
    }

    private void checkResources(Resources before, Resources after) {
        if (after.threads().size() > before.threads().size() + THREADS_ALLOWED) {
            failures.add("threads grew from " + before.threads().size() + " to " + after.threads().size() + ": " + after.threadGrowth(before));
        }
        if (after.openFileDescriptors() > before.openFileDescriptors() + FILE_DESCRIPTORS_ALLOWED) {
            failures.add("open file descriptors grew from " + before.openFileDescriptors() + " to " + after.openFileDescriptors());
        }
        if (after.heapUsedBytes() > before.heapUsedBytes() + HEAP_ALLOWED_BYTES) {
            failures.add("heap in use after a full collection grew from " + before.heapUsedBytes() + " to " + after.heapUsedBytes() + " bytes");
        }
        for (Closes.Close close : closes.all()) {
            if (close.late()) {
                failures.add(close.what() + " took " + close.took().toMillis() + " ms to close, with a timeout of " + close.timeout().toMillis() + " ms");
            }
            if (close.failure() != null) {
                failures.add(close.what() + " failed to close: " + close.failure());
            }
        }
    }

    private List<String> allFailures(Map<Flavour, Findings> findings) {
        List<String> all = new ArrayList<>(failures);
        findings.forEach((flavour, found) -> found.failures().forEach(failure -> all.add(flavour + " " + failure)));
        return all;
    }

}
