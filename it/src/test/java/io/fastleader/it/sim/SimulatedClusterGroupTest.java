package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;

/**
 * Consumers, unmodified, in one group of a 3-broker simulated cluster reading a 6-partition topic:
 * FastLeaderConsumer and KafkaConsumer 4.3.1, each with {@code group.protocol=classic} and
 * {@code consumer} (KIP-848), and the two clients mixed in one group. Each member commits after
 * every poll and when partitions are revoked; every record must be read once across the group,
 * and every partition's committed offset must end at its log end.
 */
class SimulatedClusterGroupTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "readers";
    private static final int PARTITIONS = 6;
    private static final int ROUND = 300;
    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * Three rounds of records, each produced once the group has settled: with both members (each
     * reads some), after one member left (the other reads every partition), and after the group's
     * coordinator moved.
     */
    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @CsvSource({"fastleader, classic", "fastleader, consumer", "kafka, classic", "kafka, consumer"})
    void twoMembersShareTheTopicAndOneKeepsReadingAfterALeaveAndACoordinatorMove(String client, String protocol)
        throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Consumption consumption = new Consumption();
            Member first = new Member("first", client, protocol, cluster, consumption);
            Member second = new Member("second", client, protocol, cluster, consumption);
            try (first; second; Producer<String, String> producer = producer(cluster)) {
                assertThat(cluster.awaitGroupMembers(GROUP, 2, WAIT)).hasSize(2);
                consumption.awaitAssigned(Map.of(first, 3, second, 3));
                produce(producer, 0);
                consumption.awaitRecords(ROUND);
                assertThat(consumption.readBy(first)).isPositive();
                assertThat(consumption.readBy(second)).isPositive();

                second.close();
                assertThat(cluster.awaitGroupMembers(GROUP, 1, WAIT)).hasSize(1);
                consumption.awaitAssigned(Map.of(first, PARTITIONS));
                produce(producer, 1);
                consumption.awaitRecords(2 * ROUND);

                int before = cluster.coordinator(GROUP);
                cluster.moveCoordinator(GROUP, (before + 1) % 3);
                produce(producer, 2);
                consumption.awaitRecords(3 * ROUND);
            }
            ApiKey membership = protocol.equals("classic") ? ApiKey.JOIN_GROUP : ApiKey.CONSUMER_GROUP_HEARTBEAT;
            ApiKey other = protocol.equals("classic") ? ApiKey.CONSUMER_GROUP_HEARTBEAT : ApiKey.JOIN_GROUP;
            assertThat(cluster.requestsServed(membership)).as("the group protocol asked for").isPositive();
            assertThat(cluster.requestsServed(other)).isZero();
            assertEveryRecordReadOnce(consumption, 3 * ROUND);
            assertCommittedAtTheLogEnd(cluster);
        }
    }

    /**
     * Records flow while a second and a third member join, so partitions change hands with records
     * in flight; once each member holds 2 partitions, a last round shows that each reads. Classic
     * members use their clients' default assignors (eager range first), or the cooperative sticky
     * one.
     */
    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @CsvSource({"fastleader, classic", "fastleader, consumer", "kafka, classic", "kafka, consumer", "mixed, classic",
        "mixed, consumer", "fastleader-cooperative, classic", "kafka-cooperative, classic", "mixed-cooperative, classic"})
    void membersJoiningWhileRecordsFlowTakeOverPartitionsWithoutAnyRecordReadTwice(String client, String protocol)
        throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Consumption consumption = new Consumption();
            List<Member> members = new ArrayList<>();
            AtomicInteger rounds = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            try (Producer<String, String> producer = producer(cluster)) {
                // rounds of records flow while members join and partitions change hands
                Thread producing = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            produce(producer, rounds.getAndIncrement());
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "simgroups-producer");
                members.add(new Member("m0", memberClient(client, 0), protocol, cluster, consumption));
                producing.start();
                for (int m = 1; m < 3; m++) {
                    consumption.awaitRecords(m * 2 * ROUND);
                    members.add(new Member("m" + m, memberClient(client, m), protocol, cluster, consumption));
                }
                consumption.awaitAssigned(Map.of(members.get(0), 2, members.get(1), 2, members.get(2), 2));
                stop.set(true);
                producing.join();
                produce(producer, rounds.getAndIncrement());
                consumption.awaitRecords(rounds.get() * ROUND);
            } finally {
                for (Member member : members) {
                    member.close();
                }
            }
            assertEveryRecordReadOnce(consumption, rounds.get() * ROUND);
            assertThat(members).allSatisfy(member -> assertThat(consumption.readBy(member)).as(member.toString()).isPositive());
            assertCommittedAtTheLogEnd(cluster);
        }
    }

    /**
     * A member that stops polling for longer than {@code max.poll.interval.ms} leaves the group,
     * and the other reads every partition meanwhile; once it polls again it joins again and reads
     * its share, with no record read twice.
     */
    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @CsvSource({"fastleader, classic", "fastleader, consumer", "kafka, classic", "kafka, consumer"})
    void aMemberThatStopsPollingLeavesAndJoinsAgainWhenItPolls(String client, String protocol) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Consumption consumption = new Consumption();
            Map<String, Object> pollWithin = Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 1_000);
            Member first = new Member("first", client, protocol, cluster, consumption, pollWithin);
            Member second = new Member("second", client, protocol, cluster, consumption, pollWithin);
            try (first; second; Producer<String, String> producer = producer(cluster)) {
                consumption.awaitAssigned(Map.of(first, 3, second, 3));
                produce(producer, 0);
                consumption.awaitRecords(ROUND);

                second.stall();
                assertThat(cluster.awaitGroupMembers(GROUP, 1, WAIT)).hasSize(1);
                consumption.awaitHolding(first, PARTITIONS);
                produce(producer, 1);
                consumption.awaitRecords(2 * ROUND);
                int readBySecond = consumption.readBy(second);

                second.resume();
                consumption.awaitAssigned(Map.of(first, 3, second, 3));
                produce(producer, 2);
                consumption.awaitRecords(3 * ROUND);
                assertThat(consumption.readBy(second)).as("second reads again").isGreaterThan(readBySecond);
            }
            assertEveryRecordReadOnce(consumption, 3 * ROUND);
        }
    }

    /**
     * The group's coordinator is stopped, then its successor killed and failed over: each time the
     * group moves to another broker, as its {@code __consumer_offsets} partition would, and the
     * members go on reading and committing there.
     */
    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @CsvSource({"fastleader, classic", "fastleader, consumer", "kafka, classic", "kafka, consumer"})
    void theGroupKeepsReadingWhenItsCoordinatorStopsAndWhenItIsKilledAndFailedOver(String client, String protocol)
        throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Consumption consumption = new Consumption();
            Member first = new Member("first", client, protocol, cluster, consumption);
            Member second = new Member("second", client, protocol, cluster, consumption);
            try (first; second; Producer<String, String> producer = producer(cluster)) {
                consumption.awaitAssigned(Map.of(first, 3, second, 3));
                produce(producer, 0);
                consumption.awaitRecords(ROUND);

                int stopped = cluster.coordinator(GROUP);
                cluster.stopBroker(stopped);
                produce(producer, 1);
                consumption.awaitRecords(2 * ROUND);

                int killed = cluster.coordinator(GROUP);
                assertThat(killed).isNotEqualTo(stopped);
                cluster.killBroker(killed);
                cluster.failOver(killed);
                produce(producer, 2);
                consumption.awaitRecords(3 * ROUND);
                assertThat(cluster.coordinator(GROUP)).isNotIn(stopped, killed);
            }
            assertEveryRecordReadOnce(consumption, 3 * ROUND);
            assertCommittedAtTheLogEnd(cluster);
        }
    }

    /**
     * The coordinator refuses some requests of each kind first, with the errors a loading or moving
     * coordinator answers; the members retry, find it again, and read every record once.
     */
    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @CsvSource({"fastleader, classic", "fastleader, consumer", "kafka, classic", "kafka, consumer"})
    void theGroupReadsEveryRecordOnceThroughCoordinatorErrors(String client, String protocol) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            int coordinator = cluster.coordinator(GROUP);
            for (int broker : cluster.brokerIds()) {
                cluster.injectError(broker, ApiKey.FIND_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, 1);
            }
            ApiKey membership = protocol.equals("classic") ? ApiKey.JOIN_GROUP : ApiKey.CONSUMER_GROUP_HEARTBEAT;
            cluster.injectError(coordinator, membership, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 2);
            cluster.injectError(coordinator, ApiKey.OFFSET_FETCH, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 2);
            Consumption consumption = new Consumption();
            Member first = new Member("first", client, protocol, cluster, consumption);
            Member second = new Member("second", client, protocol, cluster, consumption);
            try (first; second; Producer<String, String> producer = producer(cluster)) {
                consumption.awaitAssigned(Map.of(first, 3, second, 3));
                produce(producer, 0);
                consumption.awaitRecords(ROUND);

                cluster.injectError(coordinator, ApiKey.OFFSET_COMMIT, ErrorCode.NOT_COORDINATOR, 2);
                if (protocol.equals("classic")) {
                    cluster.injectError(coordinator, ApiKey.HEARTBEAT, ErrorCode.NOT_COORDINATOR, 1);
                }
                produce(producer, 1);
                consumption.awaitRecords(2 * ROUND);
            }
            assertThat(cluster.requestLog()).as("the membership, OffsetFetch and OffsetCommit errors each met")
                .filteredOn(logged -> !logged.faults().isEmpty()
                    && Set.of(membership, ApiKey.OFFSET_FETCH, ApiKey.OFFSET_COMMIT).contains(logged.api()))
                .hasSize(6);
            assertEveryRecordReadOnce(consumption, 2 * ROUND);
            assertCommittedAtTheLogEnd(cluster);
        }
    }

    /**
     * Members subscribe to a topic that does not exist yet; once it is created, they share its
     * partitions and read it.
     */
    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @CsvSource({"fastleader, classic", "fastleader, consumer", "kafka, classic", "kafka, consumer"})
    void membersSubscribedBeforeTheTopicExistsShareItOnceCreated(String client, String protocol) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            Consumption consumption = new Consumption();
            Member first = new Member("first", client, protocol, cluster, consumption);
            Member second = new Member("second", client, protocol, cluster, consumption);
            try (first; second; Producer<String, String> producer = producer(cluster)) {
                assertThat(cluster.awaitGroupMembers(GROUP, 2, WAIT)).hasSize(2);
                cluster.createTopic(TOPIC, PARTITIONS, 3);
                consumption.awaitAssigned(Map.of(first, 3, second, 3));
                produce(producer, 0);
                consumption.awaitRecords(ROUND);
            }
            assertEveryRecordReadOnce(consumption, ROUND);
        }
    }

    /**
     * The client of member {@code index}: {@code mixed} alternates fastleader and kafka, keeping a
     * {@code -cooperative} suffix.
     */
    private static String memberClient(String client, int index) {
        return client.startsWith("mixed") ? client.replace("mixed", index % 2 == 0 ? "fastleader" : "kafka") : client;
    }

    private static void produce(Producer<String, String> producer, int round) throws Exception {
        List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < ROUND; i++) {
            sent.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "key-" + i, round + "-" + i)));
        }
        for (Future<?> future : sent) {
            future.get(30, TimeUnit.SECONDS);
        }
    }

    private static Producer<String, String> producer(SimulatedCluster cluster) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /** What the members read, and what each holds; every change wakes the test's waits. */
    private static final class Consumption {
        private final Map<String, Integer> timesRead = new HashMap<>();
        private final Map<Member, Integer> readBy = new HashMap<>();
        private final Map<Member, Set<TopicPartition>> assigned = new HashMap<>();

        synchronized void read(Member member, ConsumerRecord<String, String> record) {
            timesRead.merge(record.partition() + "@" + record.offset(), 1, Integer::sum);
            readBy.merge(member, 1, Integer::sum);
            notifyAll();
        }

        synchronized void assigned(Member member, Set<TopicPartition> partitions) {
            assigned.put(member, Set.copyOf(partitions));
            notifyAll();
        }

        synchronized int readBy(Member member) {
            return readBy.getOrDefault(member, 0);
        }

        synchronized Map<String, Integer> timesRead() {
            return Map.copyOf(timesRead);
        }

        synchronized void awaitRecords(int count) throws InterruptedException {
            await(() -> timesRead.size() >= count, () -> timesRead.size() + " records read, not " + count);
        }

        /** Waits until {@code member} holds {@code count} partitions, whatever the others think they hold. */
        synchronized void awaitHolding(Member member, int count) throws InterruptedException {
            await(() -> assigned.getOrDefault(member, Set.of()).size() == count, () -> "assignments " + assigned);
        }

        /** Waits until each member holds that many partitions and nobody else holds any. */
        synchronized void awaitAssigned(Map<Member, Integer> counts) throws InterruptedException {
            await(() -> assigned.entrySet().stream().allMatch(e -> e.getValue().size() == counts.getOrDefault(e.getKey(), 0))
                    && counts.keySet().stream().allMatch(assigned::containsKey),
                () -> "assignments " + assigned);
        }

        private void await(BooleanSupplier done, Supplier<String> state)
            throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!done.getAsBoolean()) {
                long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (remainingMs <= 0) {
                    throw new AssertionError("after " + WAIT + ": " + state.get());
                }
                wait(remainingMs);
            }
        }
    }

    /** A group member polling on its own thread, committing after each poll, until closed. */
    private static final class Member implements AutoCloseable {
        private final String name;
        private final Consumer<String, String> consumer;
        private final Thread thread;
        private final Consumption consumption;
        private volatile boolean stopping;
        private volatile Throwable failure;
        private volatile CountDownLatch stalled;

        Member(String name, String client, String protocol, SimulatedCluster cluster, Consumption consumption) {
            this(name, client, protocol, cluster, consumption, Map.of());
        }

        Member(String name, String client, String protocol, SimulatedCluster cluster, Consumption consumption,
               Map<String, Object> extraConfig) {
            this.name = name;
            this.consumption = consumption;
            Map<String, Object> config = new HashMap<>();
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            config.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            if (protocol.equals("classic")) {
                // a rebalance is noticed at the next heartbeat: every 200 ms rather than 3 s
                config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200);
                config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
            }
            config.putAll(extraConfig);
            if (client.endsWith("-cooperative")) {
                config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
            }
            this.consumer = client.startsWith("fastleader")
                ? new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer())
                : new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
            this.thread = new Thread(this::run, "simgroups-member-" + name);
            thread.start();
        }

        private void run() {
            try {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        commit();
                        consumption.assigned(Member.this, consumer.assignment().stream()
                            .filter(tp -> !partitions.contains(tp)).collect(Collectors.toSet()));
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        consumption.assigned(Member.this, consumer.assignment());
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        consumption.assigned(Member.this, Set.of());
                    }
                });
                while (!stopping) {
                    var records = consumer.poll(Duration.ofMillis(100));
                    records.forEach(record -> consumption.read(this, record));
                    if (!records.isEmpty()) {
                        commit();
                    }
                    CountDownLatch stall = stalled;
                    if (stall != null) {
                        stall.await();
                    }
                }
            } catch (Throwable e) {
                failure = e;
            } finally {
                consumer.close();
                consumption.assigned(this, Set.of());
            }
        }

        /**
         * Commits what was read. A commit can be refused for a while: a cooperative member's
         * revocation comes while the group is rebalancing, and a KIP-848 member's commit sent with
         * the epoch its next heartbeat answer bumps is stale (the simulation checks epochs as
         * brokers before KIP-1251 do). The positions were committed after the poll that returned
         * their records, or are after the next one, so nothing is lost; a record read twice would
         * fail the test.
         */
        private void commit() {
            try {
                consumer.commitSync();
            } catch (RebalanceInProgressException | CommitFailedException | StaleMemberEpochException e) {
                // committed after the next poll, or already
            }
        }

        /** The member stops polling after its current poll and commit, until {@link #resume}. */
        void stall() {
            stalled = new CountDownLatch(1);
        }

        void resume() {
            stalled.countDown();
            stalled = null;
        }

        @Override
        public void close() throws InterruptedException {
            if (!thread.isAlive()) {
                return;
            }
            stopping = true; // the loop ends after its poll and commit, so the last records read are committed
            thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(thread.isAlive()).as(name + " closed").isFalse();
            assertThat(failure).as(name + " failed").isNull();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static void assertEveryRecordReadOnce(Consumption consumption, int records) {
        assertThat(consumption.timesRead()).as("every record read once across the group").hasSize(records)
            .allSatisfy((record, times) -> assertThat(times).as(record).isEqualTo(1));
    }

    private static void assertCommittedAtTheLogEnd(SimulatedCluster cluster) {
        for (int p = 0; p < PARTITIONS; p++) {
            TopicPartition tp = new TopicPartition(TOPIC, p);
            assertThat(cluster.committed(GROUP, tp)).as("committed " + tp).map(OffsetAndMetadata::offset)
                .contains(cluster.highWatermark(tp));
        }
    }
}
