package io.fastleader.benchmarks.streams;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.common.FixedRate;
import io.fastleader.benchmarks.common.PartitionTail;
import io.fastleader.benchmarks.common.TopicEnds;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Kafka Streams through a rolling restart, on Kafka's default clients next to the examples'
 * {@code FastLeaderClientSupplier}: one real 3-broker cluster in this JVM, two applications side by
 * side, each with its own input, output and application id, counting the records of its input by
 * key ({@code groupByKey().count()}, a state store with a changelog) at {@code at_least_once}. One
 * {@code KafkaProducer} ({@code acks=all}) feeds both inputs at a fixed rate, the same keys at the
 * same moments, and stamps each record with its send time (the record's timestamp).
 *
 * <p>What is measured is the stall each application's clients put between an input record and its
 * count: the end-to-end latency from an input record's send time to the moment one
 * {@code KafkaConsumer} reading both outputs hands out the count update that reflects it. That send
 * time comes back as the update's timestamp: Streams gives an aggregate's update the larger of the
 * input record's timestamp and the one stored with the key's previous count; the feed stamps each
 * key's records in increasing order, so it is the input record's own send time (after a task
 * re-processes records from its last commit, it is the newest reflected input's). With the record
 * cache off, every input record gives one update, written at once. Figures: p50, p99 and max of that
 * latency in a steady phase before the roll; then, per graceful rolling restart of every broker
 * ({@code --repetitions}), from the roll's start until the application has caught up (every output
 * partition has again had an update at most {@value EndToEndWatch#FRESH_MS} ms old), the longest gap
 * between two updates of one output partition and the max latency. At the end, whether every input
 * record the feed had acknowledged was counted: each key's last count at least its acknowledged
 * records, once the application has committed the end of its input.
 */
public final class StreamsRollBenchmark {

    /** Keys the feed writes in turn: {@code key-0} to {@code key-599}. */
    private static final int KEYS = 600;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration WARM_UP = Duration.ofSeconds(10);
    /** After a roll, the least time before an application counts as caught up, and the most. */
    private static final Duration SETTLE_AT_LEAST = Duration.ofSeconds(3);
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(60);
    private static final List<ClientVariant> VARIANTS = List.of(ClientVariant.FASTLEADER, ClientVariant.KAFKA_CLIENTS);

    private static final String HELP = """
            StreamsRollBenchmark: end-to-end latency of a Kafka Streams count by key (at_least_once) before and through
            graceful rolling restarts of every broker, on Kafka's default clients next to FastLeaderClientSupplier; two
            applications side by side on one in-JVM 3-broker cluster, fed by one KafkaProducer (acks=all).
              --rate N          records per second written to each application's input (default 500)
              --partitions N    partitions of each input and output topic, so tasks of each application (default 6)
              --repetitions N   rolling restarts of every broker (default 10)
              --steady S        seconds measured before the first roll, after a 10 s warm-up (default 30)
              --json FILE       figures (default benchmarks/target/streams-roll.json)
            """;

    private StreamsRollBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options = CommandLine.parseOrExit(args, HELP, line -> {
            Options read = new Options(line.integer("--rate", 500), line.integer("--partitions", 6),
                    line.integer("--repetitions", 10), line.seconds("--steady", 30),
                    line.path("--json", "benchmarks/target/streams-roll.json"));
            CommandLine.requirePositive("--rate", read.rate());
            CommandLine.requirePositive("--partitions", read.partitions());
            return read;
        });
        if (options == null) {
            return;
        }
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("environment", ClusterBenchmark.environment());
        figures.put("measure", "end-to-end latency from an input record's send time (its timestamp, carried to the count update's "
                + "timestamp by Streams' aggregation) to the count update read from the output, ms; longest gap between two "
                + "updates of one output partition, ms");
        Map<String, Object> optionFigures = new LinkedHashMap<>();
        optionFigures.put("ratePerSecond", options.rate());
        optionFigures.put("partitions", options.partitions());
        optionFigures.put("repetitions", options.repetitions());
        optionFigures.put("steadySeconds", options.steady().toSeconds());
        optionFigures.put("keys", KEYS);
        optionFigures.put("streams", new TreeMap<>(CountingApplication.properties(Map.of(), "-", Path.of("-")).entrySet().stream()
                .filter(setting -> !setting.getKey().equals(StreamsConfig.APPLICATION_ID_CONFIG) && !setting.getKey().equals(StreamsConfig.STATE_DIR_CONFIG))
                .collect(Collectors.toMap(setting -> setting.getKey().toString(), Map.Entry::getValue))));
        figures.put("options", optionFigures);
        boolean[] sound = {true};
        ClusterBenchmark.run((cluster, disturbances) -> {
            Run run = new Run(cluster, disturbances, options);
            figures.putAll(run.measure());
            sound[0] = run.sound;
        });
        ClusterBenchmark.write(options.json(), figures);
        if (!sound[0]) {
            System.out.println("NOT SOUND: a stream thread died, an application did not catch up, or an acknowledged record was not counted (above)");
        }
        // Stops by itself even if a client left a thread behind.
        System.exit(sound[0] ? 0 : 1);
    }

    record Options(int rate, int partitions, int repetitions, Duration steady, Path json) {
    }

    /**
     * Writes the same record, stamped with its send time, to every application's input at a fixed
     * rate, and counts each application's acknowledged records per key.
     */
    private static final class Feed implements AutoCloseable {
        private final KafkaProducer<String, byte[]> producer;
        private final Map<CountingApplication, Map<String, Long>> acknowledged = new HashMap<>();
        private final Map<CountingApplication, AtomicLong> failed = new HashMap<>();
        private final AtomicLong sent = new AtomicLong();
        private final FixedRate writing;

        Feed(KafkaTestCluster cluster, List<CountingApplication> applications, Map<CountingApplication, EndToEndWatch> watches, int rate) {
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
            for (CountingApplication application : applications) {
                acknowledged.put(application, new ConcurrentHashMap<>());
                failed.put(application, new AtomicLong());
            }
            writing = FixedRate.start("streams-roll-feed", rate, () -> {
                String key = "key-" + sent.getAndIncrement() % KEYS;
                long sentAtMs = System.currentTimeMillis();
                byte[] value = ByteBuffer.allocate(Long.BYTES).putLong(sentAtMs).array();
                for (CountingApplication application : applications) {
                    EndToEndWatch watch = watches.get(application);
                    producer.send(new ProducerRecord<>(application.input, null, sentAtMs, key, value), (metadata, error) -> {
                        if (error == null) {
                            acknowledged.get(application).merge(key, 1L, Long::sum);
                            watch.fed(System.currentTimeMillis() - sentAtMs);
                        } else {
                            failed.get(application).incrementAndGet();
                        }
                    });
                }
            });
        }

        /** Stops writing; once every record sent is answered, each application's acknowledged records per key. */
        Map<CountingApplication, Map<String, Long>> stop() throws InterruptedException {
            writing.stop();
            producer.flush();
            Map<CountingApplication, Map<String, Long>> stopped = new HashMap<>();
            acknowledged.forEach((application, perKey) -> stopped.put(application, new TreeMap<>(perKey)));
            return stopped;
        }

        @Override
        public void close() {
            writing.close();
            producer.close(Duration.ofSeconds(30));
        }
    }

    /** The measurements of one run. */
    private static final class Run {
        private final KafkaTestCluster cluster;
        private final Disturbances disturbances;
        private final Options options;
        private final Map<ClientVariant, CountingApplication> applications = new EnumMap<>(ClientVariant.class);
        private final Map<ClientVariant, EndToEndWatch> watches = new EnumMap<>(ClientVariant.class);
        private final Map<ClientVariant, List<EndToEndWatch.Figures>> rolls = new EnumMap<>(ClientVariant.class);
        private PartitionTail<String, Long> reader;
        boolean sound = true;

        Run(KafkaTestCluster cluster, Disturbances disturbances, Options options) {
            this.cluster = cluster;
            this.disturbances = disturbances;
            this.options = options;
        }

        Map<String, Object> measure() throws Exception {
            Map<String, Object> json = new LinkedHashMap<>();
            Feed feed = null;
            try {
                for (ClientVariant variant : VARIANTS) {
                    applications.put(variant, new CountingApplication(cluster, disturbances, variant, options.partitions()));
                    rolls.put(variant, new ArrayList<>());
                }
                await("both applications running all " + options.partitions() + " tasks", START_TIMEOUT,
                        () -> applications.values().stream().allMatch(application -> application.isRunningAllOf(options.partitions())));
                Set<String> topics = new TreeSet<>();
                for (CountingApplication application : applications.values()) {
                    topics.addAll(List.of(application.input, application.output, application.changelog()));
                }
                topics.forEach(disturbances::awaitFullIsr);

                long now = System.currentTimeMillis();
                Map<String, EndToEndWatch> byOutput = new HashMap<>();
                Map<CountingApplication, EndToEndWatch> byApplication = new HashMap<>();
                for (ClientVariant variant : VARIANTS) {
                    EndToEndWatch watch = new EndToEndWatch(options.partitions(), now);
                    watches.put(variant, watch);
                    byOutput.put(applications.get(variant).output, watch);
                    byApplication.put(applications.get(variant), watch);
                }
                List<TopicPartition> outputs = byOutput.keySet().stream()
                        .flatMap(topic -> IntStream.range(0, options.partitions()).mapToObj(partition -> new TopicPartition(topic, partition)))
                        .toList();
                reader = new PartitionTail<>(new KafkaConsumer<>(cluster.clientConfig(), new StringDeserializer(), new LongDeserializer()),
                        outputs, "streams-roll-output-reader",
                        (update, nowMs) -> byOutput.get(update.topic()).counted(update.partition(), update.timestamp(), nowMs));
                feed = new Feed(cluster, List.copyOf(applications.values()), byApplication, options.rate());

                System.out.printf("Warming up for %d s, then %d s measured before the roll%n", WARM_UP.toSeconds(), options.steady().toSeconds());
                long warmUpStart = System.currentTimeMillis();
                Thread.sleep(WARM_UP.toMillis());
                await("every output partition of both applications fresh after the warm-up", START_TIMEOUT,
                        () -> watches.values().stream().allMatch(watch -> watch.freshEverywhereSince(warmUpStart)));
                beginPhase();
                Thread.sleep(options.steady().toMillis());
                Map<String, Object> before = new LinkedHashMap<>();
                long steadyEnd = System.currentTimeMillis();
                System.out.println();
                for (ClientVariant variant : VARIANTS) {
                    EndToEndWatch.Figures figures = watches.get(variant).endPhase(steadyEnd);
                    Map<String, Object> variantJson = figures.json();
                    variantJson.put("stateChanges", applications.get(variant).takeStateChanges());
                    before.put(variant.label(), variantJson);
                    System.out.printf("before the roll   %-20s latency p50 %5d  p99 %5d  max %5d ms, longest gap %5d ms, %d updates "
                            + "(feed acks p99 %d, max %d ms)%n", variant.label(), figures.p50Ms(), figures.p99Ms(), figures.maxMs(),
                            figures.longestGapMs(), figures.updates(), figures.feedP99Ms(), figures.feedMaxMs());
                }
                json.put("beforeRoll", before);

                List<Object> rollsJson = new ArrayList<>();
                for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
                    rollsJson.add(roll(repetition, topics));
                }
                json.put("rolls", rollsJson);
                json.put("rollSummary", summary());

                Map<CountingApplication, Map<String, Long>> acknowledged = feed.stop();
                Map<String, Object> counts = new LinkedHashMap<>();
                for (ClientVariant variant : VARIANTS) {
                    CountingApplication application = applications.get(variant);
                    counts.put(variant.label(), countCheck(application, acknowledged.get(application),
                            feed.failed.get(application).get(), feed.sent.get()));
                }
                json.put("counted", counts);
                Map<String, Object> died = new LinkedHashMap<>();
                for (ClientVariant variant : VARIANTS) {
                    Throwable exception = applications.get(variant).died();
                    died.put(variant.label(), exception == null ? null : CountingApplication.stackTrace(exception));
                    if (exception != null) {
                        sound = false;
                        System.out.printf("%s: a stream thread DIED: %s%n", variant.label(), exception);
                    }
                }
                json.put("streamThreadDied", died);
                if (reader.failure() != null) {
                    sound = false;
                    json.put("outputReaderFailed", CountingApplication.stackTrace(reader.failure()));
                }
                return json;
            } finally {
                if (feed != null) {
                    feed.close();
                }
                if (reader != null) {
                    reader.close();
                }
                for (CountingApplication application : applications.values()) {
                    application.close();
                }
            }
        }

        private void beginPhase() {
            long now = System.currentTimeMillis();
            watches.values().forEach(watch -> watch.beginPhase(now));
            applications.values().forEach(CountingApplication::takeStateChanges);
        }

        /**
         * One graceful rolling restart of every broker, both applications counting; each
         * application's phase ends when it has caught up after the roll.
         */
        private Map<String, Object> roll(int repetition, Set<String> topics) throws InterruptedException {
            topics.forEach(disturbances::awaitFullIsr);
            beginPhase();
            long start = System.currentTimeMillis();
            disturbances.rollingRestart(StopStyle.GRACEFUL, topics);
            long end = System.currentTimeMillis();
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("rollMs", end - start);
            System.out.printf("%nroll %d: every broker restarted in %.1f s%n", repetition, (end - start) / 1e3);
            Map<ClientVariant, Long> caughtUpAt = new EnumMap<>(ClientVariant.class);
            long deadline = end + CATCH_UP_TIMEOUT.toMillis();
            while (caughtUpAt.size() < VARIANTS.size()) {
                long now = System.currentTimeMillis();
                for (ClientVariant variant : VARIANTS) {
                    if (caughtUpAt.containsKey(variant)) {
                        continue;
                    }
                    boolean caughtUp = now >= end + SETTLE_AT_LEAST.toMillis()
                            && watches.get(variant).freshEverywhereSince(now - EndToEndWatch.FRESH_MS);
                    if (caughtUp || now > deadline) {
                        caughtUpAt.put(variant, now);
                        EndToEndWatch.Figures figures = watches.get(variant).endPhase(now);
                        rolls.get(variant).add(figures);
                        Map<String, Object> variantJson = figures.json();
                        variantJson.put("caughtUp", caughtUp);
                        variantJson.put("caughtUpAfterRollEndMs", now - end);
                        List<String> stateChanges = applications.get(variant).takeStateChanges();
                        variantJson.put("stateChanges", stateChanges);
                        json.put(variant.label(), variantJson);
                        if (!caughtUp) {
                            sound = false;
                        }
                        System.out.printf("roll %d  %-20s longest gap %5d ms, latency max %5d  p99 %5d ms, %s %.1f s after the roll, "
                                + "%d state changes (feed acks p99 %d, max %d ms)%n", repetition, variant.label(), figures.longestGapMs(),
                                figures.maxMs(), figures.p99Ms(), caughtUp ? "caught up" : "NOT CAUGHT UP", (now - end) / 1e3,
                                stateChanges.size(), figures.feedP99Ms(), figures.feedMaxMs());
                    }
                }
                Thread.sleep(20);
            }
            return json;
        }

        /** Median and max over the rolls of each figure, and fastleader's medians over kafka-clients'. */
        private Map<String, Object> summary() {
            System.out.printf("%nOver %d rolls, median / max, ms%n%-28s %-24s %-24s %s%n", options.repetitions(), "",
                    ClientVariant.FASTLEADER.label(), ClientVariant.KAFKA_CLIENTS.label(), "ratio of medians");
            Map<String, Object> json = new LinkedHashMap<>();
            record Column(String name, java.util.function.ToLongFunction<EndToEndWatch.Figures> figure) {
            }
            for (Column column : List.of(new Column("longest gap", EndToEndWatch.Figures::longestGapMs),
                    new Column("latency max", EndToEndWatch.Figures::maxMs),
                    new Column("latency p99", EndToEndWatch.Figures::p99Ms))) {
                Map<String, Object> byVariant = new LinkedHashMap<>();
                StringBuilder line = new StringBuilder(String.format("%-28s", column.name()));
                Map<ClientVariant, Long> medians = new EnumMap<>(ClientVariant.class);
                for (ClientVariant variant : VARIANTS) {
                    List<Long> values = rolls.get(variant).stream().map(column.figure()::applyAsLong).sorted().toList();
                    long median = values.isEmpty() ? 0 : values.get(values.size() / 2);
                    long max = values.isEmpty() ? 0 : values.get(values.size() - 1);
                    medians.put(variant, median);
                    byVariant.put(variant.label(), Map.of("median", median, "max", max, "values", values));
                    line.append(String.format(" %-24s", median + " / " + max));
                }
                double ratio = (double) medians.get(ClientVariant.FASTLEADER) / Math.max(1, medians.get(ClientVariant.KAFKA_CLIENTS));
                byVariant.put("ratioOfMedians", ratio);
                line.append(String.format(" %.2f", ratio));
                System.out.println(line);
                json.put(column.name().replace(' ', '-'), byVariant);
            }
            return json;
        }

        /**
         * Waits until {@code application} has committed the end of its input (it read every record and,
         * at {@code at_least_once}, wrote every count before committing), then reads its output from
         * the start to the end and compares each key's last count with the records acknowledged for it.
         */
        private Map<String, Object> countCheck(CountingApplication application, Map<String, Long> acknowledged, long failed, long sent)
                throws InterruptedException {
            Map<String, Object> json = new LinkedHashMap<>();
            List<TopicPartition> inputs = IntStream.range(0, options.partitions())
                    .mapToObj(partition -> new TopicPartition(application.input, partition)).toList();
            TopicEnds.Committed end;
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                end = TopicEnds.awaitCommittedToEnd(admin, application.applicationId, inputs, COMMIT_TIMEOUT, () -> application.died() != null);
            }
            boolean committed = end.committed();
            String seen = end.lastSeen();
            Map<String, Long> counts = lastCounts(application.output);
            long acknowledgedSum = acknowledged.values().stream().mapToLong(Long::longValue).sum();
            long missing = 0;
            long extra = 0;
            Map<String, Long> shortKeys = new TreeMap<>();
            for (Map.Entry<String, Long> key : acknowledged.entrySet()) {
                long count = counts.getOrDefault(key.getKey(), 0L);
                if (count < key.getValue()) {
                    missing += key.getValue() - count;
                    shortKeys.put(key.getKey(), key.getValue() - count);
                }
            }
            for (Map.Entry<String, Long> key : counts.entrySet()) {
                extra += Math.max(0, key.getValue() - acknowledged.getOrDefault(key.getKey(), 0L));
            }
            json.put("sent", sent);
            json.put("acknowledged", acknowledgedSum);
            json.put("failedAtTheFeed", failed);
            json.put("countsSum", counts.values().stream().mapToLong(Long::longValue).sum());
            json.put("inputCommittedToItsEnd", committed);
            json.put("acknowledgedNotCounted", missing);
            json.put("keysShort", shortKeys.size() > 20 ? shortKeys.size() : shortKeys);
            json.put("countedBeyondAcknowledged", extra);
            if (!committed) {
                json.put("lastSeen", seen);
            }
            boolean everyAcknowledgedCounted = missing == 0 && committed;
            json.put("everyAcknowledgedRecordCounted", everyAcknowledgedCounted);
            if (!everyAcknowledgedCounted) {
                sound = false;
            }
            System.out.printf("%-20s %d sent, %d acknowledged (%d failed); counts sum to %d: %d acknowledged not counted%s, "
                            + "%d counted beyond acknowledged (at least once)%s%n", application.variant.label(), sent, acknowledgedSum, failed,
                    json.get("countsSum"), missing, shortKeys.isEmpty() ? "" : " " + shortKeys, extra,
                    committed ? "" : "; input NOT committed to its end within " + COMMIT_TIMEOUT.toSeconds() + " s, last seen " + seen);
            return json;
        }

        /** Each key's last count in {@code output}, read from its start to the end it has now. */
        private Map<String, Long> lastCounts(String output) {
            Map<String, Long> counts = new HashMap<>();
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
            try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new LongDeserializer())) {
                List<TopicPartition> partitions = IntStream.range(0, options.partitions())
                        .mapToObj(partition -> new TopicPartition(output, partition)).toList();
                TopicEnds.readFromStartToEnd(consumer, partitions, COMMIT_TIMEOUT, update -> counts.put(update.key(), update.value()));
            }
            return counts;
        }

        /** Waits until {@code done}, failing if a stream thread died or it takes {@code timeout}. */
        private void await(String what, Duration timeout, BooleanSupplier done) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!done.getAsBoolean()) {
                for (CountingApplication application : applications.values()) {
                    if (application.died() != null) {
                        throw new IllegalStateException(application.variant.label() + ": a stream thread died", application.died());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(what + " took over " + timeout + ": "
                            + applications.values().stream().map(application -> application.variant.label() + " " + application.state())
                            .collect(Collectors.joining(", ")));
                }
                Thread.sleep(20);
            }
        }
    }
}
