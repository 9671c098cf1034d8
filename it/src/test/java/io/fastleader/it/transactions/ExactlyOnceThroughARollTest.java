package io.fastleader.it.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.parity.Flavour;

/**
 * Exactly-once through a rolling restart, once per transaction protocol (a subclass per
 * {@code transaction.version}): a consume-transform-produce {@link CopyPipeline} of two
 * {@code FastLeaderConsumer} + {@code FastLeaderProducer} members copies an input topic to an
 * output topic while every broker of a real 3-broker Kafka 4.3.1 cluster is restarted in turn, and
 * the same pipeline on {@code KafkaConsumer} + {@code KafkaProducer} runs beside it through the
 * same roll, with its own topics and group, as the baseline. Afterwards a {@code read_committed}
 * {@code KafkaConsumer} reads every input record's copy exactly once from each output topic, the
 * copies of one input partition in their input order within each output partition.
 *
 * <p>The roll is paced by counts, not time: each pipeline may commit a share of the input before
 * a broker stops (it copies while the broker shuts down), another share that it must commit while
 * the broker is down, and another once the broker is back, so every stage of the roll sees
 * transactions begun, committed and, where the brokers refuse them, aborted. The fixture gives
 * the group and transaction coordinators' topics one replica; they get one on every broker here,
 * as in production, so a restart moves the coordinators instead of stopping every transaction.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
abstract class ExactlyOnceThroughARollTest {

    private static final int RECORDS = 10_000;
    private static final int PARTITIONS = 6;
    private static final int KEYS = 600;
    /** The input each stage of the roll lets through: twelfths, ten of them released during the roll. */
    private static final int SHARE = RECORDS / 12;
    private static final Duration STAGE = Duration.ofSeconds(90);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    /** Starts the subclass's cluster, finalized at {@code transactionVersion}, its coordinators replicated on every broker. */
    static void startCluster(int transactionVersion) {
        cluster = ClusterSpec.builder().execution(Execution.IN_JVM).transactionVersion(transactionVersion).start();
        disturbances = new Disturbances(cluster);
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            // Coordinator lookups create the coordinators' topics; the answers themselves do not matter.
            ignoreFailure(() -> admin.listConsumerGroupOffsets("create-the-offsets-topic").partitionsToOffsetAndMetadata().get());
            ignoreFailure(() -> admin.describeTransactions(List.of("create-the-transaction-log"),
                    new DescribeTransactionsOptions().timeoutMs(30_000)).all().get());
        }
        disturbances.replicateOnEveryBroker("__consumer_offsets");
        disturbances.replicateOnEveryBroker("__transaction_state");
    }

    @AfterAll
    static void stopCluster() {
        disturbances.close();
        cluster.close();
    }

    @ParameterizedTest(name = "leader hints {0}")
    @ValueSource(booleans = {true, false})
    void everyInputRecordIsCopiedExactlyOnceWhileEveryBrokerRestarts(boolean hints) throws Exception {
        Map<String, Object> fastleaderConfig = new HashMap<>(cluster.clientConfig());
        fastleaderConfig.put(FastLeaderConfigs.LEADER_HINTS_ENABLED, hints);
        String run = "hints-" + hints;
        List<CopyPipeline> pipelines = new ArrayList<>();
        try {
            pipelines.add(pipeline("fastleader-" + run, Flavour.FASTLEADER, fastleaderConfig));
            pipelines.add(pipeline("kafka-" + run, Flavour.KAFKA, cluster.clientConfig()));
            Set<String> topics = new TreeSet<>(Set.of("__consumer_offsets", "__transaction_state"));
            pipelines.forEach(pipeline -> topics.addAll(List.of(input(pipeline), output(pipeline))));

            long[] released = {SHARE};
            allowAndAwait(pipelines, released[0], "before the roll");
            disturbances.rollingRestart(StopStyle.GRACEFUL, topics, new Disturbances.RollSteps() {
                @Override
                public void beforeStop(int nodeId) {
                    // Not awaited: copied while the broker shuts down, whatever is left by then while it is down.
                    released[0] += SHARE;
                    pipelines.forEach(pipeline -> pipeline.allow(released[0]));
                    stage(pipelines, "broker " + nodeId + " stopping");
                }

                @Override
                public void whileStopped(int nodeId) {
                    released[0] += SHARE;
                    allowAndAwait(pipelines, released[0], "while broker " + nodeId + " is down");
                }

                @Override
                public void afterRestart(int nodeId) {
                    released[0] += SHARE;
                    allowAndAwait(pipelines, released[0], "once broker " + nodeId + " is back");
                }
            });
            pipelines.forEach(pipeline -> pipeline.allow(Long.MAX_VALUE));
            for (CopyPipeline pipeline : pipelines) {
                awaitEveryInputRecordCommitted(pipeline);
            }
        } finally {
            for (CopyPipeline pipeline : pipelines) {
                pipeline.close();
            }
        }

        for (CopyPipeline pipeline : pipelines) {
            System.out.printf("%s: %d input records committed (%d copied again), %s%n", pipeline.name(), pipeline.committed(),
                    pipeline.committed() - RECORDS, new TreeMap<>(pipeline.events()));
            assertThat(pipeline.failures()).as("%s's members' failures", pipeline.name()).isEmpty();
            assertCopiedExactlyOnceInOrder(pipeline);
        }
    }

    /** A pipeline of two members, with an input topic of {@link #RECORDS} keyed records and an empty output topic. */
    private static CopyPipeline pipeline(String name, Flavour flavour, Map<String, Object> config) throws Exception {
        String input = name + "-in";
        String output = name + "-out";
        for (String topic : List.of(input, output)) {
            disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3).configs(Map.of("min.insync.replicas", "2")));
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(input, "key-" + i % KEYS, "record-" + i));
            }
            producer.flush();
        }
        return new CopyPipeline(name, flavour, config, input, output, 2);
    }

    private static String input(CopyPipeline pipeline) {
        return pipeline.name() + "-in";
    }

    private static String output(CopyPipeline pipeline) {
        return pipeline.name() + "-out";
    }

    /** Lets every pipeline commit up to {@code records} input records, and waits until each has. */
    private static void allowAndAwait(List<CopyPipeline> pipelines, long records, String stage) {
        pipelines.forEach(pipeline -> pipeline.allow(records));
        stage(pipelines, stage);
        for (CopyPipeline pipeline : pipelines) {
            Await.until(pipeline.name() + " committing " + records + " input records " + stage, STAGE,
                    () -> pipeline.committed() >= records || !pipeline.failures().isEmpty());
            assertThat(pipeline.failures()).as("%s's members' failures %s", pipeline.name(), stage).isEmpty();
        }
    }

    /** Prints where each pipeline is as a stage of the roll begins. */
    private static void stage(List<CopyPipeline> pipelines, String stage) {
        System.out.printf("%s: %s%n", stage, pipelines.stream()
                .map(pipeline -> pipeline.name() + " committed " + pipeline.committed() + " " + new TreeMap<>(pipeline.events())).toList());
    }

    /** Waits until the pipeline's group has committed every input partition's end offset. */
    private static void awaitEveryInputRecordCommitted(CopyPipeline pipeline) {
        String input = input(pipeline);
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                latest.put(new TopicPartition(input, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> end = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((partition, info) -> end.put(partition, info.offset()));
            Await.until(pipeline.name() + " committing every input offset " + end, STAGE, () -> {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(pipeline.group(),
                        new ListConsumerGroupOffsetsOptions().requireStable(true)).partitionsToOffsetAndMetadata().get();
                return end.entrySet().stream().allMatch(e -> committed.get(e.getKey()) != null
                        && committed.get(e.getKey()).offset() == e.getValue());
            });
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every input record's copy is in the output exactly once, with its key, and the copies of one
     * input partition that share an output partition are in their input order.
     */
    private static void assertCopiedExactlyOnceInOrder(CopyPipeline pipeline) {
        List<ConsumerRecord<String, String>> copies;
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            copies = ReadCommitted.records(admin, cluster.clientConfig(), output(pipeline), PARTITIONS);
        }
        Map<String, Integer> times = new TreeMap<>();
        Map<String, Long> lastOffset = new HashMap<>();
        List<String> outOfOrder = new ArrayList<>();
        for (ConsumerRecord<String, String> copy : copies) {
            String[] valueFrom = copy.value().split(" from ");
            String[] partitionAtOffset = valueFrom[1].split("@");
            int i = Integer.parseInt(valueFrom[0].substring("record-".length()));
            assertThat(copy.key()).as("the key of the copy of %s", valueFrom[0]).isEqualTo("key-" + i % KEYS);
            times.merge(valueFrom[0], 1, Integer::sum);
            String pair = partitionAtOffset[0] + "->" + copy.partition();
            long offset = Long.parseLong(partitionAtOffset[1]);
            Long before = lastOffset.put(pair, offset);
            if (before != null && before >= offset) {
                outOfOrder.add(copy.value() + " in output partition " + copy.partition() + " after input offset " + before);
            }
        }
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            if (!times.containsKey("record-" + i)) {
                missing.add("record-" + i);
            }
        }
        Map<String, Integer> duplicated = new TreeMap<>();
        times.forEach((record, count) -> {
            if (count > 1) {
                duplicated.put(record, count);
            }
        });
        assertThat(missing).as("%s: input records without a copy", pipeline.name()).isEmpty();
        assertThat(duplicated).as("%s: input records copied more than once", pipeline.name()).isEmpty();
        assertThat(copies).as("%s: copies", pipeline.name()).hasSize(RECORDS);
        assertThat(outOfOrder).as("%s: copies out of their input order", pipeline.name()).isEmpty();
    }

    private static void ignoreFailure(Call call) {
        try {
            call.run();
        } catch (Exception e) {
            // Only the side effect was wanted.
        }
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }
}
