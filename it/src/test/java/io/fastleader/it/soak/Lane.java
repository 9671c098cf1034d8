package io.fastleader.it.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.ReadBack;
import io.fastleader.it.parity.Flavour;
import io.fastleader.it.transactions.CopyPipeline;

/**
 * One library's share of the soak, on topics of its own: idempotent producers and an
 * {@code acks=1} producer, a consumer group of each protocol with member churn, a transactional
 * consume-transform-produce pipeline and a Kafka Streams {@code exactly_once_v2} application, all
 * reading the idempotent producers' topic. Every workload runs on the lane's {@link Flavour}.
 */
final class Lane {

    static final int EVENT_PARTITIONS = 6;
    static final int ACKS_ONE_PARTITIONS = 3;
    private static final short REPLICATION_FACTOR = 3;
    private static final String EVENTS = "events";
    private static final String ACKS_ONE = "acks1";
    private static final String COPIED = "copied";
    private static final String STREAMED = "streamed";
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(3);
    /** Each pipeline member closes its producer and then its consumer, 20 s each; members close together. */
    private static final Duration PIPELINE_CLOSE_TIMEOUT = Duration.ofSeconds(40);

    private final Flavour flavour;
    private final String prefix;
    private final Map<String, Object> clientConfig;
    private final Closes closes;
    private final SequencedProducers idempotent;
    private final SequencedProducers acksOne;
    private final List<ChurningGroup> groups = new ArrayList<>();
    private final CopyPipeline pipeline;
    private final Progress pipelineProgress = new Progress();
    private final StreamsCopy streams;
    private final Thread pipelineWatch;
    private volatile boolean closing;

    Lane(Flavour flavour, Map<String, Object> clientConfig, Random random, Closes closes) {
        this.flavour = flavour;
        this.prefix = prefix(flavour);
        this.clientConfig = clientConfig;
        this.closes = closes;
        this.idempotent = new SequencedProducers(prefix + "idempotent-producers", flavour, clientConfig, events(), "all", 2, 16, 50);
        this.acksOne = new SequencedProducers(prefix + "acks1-producer", flavour, clientConfig, prefix + ACKS_ONE, "1", 1, 8, 25);
        for (String protocol : List.of("classic", "consumer")) {
            groups.add(new ChurningGroup(prefix + protocol + "-group", flavour, protocol, clientConfig, events(), 1, random.nextLong(), closes));
        }
        this.pipeline = new CopyPipeline(prefix + "transactional-pipeline", flavour, clientConfig, events(), copied(), 2);
        this.streams = new StreamsCopy(prefix + "streams-eos", flavour, clientConfig, events(), streamed());
        this.pipelineWatch = new Thread(this::watchPipeline, "soak-pipeline-watch-" + flavour);
    }

    Flavour flavour() {
        return flavour;
    }

    private String events() {
        return prefix + EVENTS;
    }

    private String copied() {
        return prefix + COPIED;
    }

    private String streamed() {
        return prefix + STREAMED;
    }

    /** The topics of {@code flavour}'s lane, to create before the lane: replication factor 3, {@code min.insync.replicas} 2. */
    static List<NewTopic> topics(Flavour flavour) {
        String prefix = prefix(flavour);
        Map<String, String> configs = Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
        return List.of(
            new NewTopic(prefix + EVENTS, EVENT_PARTITIONS, REPLICATION_FACTOR).configs(configs),
            new NewTopic(prefix + ACKS_ONE, ACKS_ONE_PARTITIONS, REPLICATION_FACTOR).configs(configs),
            new NewTopic(prefix + COPIED, EVENT_PARTITIONS, REPLICATION_FACTOR).configs(configs),
            new NewTopic(prefix + STREAMED, EVENT_PARTITIONS, REPLICATION_FACTOR).configs(configs));
    }

    /** What the names of the lane's topics, groups and clients start with: {@code fastleader-} or {@code kafka-}. */
    static String prefix(Flavour flavour) {
        return flavour.name().toLowerCase() + "-";
    }

    /** The groups whose members the soak may kill, by process. */
    List<ChurningGroup> groups() {
        return groups;
    }

    /** Every group id and transactional id the lane's workloads use, for the coordinator faults. */
    List<String> groupIds() {
        List<String> ids = groups.stream().map(ChurningGroup::group).collect(Collectors.toCollection(ArrayList::new));
        ids.add(pipeline.group());
        ids.add(streams.applicationId());
        return ids;
    }

    /** The transactional ids of the pipeline's members. */
    List<String> transactionalIds() {
        return pipeline.transactionalIds();
    }

    void start() {
        pipelineProgress.begin(System.currentTimeMillis());
        pipeline.allow(Long.MAX_VALUE);
        pipelineWatch.start();
        groups.forEach(ChurningGroup::start);
        streams.start();
        idempotent.start();
        acksOne.start();
    }

    /** Stops the producers (each closed, timed) so that the readers can catch up. */
    void stopProducers() throws InterruptedException {
        idempotent.stop(closes);
        acksOne.stop(closes);
    }

    /** Waits until every group consumed every acknowledged record and the copies committed the whole input. */
    void awaitDrained(Admin admin) {
        for (ChurningGroup group : groups) {
            try {
                Await.until(group.group() + " consuming every acknowledged record", DRAIN_TIMEOUT, () -> group.consumedAll(idempotent.acked()));
            } catch (Await.ClusterStateTimeoutException e) {
                throw new IllegalStateException(e.getMessage() + " (" + group.whereItStands(admin, idempotent.acked()) + ")", e);
            }
        }
        Set<TopicPartition> input = partitions(events(), EVENT_PARTITIONS);
        Map<TopicPartition, Long> end = ReadBack.endOffsets(clientConfig, input);
        for (String copier : List.of(pipeline.group(), streams.applicationId())) {
            Await.until(copier + " committing its whole input " + end, DRAIN_TIMEOUT, () -> {
                Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(copier).partitionsToOffsetAndMetadata().get();
                // A partition that never had a record has no commit either.
                return end.entrySet().stream().allMatch(e -> e.getValue() == 0
                    || committed.containsKey(e.getKey()) && committed.get(e.getKey()).offset() >= e.getValue());
            });
        }
    }

    /** Closes every reader. */
    void close() throws InterruptedException {
        closing = true;
        pipelineWatch.join(TimeUnit.SECONDS.toMillis(10));
        for (ChurningGroup group : groups) {
            group.close();
        }
        closes.close(pipeline.name() + " (every member's producer and consumer)", PIPELINE_CLOSE_TIMEOUT, timeout -> pipeline.close());
        streams.close(closes);
    }

    /** Reads every topic of the lane back and checks each workload against it. */
    Findings verify() {
        Findings findings = new Findings();
        Map<TopicPartition, Map<Long, String>> events = ReadBack.readAll(clientConfig, partitions(events(), EVENT_PARTITIONS));
        idempotent.verify(events, findings);
        acksOne.verify(ReadBack.readAll(clientConfig, partitions(acksOne.topic(), ACKS_ONE_PARTITIONS)), findings);
        for (ChurningGroup group : groups) {
            group.verify(idempotent.acked(), findings);
        }
        verifyCopies(pipeline.name(), events(), events, ReadBack.readAll(clientConfig, partitions(copied(), EVENT_PARTITIONS)), findings);
        findings.check(pipeline.name(), pipeline.failures().isEmpty(), "members failed: " + pipeline.failures());
        findings.figure(pipeline.name(), "transactions", pipeline.events());
        verifyCopies(streams.applicationId(), events(), events, ReadBack.readAll(clientConfig, partitions(streamed(), EVENT_PARTITIONS)), findings);
        streams.report(findings);
        return findings;
    }

    /** Each workload's longest wait between two steps of progress. */
    Map<String, Progress.Stall> stalls() {
        Map<String, Progress.Stall> stalls = new LinkedHashMap<>();
        stalls.put(idempotent.name(), idempotent.progress().longest());
        stalls.put(acksOne.name(), acksOne.progress().longest());
        groups.forEach(group -> stalls.put(group.group(), group.progress().longest()));
        stalls.put(pipeline.name(), pipelineProgress.longest());
        stalls.put(streams.applicationId(), streams.progress().longest());
        return stalls;
    }

    /**
     * Checks that the output holds exactly one copy of each input record, and nothing else: read
     * {@code read_committed}, so a copy from an aborted transaction does not count.
     */
    static void verifyCopies(String name, String inputTopic, Map<TopicPartition, Map<Long, String>> input,
                             Map<TopicPartition, Map<Long, String>> output, Findings findings) {
        Map<String, Integer> copiesOf = new HashMap<>();
        long strays = 0;
        long copies = 0;
        for (Map<Long, String> partition : output.values()) {
            for (String copy : partition.values()) {
                copies++;
                int from = copy.lastIndexOf(" from ");
                String source = copy.substring(from + " from ".length());
                int at = source.indexOf('@');
                TopicPartition sourcePartition = new TopicPartition(inputTopic, Integer.parseInt(source.substring(0, at)));
                String original = input.getOrDefault(sourcePartition, Map.of()).get(Long.parseLong(source.substring(at + 1)));
                if (!copy.substring(0, from).equals(original)) {
                    strays++;
                }
                copiesOf.merge(source, 1, Integer::sum);
            }
        }
        long inputRecords = input.values().stream().mapToLong(Map::size).sum();
        long missing = 0;
        for (Map.Entry<TopicPartition, Map<Long, String>> partition : input.entrySet()) {
            for (long offset : partition.getValue().keySet()) {
                if (!copiesOf.containsKey(partition.getKey().partition() + "@" + offset)) {
                    missing++;
                }
            }
        }
        long duplicated = copiesOf.values().stream().filter(count -> count > 1).count();
        findings.figure(name, "input records", inputRecords);
        findings.figure(name, "copies committed", copies);
        findings.figure(name, "input records not copied", missing);
        findings.figure(name, "input records copied more than once", duplicated);
        findings.check(name, missing == 0, missing + " input records have no committed copy");
        findings.check(name, duplicated == 0, duplicated + " input records have more than one committed copy");
        findings.check(name, strays == 0, strays + " committed copies are of no input record");
    }

    private void watchPipeline() {
        long seen = 0;
        while (!closing) {
            long committed = pipeline.committed();
            if (committed > seen) {
                seen = committed;
                pipelineProgress.step(System.currentTimeMillis());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).collect(Collectors.toSet());
    }
}
