package io.fastleader.benchmarks.transactions;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.ClusterBenchmark;
import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.benchmarks.common.FixedRate;
import io.fastleader.benchmarks.common.Latency;
import io.fastleader.benchmarks.common.PartitionTail;
import io.fastleader.benchmarks.common.Payload;
import io.fastleader.benchmarks.common.SendCounts;
import io.fastleader.benchmarks.common.TopicEnds;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * A transactional consume-transform-produce pipeline through a graceful rolling restart of every
 * broker, on fastleader's clients next to kafka-clients 4.3.1's: one real 3-broker cluster in this
 * JVM, one {@link Pipeline} per variant side by side, each with its own input topic, group,
 * {@code transactional.id} and output topic. One plain {@code KafkaProducer} ({@code acks=all})
 * feeds every input at the same fixed rate, the same record numbers at the same moments, each
 * record carrying its send time (its timestamp and the first 8 bytes of its value).
 *
 * <p>Measured per variant, over the whole run (after the warm-up) and over the roll's window (from
 * the first broker's stop until the last broker is back with its partitions in full ISR):
 * {@code commitTransaction} latency (a commit belongs to the window it began in), and end-to-end
 * latency from an input record's send time to the moment one {@code read_committed}
 * {@code KafkaConsumer}, reading every output, hands out its output record (a record belongs to the
 * window it was sent in). At the end the feed stops, each pipeline commits the end of its input, and
 * its output, read {@code read_committed} from the start, must hold every acknowledged input record
 * exactly once ({@link ExactlyOnce}); the run exits 1 if any does not.
 */
public final class TransactionalPipelineRollBenchmark {

    private static final String PREFIX = "txn-pipeline";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** After the roll, the least time measured before the feed stops. */
    private static final Duration AFTER_ROLL = Duration.ofSeconds(10);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
    /** Kafka's default {@code transaction.state.log.num.partitions}, which the fixture leaves as it is. */
    private static final int TRANSACTION_STATE_PARTITIONS = 50;
    private static final List<String> INTERNAL_TOPICS = List.of("__consumer_offsets", "__transaction_state");

    private static final String HELP = """
            TransactionalPipelineRollBenchmark: a transactional consume-transform-produce pipeline (read_committed consumer,
            transactional producer: poll, begin, send, sendOffsetsToTransaction(groupMetadata), commit) per client variant,
            side by side on one in-JVM 3-broker cluster, through a graceful rolling restart of every broker. Measures
            commitTransaction latency and end-to-end latency (input send time to a read_committed reader of the output),
            over the run and over the roll, and checks that every output holds every acknowledged input record exactly once.
              --variants A,B,...        pipelines to run (default fastleader,kafka-clients-4.3.1; also fastleader-no-hints)
              --transaction-version N   the cluster's transaction.version feature, 1 or 2 (default 2)
              --rate N                  input records per second, per variant (default 200)
              --duration S              seconds measured after the warm-up (default 90; longer if the roll ends later
                                        than 10 s before that)
              --partitions N            partitions of each input and output topic (default 6)
              --warmup S                seconds run before measuring (default 10)
              --roll-after S            seconds measured before the rolling restart begins (default 20)
              --json FILE               figures (default benchmarks/target/txn-pipeline-roll.json)
            """;

    private TransactionalPipelineRollBenchmark() {
    }

    record Options(List<ClientVariant> variants, int transactionVersion, int rate, Duration duration, int partitions,
                   Duration warmup, Duration rollAfter, Path json) {

        Options {
            variants = List.copyOf(variants);
            if (variants.isEmpty() || variants.stream().distinct().count() != variants.size()) {
                throw new IllegalArgumentException("--variants: expected one or more distinct variants");
            }
            if (transactionVersion != 1 && transactionVersion != 2) {
                throw new IllegalArgumentException("--transaction-version " + transactionVersion + ": expected 1 or 2");
            }
            CommandLine.requirePositive("--rate", rate);
            CommandLine.requirePositive("--duration", (int) duration.toSeconds());
            CommandLine.requirePositive("--partitions", partitions);
        }

        static Options read(CommandLine line) {
            String variants = line.string("--variants", ClientVariant.FASTLEADER.label() + "," + ClientVariant.KAFKA_CLIENTS.label());
            return new Options(Arrays.stream(variants.split(",")).map(String::trim).map(ClientVariant::ofLabel).toList(),
                line.integer("--transaction-version", 2), line.integer("--rate", 200), line.seconds("--duration", 90),
                line.integer("--partitions", 6), line.seconds("--warmup", 10), line.seconds("--roll-after", 20),
                line.path("--json", "benchmarks/target/txn-pipeline-roll.json"));
        }

        Map<String, Object> figures() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("variants", variants.stream().map(ClientVariant::label).toList());
            json.put("transactionVersion", transactionVersion);
            json.put("ratePerSecond", rate);
            json.put("durationSeconds", duration.toSeconds());
            json.put("partitions", partitions);
            json.put("warmupSeconds", warmup.toSeconds());
            json.put("rollAfterSeconds", rollAfter.toSeconds());
            return json;
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = CommandLine.parseOrExit(args, HELP, Options::read);
        if (options == null) {
            return;
        }
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("environment", ClusterBenchmark.environment());
        figures.put("measure", "commitTransaction latency (call to return, ms, by the time the commit began); end-to-end latency "
            + "(input record's send time to a read_committed reader handing out its output record, ms, by the input's send time); "
            + "whole run after the warm-up, and the roll's window (first broker stopped to last broker back in full ISR)");
        figures.put("options", options.figures());
        boolean[] sound = {false};
        ClusterSpec spec = ClusterSpec.builder().execution(Execution.IN_JVM).transactionVersion(options.transactionVersion()).build();
        ClusterBenchmark.run(spec, (cluster, disturbances) -> {
            Run run = new Run(options);
            figures.putAll(run.measure(cluster, disturbances));
            sound[0] = run.sound;
        });
        ClusterBenchmark.write(options.json(), figures);
        if (!sound[0]) {
            System.out.println("""

                !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
                NOT SOUND: a pipeline LOST or DUPLICATED records, died, or did not commit its input (above)
                !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!""");
        }
        // Stops by itself even if a client left a thread behind.
        System.exit(sound[0] ? 0 : 1);
    }

    /**
     * Writes the same record number, stamped with its send time, to every pipeline's input at a fixed
     * rate, and notes which numbers each input had acknowledged.
     */
    private static final class Feed implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer;
        private final Map<Pipeline, SendCounts> counts = new LinkedHashMap<>();
        private final Map<Pipeline, BitSet> acknowledged = new HashMap<>();
        private final AtomicLong next = new AtomicLong();
        private final FixedRate writing;

        Feed(KafkaTestCluster cluster, List<Pipeline> pipelines, int rate) {
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.CLIENT_ID_CONFIG, PREFIX + "-feed");
            producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
            for (Pipeline pipeline : pipelines) {
                counts.put(pipeline, new SendCounts());
                acknowledged.put(pipeline, new BitSet());
            }
            writing = FixedRate.start(PREFIX + "-feed", rate, () -> {
                long number = next.getAndIncrement();
                long sentAtMs = System.currentTimeMillis();
                byte[] key = Payload.key(number);
                byte[] value = ByteBuffer.allocate(Long.BYTES).putLong(sentAtMs).array();
                for (Pipeline pipeline : pipelines) {
                    BitSet numbers = acknowledged.get(pipeline);
                    counts.get(pipeline).send(producer, new ProducerRecord<>(pipeline.input, null, sentAtMs, key, value), metadata -> {
                        pipeline.feedAcks.add(sentAtMs, (System.currentTimeMillis() - sentAtMs) * 1_000);
                        synchronized (numbers) {
                            numbers.set(Math.toIntExact(number));
                        }
                    });
                }
            });
        }

        /** Stops writing and waits until every record sent is answered. */
        void stop() throws InterruptedException {
            writing.stop();
            producer.flush();
        }

        BitSet acknowledged(Pipeline pipeline) {
            BitSet numbers = acknowledged.get(pipeline);
            synchronized (numbers) {
                return (BitSet) numbers.clone();
            }
        }

        @Override
        public void close() {
            writing.close();
            producer.close(Duration.ofSeconds(30));
        }
    }

    /**
     * {@code txn-pipeline-txn-<variant>}, with a number added if need be so that every variant's id
     * falls in the same {@code __transaction_state} partition as the first variant's, so every
     * pipeline has the same transaction coordinator (every group has the same group coordinator
     * already: the fixture's {@code __consumer_offsets} has one partition).
     */
    static String transactionalId(ClientVariant variant) {
        int target = transactionStatePartition(PREFIX + "-txn-" + ClientVariant.FASTLEADER.label());
        String id = PREFIX + "-txn-" + variant.label();
        for (int n = 1; transactionStatePartition(id) != target; n++) {
            id = PREFIX + "-txn-" + variant.label() + "-" + n;
        }
        return id;
    }

    /** The {@code __transaction_state} partition of {@code transactionalId}, as the broker computes it. */
    private static int transactionStatePartition(String transactionalId) {
        return (transactionalId.hashCode() & 0x7fffffff) % TRANSACTION_STATE_PARTITIONS;
    }

    private static List<TopicPartition> partitionsOf(Set<String> topics, int partitions) {
        return topics.stream()
            .flatMap(topic -> IntStream.range(0, partitions).mapToObj(partition -> new TopicPartition(topic, partition)))
            .toList();
    }

    /** The measurements of one run. */
    private static final class Run {
        private final Options options;
        private final List<Pipeline> pipelines = new ArrayList<>();
        private KafkaTestCluster cluster;
        boolean sound = true;

        Run(Options options) {
            this.options = options;
        }

        /** Runs the pipelines on {@code on} through a roll by {@code disturbances}, and returns the figures. */
        Map<String, Object> measure(KafkaTestCluster on, Disturbances disturbances) throws Exception {
            cluster = on;
            Map<String, Object> json = new LinkedHashMap<>();
            Feed feed = null;
            PartitionTail<byte[], byte[]> reader = null;
            try {
                Set<String> topics = new TreeSet<>();
                for (ClientVariant variant : options.variants()) {
                    Pipeline pipeline = new Pipeline(cluster.clientConfig(), variant, PREFIX, transactionalId(variant));
                    pipelines.add(pipeline);
                    for (String topic : List.of(pipeline.input, pipeline.output)) {
                        disturbances.createTopic(new NewTopic(topic, options.partitions(), (short) 3)
                            .configs(Map.of("min.insync.replicas", "2")));
                        topics.add(topic);
                    }
                }
                reader = outputReader();
                pipelines.forEach(Pipeline::start);
                awaitPipelines("every producer's initTransactions", pipeline -> pipeline.initialized());
                feed = new Feed(cluster, pipelines, options.rate());
                awaitPipelines("a first commit by every pipeline", pipeline -> pipeline.committed.get() > 0);
                json.put("coordinatorsAtStart", coordinators());
                System.out.printf("pipelines running (%s), transaction.version %d; warming up for %d s%n",
                    options.variants().stream().map(ClientVariant::label).collect(Collectors.joining(", ")),
                    options.transactionVersion(), options.warmup().toSeconds());
                progressUntil(System.currentTimeMillis() + options.warmup().toMillis());

                long measureStart = System.currentTimeMillis();
                progressUntil(measureStart + options.rollAfter().toMillis());
                // The internal topics exist now. The fixture makes them with one replica; on every broker, their
                // coordinators move with each restart, as in a production roll, instead of waiting for their one broker.
                INTERNAL_TOPICS.forEach(disturbances::replicateOnEveryBroker);
                topics.addAll(INTERNAL_TOPICS);
                topics.forEach(disturbances::awaitFullIsr);
                long rollStart = System.currentTimeMillis();
                System.out.printf("%nrolling restart of every broker begins, %.1f s into the measurement%n", (rollStart - measureStart) / 1e3);
                disturbances.rollingRestart(StopStyle.GRACEFUL, topics);
                long rollEnd = System.currentTimeMillis();
                System.out.printf("rolling restart done: every broker restarted in %.1f s%n%n", (rollEnd - rollStart) / 1e3);
                long measureEnd = Math.max(measureStart + options.duration().toMillis(), rollEnd + AFTER_ROLL.toMillis());
                if (measureEnd > measureStart + options.duration().toMillis()) {
                    System.out.printf("the roll ended late: measuring %d s instead of %d s%n",
                        (measureEnd - measureStart) / 1000, options.duration().toSeconds());
                }
                progressUntil(measureEnd);
                feed.stop();
                measureEnd = System.currentTimeMillis();
                System.out.printf("%nthe feed stopped; waiting for every pipeline to commit the end of its input%n");

                Map<String, Object> windows = new LinkedHashMap<>();
                windows.put("measuredMs", measureEnd - measureStart);
                windows.put("rollStartsAtMs", rollStart - measureStart);
                windows.put("rollMs", rollEnd - rollStart);
                json.put("windows", windows);

                Map<Pipeline, Map<String, Object>> checks = new LinkedHashMap<>();
                for (Pipeline pipeline : pipelines) {
                    checks.put(pipeline, check(pipeline, feed));
                }
                // Let the live reader see what the check read, so late records are timed too.
                awaitReader(checks);
                if (reader.failure() != null) {
                    sound = false;
                    json.put("outputReaderFailed", reader.failure().toString());
                }
                reader.close();
                reader = null;
                for (Pipeline pipeline : pipelines) {
                    pipeline.close();
                }

                Map<String, Object> variants = new LinkedHashMap<>();
                Map<Pipeline, Figures> figures = new LinkedHashMap<>();
                for (Pipeline pipeline : pipelines) {
                    Figures run = Figures.of(pipeline, measureStart, measureEnd);
                    Figures roll = Figures.of(pipeline, rollStart, rollEnd);
                    figures.put(pipeline, run);
                    Map<String, Object> variantJson = new LinkedHashMap<>();
                    variantJson.put("run", run);
                    variantJson.put("roll", roll);
                    variantJson.put("transactionsCommitted", pipeline.committed.get());
                    variantJson.put("recordsCommitted", pipeline.recordsCommitted.get());
                    variantJson.put("transactionsAborted", pipeline.aborted.get());
                    variantJson.put("producersReplaced", pipeline.producersReplaced.get());
                    variantJson.put("commitRetriesAfterTimeout", pipeline.commitRetries.get());
                    variantJson.put("firstError", pipeline.firstError());
                    variantJson.put("died", pipeline.died() == null ? null : pipeline.died().toString());
                    variantJson.put("feed", Map.of("sent", feed.counts.get(pipeline).sent(), "acknowledged", feed.counts.get(pipeline).acked(),
                        "failed", feed.counts.get(pipeline).failed()));
                    variantJson.put("check", checks.get(pipeline));
                    variants.put(pipeline.variant.label(), variantJson);
                    if (pipeline.died() != null) {
                        sound = false;
                    }
                }
                json.put("variants", variants);
                json.put("ratios", report(measureStart, measureEnd, rollStart, rollEnd));
                printChecks(checks);
                return json;
            } finally {
                if (feed != null) {
                    feed.close();
                }
                if (reader != null) {
                    reader.close();
                }
                for (Pipeline pipeline : pipelines) {
                    pipeline.close();
                }
            }
        }

        /** One read_committed KafkaConsumer reading every output from its start, timing each record end to end. */
        private PartitionTail<byte[], byte[]> outputReader() {
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, PREFIX + "-output-reader");
            Map<String, Pipeline> byOutput = pipelines.stream().collect(Collectors.toMap(pipeline -> pipeline.output, pipeline -> pipeline));
            return new PartitionTail<>(new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                partitionsOf(byOutput.keySet(), options.partitions()), PREFIX + "-output-reader", (record, nowMs) -> {
                    long sentAtMs = Pipeline.sentAtMs(record.value());
                    byOutput.get(record.topic()).endToEnd.add(sentAtMs, (nowMs - sentAtMs) * 1_000);
                });
        }

        /**
         * Which broker is each pipeline's group coordinator and transaction coordinator (their internal
         * topics have one replica in this fixture, so each is unavailable while its broker restarts).
         */
        private Map<String, Object> coordinators() {
            Map<String, Object> json = new LinkedHashMap<>();
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                for (Pipeline pipeline : pipelines) {
                    int group = admin.describeConsumerGroups(List.of(pipeline.group)).describedGroups().get(pipeline.group).get()
                        .coordinator().id();
                    int transactions = admin.describeTransactions(List.of(pipeline.transactionalId)).description(pipeline.transactionalId)
                        .get().coordinatorId();
                    json.put(pipeline.variant.label(), Map.of("groupCoordinator", group, "transactionCoordinator", transactions));
                    System.out.printf("%-20s group coordinator: broker %d, transaction coordinator: broker %d%n", pipeline.variant.label(),
                        group, transactions);
                }
            } catch (Exception e) {
                json.put("error", e.toString());
            }
            return json;
        }

        /** The table per variant and window, and each fastleader variant's ratios over kafka-clients'. */
        private Map<String, Object> report(long measureStart, long measureEnd, long rollStart, long rollEnd) {
            System.out.printf("%n%-20s %-6s | %-45s | %-45s | %s%n", "", "", "commitTransaction latency, ms",
                "end-to-end latency, ms", "feed ack, ms");
            System.out.printf("%-20s %-6s | %7s %8s %8s %8s %9s | %7s %8s %8s %8s %9s | %6s %6s%n", "variant", "window",
                "count", "p50", "p99", "p99.9", "max", "count", "p50", "p99", "p99.9", "max", "p99", "max");
            Map<Pipeline, Map<String, Figures>> all = new LinkedHashMap<>();
            for (Pipeline pipeline : pipelines) {
                Map<String, Figures> windows = new LinkedHashMap<>();
                windows.put("run", Figures.of(pipeline, measureStart, measureEnd));
                windows.put("roll", Figures.of(pipeline, rollStart, rollEnd));
                all.put(pipeline, windows);
                windows.forEach((window, figures) -> System.out.printf(
                    "%-20s %-6s | %7d %8.1f %8.1f %8.1f %9.1f | %7d %8.1f %8.1f %8.1f %9.1f | %6.0f %6.0f%n",
                    pipeline.variant.label(), window,
                    figures.commit().records(), figures.commit().p50(), figures.commit().p99(), figures.commit().p999(), figures.commit().max(),
                    figures.endToEnd().records(), figures.endToEnd().p50(), figures.endToEnd().p99(), figures.endToEnd().p999(),
                    figures.endToEnd().max(), figures.feedAck().p99(), figures.feedAck().max()));
            }
            for (Pipeline pipeline : pipelines) {
                System.out.printf("%-20s transactions committed %d (%d records), aborted %d, producers replaced %d, commits called again "
                        + "after a timeout %d%s%n", pipeline.variant.label(), pipeline.committed.get(), pipeline.recordsCommitted.get(),
                    pipeline.aborted.get(), pipeline.producersReplaced.get(), pipeline.commitRetries.get(),
                    pipeline.firstError() == null ? "" : "; first error: " + pipeline.firstError());
            }
            Map<String, Object> json = new LinkedHashMap<>();
            Pipeline baseline = pipelines.stream().filter(pipeline -> !pipeline.variant.isFastLeader()).findFirst().orElse(null);
            if (baseline == null) {
                return json;
            }
            System.out.printf("%nratios over %s   %-32s | %s%n", baseline.variant.label(), "commitTransaction p50 p99 p99.9 max",
                "end-to-end p50 p99 p99.9 max");
            for (Pipeline pipeline : pipelines) {
                if (pipeline == baseline) {
                    continue;
                }
                Map<String, Object> byWindow = new LinkedHashMap<>();
                for (String window : List.of("run", "roll")) {
                    Figures mine = all.get(pipeline).get(window);
                    Figures theirs = all.get(baseline).get(window);
                    Latency.Ratios commit = mine.commit().over(theirs.commit());
                    Latency.Ratios endToEnd = mine.endToEnd().over(theirs.endToEnd());
                    byWindow.put(window, Map.of("commit", commit, "endToEnd", endToEnd));
                    System.out.printf("%-20s %-6s        %s | %s%n", pipeline.variant.label(), window, ratios(commit), ratios(endToEnd));
                }
                json.put(pipeline.variant.label() + " / " + baseline.variant.label(), byWindow);
            }
            return json;
        }

        private static String ratios(Latency.Ratios ratios) {
            return Arrays.stream(new Double[] {ratios.p50(), ratios.p99(), ratios.p999(), ratios.max()})
                .map(ratio -> ratio == null ? "   -" : String.format("%.2f", ratio))
                .collect(Collectors.joining(" ", "", "")) + " ".repeat(10);
        }

        private void printChecks(Map<Pipeline, Map<String, Object>> checks) {
            System.out.println();
            for (Pipeline pipeline : pipelines) {
                Map<String, Object> check = checks.get(pipeline);
                ExactlyOnce tally = (ExactlyOnce) check.get("tally");
                boolean committed = (Boolean) check.get("inputCommittedToItsEnd");
                String verdict = tally.holds() && committed && pipeline.died() == null ? "EXACTLY ONCE"
                    : "!!! NOT EXACTLY ONCE: " + tally.missing() + " LOST, " + tally.duplicates() + " DUPLICATED"
                    + (committed ? "" : ", input NOT committed to its end") + (pipeline.died() == null ? "" : ", pipeline DIED") + " !!!";
                System.out.printf("%-20s %d input records acknowledged (%d failed at the feed); the output (read_committed) holds %d records: "
                        + "%d missing, %d duplicated, %d whose feed send failed -> %s%n", pipeline.variant.label(), tally.acknowledged(),
                    feedFailed(check), tally.outputRecords(), tally.missing(), tally.duplicates(), tally.unacknowledgedInOutput(), verdict);
                check.put("exactlyOnce", tally.holds());
            }
        }

        private static long feedFailed(Map<String, Object> check) {
            return (Long) check.get("feedFailed");
        }

        /**
         * Waits until {@code pipeline}'s group has committed the end of its input (stable offsets: no
         * transaction pending), then reads its output from the start to its last stable offset,
         * {@code read_committed}, and tallies it against what the feed had acknowledged.
         */
        private Map<String, Object> check(Pipeline pipeline, Feed feed) throws InterruptedException {
            Map<String, Object> json = new LinkedHashMap<>();
            List<TopicPartition> inputs = partitionsOf(Set.of(pipeline.input), options.partitions());
            long waitStart = System.currentTimeMillis();
            TopicEnds.Committed end;
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                end = TopicEnds.awaitCommittedToEnd(admin, pipeline.group, inputs, DRAIN_TIMEOUT, () -> pipeline.died() != null);
            }
            boolean committed = end.committed();
            String seen = end.lastSeen();
            json.put("inputCommittedToItsEnd", committed);
            json.put("drainMs", System.currentTimeMillis() - waitStart);
            if (!committed) {
                sound = false;
                json.put("lastSeen", seen);
                System.out.printf("%s: input NOT committed to its end within %d s; last seen %s%n", pipeline.variant.label(),
                    DRAIN_TIMEOUT.toSeconds(), seen);
            }
            ExactlyOnce tally = ExactlyOnce.of(feed.acknowledged(pipeline), copies(pipeline.output));
            if (!tally.holds()) {
                sound = false;
            }
            json.put("feedFailed", feed.counts.get(pipeline).failed());
            json.put("feedFirstError", feed.counts.get(pipeline).firstError());
            json.put("tally", tally);
            return json;
        }

        /** How many times each record number stands in {@code output}, read read_committed from its start to its end. */
        private Map<Long, Integer> copies(String output) {
            Map<Long, Integer> copies = new HashMap<>();
            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                TopicEnds.readFromStartToEnd(consumer, partitionsOf(Set.of(output), options.partitions()), DRAIN_TIMEOUT,
                    record -> copies.merge(Payload.number(record.key()), 1, Integer::sum));
            }
            return copies;
        }

        /** Waits (at most 30 s) until the live reader has timed as many records per output as the check read. */
        private void awaitReader(Map<Pipeline, Map<String, Object>> checks) throws InterruptedException {
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline && pipelines.stream()
                .anyMatch(pipeline -> pipeline.endToEnd.size() < ((ExactlyOnce) checks.get(pipeline).get("tally")).outputRecords())) {
                Thread.sleep(50);
            }
        }

        /** Waits until {@code done} holds for every pipeline, failing if one died or it takes {@link #START_TIMEOUT}. */
        private void awaitPipelines(String what, java.util.function.Predicate<Pipeline> done) throws InterruptedException {
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (!pipelines.stream().allMatch(done)) {
                for (Pipeline pipeline : pipelines) {
                    if (pipeline.died() != null) {
                        throw new IllegalStateException(pipeline.variant.label() + ": the pipeline died", pipeline.died());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(what + " took over " + START_TIMEOUT);
                }
                Thread.sleep(20);
            }
        }

        /** Sleeps until {@code untilMs}, printing each pipeline's progress every {@link #PROGRESS_EVERY}. */
        private void progressUntil(long untilMs) throws InterruptedException {
            long next = System.currentTimeMillis() + PROGRESS_EVERY.toMillis();
            long now;
            while ((now = System.currentTimeMillis()) < untilMs) {
                if (now >= next) {
                    for (Pipeline pipeline : pipelines) {
                        System.out.printf("  %-20s %6d transactions committed, %7d records; %d aborted, %d producers replaced; "
                                + "%7d output records read%s%n", pipeline.variant.label(), pipeline.committed.get(),
                            pipeline.recordsCommitted.get(), pipeline.aborted.get(), pipeline.producersReplaced.get(),
                            pipeline.endToEnd.size(), pipeline.died() == null ? "" : " DIED: " + pipeline.died());
                    }
                    next += PROGRESS_EVERY.toMillis();
                }
                Thread.sleep(Math.min(200, untilMs - now));
            }
        }
    }

    /**
     * One variant's figures over one window, in ms.
     *
     * @param commit    commitTransaction latency of the commits that began in the window
     * @param endToEnd  end-to-end latency of the input records sent in the window
     * @param feedAck   the feed's send-to-acknowledgement latency of those input records
     */
    record Figures(Latency commit, Latency endToEnd, Latency feedAck) {

        static Figures of(Pipeline pipeline, long fromMs, long toMs) {
            return new Figures(pipeline.commits.latency(fromMs, toMs), pipeline.endToEnd.latency(fromMs, toMs),
                pipeline.feedAcks.latency(fromMs, toMs));
        }
    }
}
