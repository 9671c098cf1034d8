package io.fastleader.benchmarks.group;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.common.FixedRate;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Group rebalances, fastleader's consumer next to KafkaConsumer 4.3.1, both speaking the same group
 * protocol ({@code --protocol consumer}, KIP-848, by default; or {@code classic}, with the assignor
 * {@code --assignor} names), on one real 3-broker cluster in this JVM: each variant's group reads a
 * topic of its own, written at a fixed rate. For each event, the longest gap in any partition's
 * consumption from the event until the group has settled again (every member owns partitions, every
 * partition is read): the partitions that moved are not read from their revocation until their new
 * owner fetches them. The events: a third member joining a group of two, that member leaving (close
 * with {@code LEAVE_GROUP}), and a third member gone for good without giving its partitions up: a
 * static member closed with the default membership operation, whose partitions the coordinator keeps
 * for the session timeout, as for a member whose process died (under {@code consumer} the member
 * leaves with epoch -2; under {@code classic} it sends no LeaveGroup at all, KafkaConsumer's and
 * fastleader's alike). The variants take turns, event by event, in each repetition. Then both groups
 * read through a graceful rolling restart of every broker, the coordinators' included, and the
 * longest gap is reported the same way.
 *
 * <p>Members heartbeat every {@value #HEARTBEAT_INTERVAL_MS} ms and expire after
 * {@value #SESSION_TIMEOUT_MS} ms: under {@code consumer} the brokers set both, under {@code classic}
 * the members do (see {@link GroupSettings}); the defaults (5 s or 3 s, and 45 s) would scale the
 * crash figures, not the comparison. Loopback: round trips are sub-millisecond, so the figures are
 * the clients' and the coordinator's own pacing.
 */
public final class GroupRebalanceBenchmark {

    private static final int HEARTBEAT_INTERVAL_MS = 500;
    private static final int SESSION_TIMEOUT_MS = 6_000;
    private static final List<ClientVariant> VARIANTS = List.of(ClientVariant.FASTLEADER, ClientVariant.KAFKA_CLIENTS);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(60);

    private static final String HELP = """
            GroupRebalanceBenchmark: the longest gap in a partition's consumption when a member joins a consumer group,
            leaves it, or is gone for good (a static member), and through a rolling restart; fastleader next to
            KafkaConsumer 4.3.1, both with the same group.protocol, one in-JVM 3-broker cluster.
              --protocol P      group.protocol of both variants' members: consumer (KIP-848; the brokers assign and
                                set heartbeat 500 ms, session 6 s) or classic (the members set
                                session.timeout.ms=6000, heartbeat.interval.ms=500) (default consumer)
              --assignor A      classic only: partition.assignment.strategy, one of cooperative-sticky, range, sticky,
                                roundrobin (Kafka's CooperativeStickyAssignor, RangeAssignor, StickyAssignor,
                                RoundRobinAssignor) (default cooperative-sticky)
              --repetitions N   events of each kind per variant (default 3)
              --partitions N    partitions of each variant's topic (default 12)
              --rate N          records per second written to each topic (default 500)
              --roll on|off     read through a graceful rolling restart at the end (default on)
              --json FILE       figures (default benchmarks/target/group-rebalance.json)
            """;

    /** An event the benchmark times. */
    enum Event { JOIN, LEAVE, GONE }

    private GroupRebalanceBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options = CommandLine.parseOrExit(args, HELP, line -> new Options(GroupSettings.read(line),
                line.integer("--repetitions", 3), line.integer("--partitions", 12), line.integer("--rate", 500),
                line.onOff("--roll", true), line.path("--json", "benchmarks/target/group-rebalance.json")));
        if (options == null) {
            return;
        }
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("environment", ClusterBenchmark.environment());
        figures.put("measure", "longest gap in any partition's consumption, from the event until the group settled, ms");
        Map<String, Object> optionFigures = new LinkedHashMap<>(options.group().json());
        optionFigures.putAll(Map.of("repetitions", options.repetitions(), "partitions", options.partitions(),
                "ratePerSecond", options.rate(), "roll", options.roll()));
        figures.put("options", optionFigures);
        System.out.println("group.protocol=" + options.group().protocol()
                + options.group().assignor().map(assignor -> ", partition.assignment.strategy=" + assignor).orElse(""));
        // The consumer protocol's heartbeat and session are the brokers'; classic groups ignore these.
        ClusterSpec spec = ClusterSpec.builder().execution(Execution.IN_JVM)
                .brokerConfig("group.consumer.min.heartbeat.interval.ms", Integer.toString(HEARTBEAT_INTERVAL_MS))
                .brokerConfig("group.consumer.heartbeat.interval.ms", Integer.toString(HEARTBEAT_INTERVAL_MS))
                .brokerConfig("group.consumer.min.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS))
                .brokerConfig("group.consumer.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS))
                .build();
        ClusterBenchmark.run(spec, (cluster, disturbances) -> figures.putAll(new Run(cluster, disturbances, options).measure()));
        ClusterBenchmark.write(options.json(), figures);
    }

    record Options(GroupSettings group, int repetitions, int partitions, int rate, boolean roll, Path json) {
    }

    /**
     * The group protocol both variants' members speak and, under {@code classic}, the assignor their
     * leader runs: the one place that turns the command line into a member's group configuration.
     *
     * @param protocol {@code consumer} or {@code classic}
     * @param assignor under {@code classic}, the {@code partition.assignment.strategy} class; empty under {@code consumer}
     */
    record GroupSettings(String protocol, Optional<String> assignor) {

        /** {@code --assignor} names, as Kafka's documentation names the assignors. */
        static final Map<String, String> ASSIGNORS = new TreeMap<>(Map.of(
                "cooperative-sticky", CooperativeStickyAssignor.class.getName(),
                "range", RangeAssignor.class.getName(),
                "sticky", StickyAssignor.class.getName(),
                "roundrobin", RoundRobinAssignor.class.getName()));

        /** Reads {@code --protocol} and {@code --assignor}; refuses an assignor under {@code consumer}, where the brokers assign. */
        static GroupSettings read(CommandLine line) {
            String protocol = line.string("--protocol", "consumer");
            String assignor = line.string("--assignor", null);
            return switch (protocol) {
                case "consumer" -> {
                    if (assignor != null) {
                        throw new IllegalArgumentException("--assignor " + assignor
                                + ": only with --protocol classic (under consumer the brokers assign)");
                    }
                    yield new GroupSettings(protocol, Optional.empty());
                }
                case "classic" -> {
                    String name = assignor == null ? "cooperative-sticky" : assignor;
                    if (!ASSIGNORS.containsKey(name)) {
                        throw new IllegalArgumentException("--assignor " + name + ": expected one of " + String.join(", ", ASSIGNORS.keySet()));
                    }
                    yield new GroupSettings(protocol, Optional.of(ASSIGNORS.get(name)));
                }
                default -> throw new IllegalArgumentException("--protocol " + protocol + ": expected classic or consumer");
            };
        }

        boolean classic() {
            return protocol.equals("classic");
        }

        /**
         * The group settings every member gets, of both variants. Under {@code classic} the session and
         * heartbeat are the member's to set; KafkaConsumer refuses them under {@code consumer}, where
         * the brokers' {@code group.consumer.*} settings give them.
         */
        Map<String, Object> memberConfig() {
            Map<String, Object> config = new LinkedHashMap<>();
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            assignor.ifPresent(strategy -> {
                config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, strategy);
                config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
                config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
            });
            return config;
        }

        /** For the JSON file's options. */
        Map<String, Object> json() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("groupProtocol", protocol);
            assignor.ifPresent(strategy -> json.put("partitionAssignmentStrategy", strategy));
            json.put("heartbeatIntervalMs", HEARTBEAT_INTERVAL_MS);
            json.put("sessionTimeoutMs", SESSION_TIMEOUT_MS);
            json.put("heartbeatAndSessionSetBy", classic() ? "members" : "brokers");
            return json;
        }
    }

    /** One variant's group: its topic, the producer writing to it, its members. */
    private static final class Group implements AutoCloseable {
        private final ClientVariant variant;
        private final String topic;
        private final RecoveryWatch watch;
        private final Map<String, Object> memberConfig;
        private final Producer<byte[], byte[]> producer;
        private final FixedRate writing;
        private final List<BenchmarkMember> members = new ArrayList<>();
        private final int partitions;
        private int joined;

        Group(KafkaTestCluster cluster, Disturbances disturbances, ClientVariant variant, Options options) {
            this.variant = variant;
            this.topic = "rebalance-" + variant.label();
            this.watch = new RecoveryWatch(options.partitions());
            disturbances.createTopic(new NewTopic(topic, options.partitions(), (short) 3));
            this.memberConfig = new HashMap<>(cluster.clientConfig());
            memberConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "group-" + variant.label());
            memberConfig.putAll(options.group().memberConfig());
            memberConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            this.producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer());
            AtomicLong sent = new AtomicLong();
            this.partitions = options.partitions();
            this.writing = FixedRate.start("producer-" + variant.label(), options.rate(), () -> producer.send(new ProducerRecord<>(topic,
                    (int) (sent.getAndIncrement() % partitions), null,
                    ByteBuffer.allocate(Long.BYTES).putLong(System.currentTimeMillis()).array())));
        }

        BenchmarkMember join() {
            return join(Map.of());
        }

        BenchmarkMember join(Map<String, Object> extra) {
            Map<String, Object> config = new HashMap<>(memberConfig);
            config.putAll(extra);
            BenchmarkMember member = new BenchmarkMember(variant.label() + "-" + ++joined, variant, config, topic, watch);
            members.add(member);
            return member;
        }

        /** Waits until {@code done}, failing if a member failed or it takes {@link #RECOVERY_TIMEOUT}. */
        private void await(String what, BooleanSupplier done) throws InterruptedException {
            long deadline = System.nanoTime() + RECOVERY_TIMEOUT.toNanos();
            while (!done.getAsBoolean()) {
                for (BenchmarkMember member : members) {
                    if (member.failure() != null) {
                        throw new IllegalStateException(variant.label() + " member failed", member.failure());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(variant.label() + ": " + what + " took over " + RECOVERY_TIMEOUT);
                }
                Thread.sleep(10);
            }
        }

        /**
         * Waits until the group has settled: every member owns partitions, together all of them,
         * and every partition has been read since.
         */
        void awaitSettled() throws InterruptedException {
            await("every member owning partitions", () -> members.stream().allMatch(member -> member.owned() > 0)
                    && members.stream().mapToInt(BenchmarkMember::owned).sum() == partitions);
            watch.eventAt(System.currentTimeMillis());
            await("every partition read", () -> watch.recoveryMs().isPresent());
        }

        /** Runs {@code event}; returns the longest gap in a partition's consumption until the group settled. */
        long time(Runnable event) throws InterruptedException {
            watch.resetGaps();
            event.run();
            awaitSettled();
            return watch.longestGapMs();
        }

        void stop(BenchmarkMember member, CloseOptions options) {
            try {
                member.stop(options);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            members.remove(member);
        }

        @Override
        public void close() throws InterruptedException {
            for (BenchmarkMember member : List.copyOf(members)) {
                stop(member, CloseOptions.timeout(Duration.ofSeconds(30)));
            }
            writing.stop();
            producer.close();
        }
    }

    /** The measurements of one run. */
    private static final class Run {
        private final KafkaTestCluster cluster;
        private final Disturbances disturbances;
        private final Options options;
        private final Map<ClientVariant, Map<Event, List<Long>>> timings = new EnumMap<>(ClientVariant.class);

        Run(KafkaTestCluster cluster, Disturbances disturbances, Options options) {
            this.cluster = cluster;
            this.disturbances = disturbances;
            this.options = options;
        }

        Map<String, Object> measure() throws Exception {
            Map<ClientVariant, Group> groups = new EnumMap<>(ClientVariant.class);
            try {
                for (ClientVariant variant : VARIANTS) {
                    Group group = new Group(cluster, disturbances, variant, options);
                    groups.put(variant, group);
                    group.join();
                    group.join();
                    group.awaitSettled();
                    timings.put(variant, new EnumMap<>(Event.class));
                }
                for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
                    for (ClientVariant variant : VARIANTS) {
                        measureEvents(groups.get(variant), repetition);
                    }
                }
                Map<String, Object> figures = new LinkedHashMap<>();
                figures.put("gapMs", report());
                if (options.roll()) {
                    figures.put("rollLongestGapMs", roll(groups));
                }
                return figures;
            } finally {
                for (Group group : groups.values()) {
                    group.close();
                }
            }
        }

        private void measureEvents(Group group, int repetition) throws InterruptedException {
            Map<Event, List<Long>> times = timings.get(group.variant);
            BenchmarkMember[] third = new BenchmarkMember[1];
            record(group, times, Event.JOIN, repetition, group.time(() -> third[0] = group.join()));
            record(group, times, Event.LEAVE, repetition, group.time(() -> group.stop(third[0],
                    CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP))));
            BenchmarkMember gone = group.join(Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "gone-" + repetition));
            group.awaitSettled();
            record(group, times, Event.GONE, repetition, group.time(() -> group.stop(gone, CloseOptions.timeout(Duration.ofSeconds(30)))));
        }

        private static void record(Group group, Map<Event, List<Long>> times, Event event, int repetition, long ms) {
            times.computeIfAbsent(event, e -> new ArrayList<>()).add(ms);
            System.out.printf("repetition %d, %-20s %-5s longest gap in a partition's consumption %5d ms%n", repetition,
                    group.variant.label(), event, ms);
        }

        private Map<String, Object> report() {
            System.out.printf("%nEvent   %s%n", String.join("   ", VARIANTS.stream()
                    .map(variant -> String.format("%-28s", variant.label() + " gap median / max ms")).toList())
                    + "   fastleader / kafka-clients (medians)");
            Map<String, Object> json = new LinkedHashMap<>();
            for (Event event : Event.values()) {
                StringBuilder line = new StringBuilder(String.format("%-7s", event));
                Map<String, Object> byVariant = new LinkedHashMap<>();
                for (ClientVariant variant : VARIANTS) {
                    List<Long> times = timings.get(variant).get(event);
                    line.append(String.format(" %-30s", median(times) + " / " + max(times)));
                    byVariant.put(variant.label(), times);
                }
                double ratio = (double) median(timings.get(ClientVariant.FASTLEADER).get(event))
                        / Math.max(1, median(timings.get(ClientVariant.KAFKA_CLIENTS).get(event)));
                line.append(String.format(" %.2f", ratio));
                byVariant.put("ratioOfMedians", ratio);
                json.put(event.name().toLowerCase(), byVariant);
                System.out.println(line);
            }
            return json;
        }

        private Map<String, Object> roll(Map<ClientVariant, Group> groups) throws InterruptedException {
            for (Group group : groups.values()) {
                group.watch.resetGaps();
            }
            System.out.println("\nRolling restart of every broker, both groups reading");
            Set<String> topics = new TreeSet<>();
            groups.values().forEach(group -> topics.add(group.topic));
            disturbances.rollingRestart(StopStyle.GRACEFUL, topics);
            Map<String, Object> json = new LinkedHashMap<>();
            for (Group group : groups.values()) {
                group.awaitSettled();
                long gap = group.watch.longestGapMs();
                json.put(group.variant.label(), gap);
                System.out.printf("%-20s longest gap in a partition's consumption through the roll: %d ms%n", group.variant.label(), gap);
            }
            return json;
        }

        private static long median(List<Long> values) {
            List<Long> sorted = values.stream().sorted().toList();
            return sorted.get(sorted.size() / 2);
        }

        private static long max(List<Long> values) {
            return values.stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }
}
