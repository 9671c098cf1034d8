package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.group.RecordingListener;

/**
 * Group members side by side: one {@code KafkaConsumer} 4.3.1 under {@code group.protocol=consumer}
 * and one {@code FastLeaderConsumer}, each alone in a group of its own on a real 3-broker cluster,
 * driven through the same calls; what the application sees (listener calls, exceptions, the group
 * as the coordinator describes it) must be the same.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupParityTest {

    private static final String TOPIC = "grouped";
    private static final int RECORDS = 30;
    private static final Duration SETTLED = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    private static int groups;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM, brokerConfig = {
            "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500",
            "group.consumer.min.session.timeout.ms=6000", "group.consumer.session.timeout.ms=6000"}) KafkaTestCluster started) throws Exception {
        cluster = started;
        disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(TOPIC, 3, (short) 3));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, i % 3, "key", "value-" + i)).get();
            }
        }
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    /**
     * {@code wakeup()} is for a blocked call: a close that finds one pending still commits (in the
     * listener, as applications do, or by auto-commit), revokes and leaves.
     */
    @ParameterizedTest(name = "auto-commit {0}")
    @ValueSource(booleans = {false, true})
    void aWakeupPendingWhenClosedDoesNotStopTheMemberCommittingAndLeaving(boolean autoCommit) throws Exception {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            List<String> events = new ArrayList<>();
            Map<String, Object> config = memberConfig(group);
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, autoCommit);
            // Nothing auto-committed while polling: only the close commits.
            config.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 600_000);
            Consumer<String, String> consumer = flavour.consumer(config);
            try {
                consumer.subscribe(List.of(TOPIC), autoCommit ? new RecordingListener(events, true) : committingOnRevoke(consumer, events));
                Set<String> read = new HashSet<>();
                Await.until("every record read", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.partition() + "@" + record.offset()));
                    return read.size() == RECORDS;
                });
                consumer.wakeup();
            } finally {
                consumer.close();
            }
            events.add("members after close " + members(group));
            events.add("committed " + committed(group));
            seen.put(flavour, events);
        }

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).endsWith("revoked " + everything,
                "members after close 0", "committed {grouped-0=10, grouped-1=10, grouped-2=10}");
    }

    /** Listener and commit callbacks run on the application's thread, the one calling the consumer. */
    @Test
    void callbacksRunOnTheThreadThatCallsTheConsumer() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Thread caller = Thread.currentThread();
            List<String> events = new ArrayList<>();
            Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)));
            try {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        events.add("revoked on the caller " + (Thread.currentThread() == caller));
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        events.add("assigned on the caller " + (Thread.currentThread() == caller));
                    }
                });
                Await.until("the member's assignment", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return !consumer.assignment().isEmpty();
                });
                consumer.commitAsync((offsets, failure) -> events.add("commit callback on the caller "
                        + (Thread.currentThread() == caller) + ", failure " + failure));
                Await.until("the commit callback", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return events.stream().anyMatch(event -> event.startsWith("commit"));
                });
                consumer.unsubscribe();
                // Up to here: KafkaConsumer revokes again in close() (a difference listed in clients/README).
                seen.put(flavour, List.copyOf(events));
            } finally {
                consumer.close();
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned on the caller true",
                "commit callback on the caller true, failure null", "revoked on the caller true");
    }

    /**
     * A member whose first assignment is empty (a {@code SubscriptionPattern} no topic matches) is
     * still told, with an empty {@code onPartitionsAssigned}: every completed reconciliation ends so.
     */
    @Test
    void aMemberJoiningWithNoPartitionsIsToldItsEmptyAssignment() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            List<String> events = new ArrayList<>();
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                consumer.subscribe(new SubscriptionPattern("no-topic-matches-this-.*"), new RecordingListener(events, true));
                Await.until("the member's first reconciliation", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return !events.isEmpty();
                });
                seen.put(flavour, List.copyOf(events));
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned []");
    }

    /**
     * A member alone in its group that stops polling for longer than {@code max.poll.interval.ms}
     * leaves; its {@code commitSync} still stores what it read (the group is empty, and the commit no
     * longer carries a member epoch), and the next {@code poll} gives the partitions up as lost,
     * rejoins and goes on from there: nothing is handed out again.
     */
    @Test
    void aMemberPastItsPollIntervalCommitsAndRejoinsWhereItLeftOff() throws Exception {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            List<String> events = new ArrayList<>();
            Map<String, Object> config = memberConfig(group);
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 5_000);
            try (Consumer<String, String> consumer = flavour.consumer(config)) {
                consumer.subscribe(List.of(TOPIC), new RecordingListener(events, true));
                Set<String> read = new HashSet<>();
                Await.until("every record read", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.partition() + "@" + record.offset()));
                    return read.size() == RECORDS;
                });
                // No poll now: the member leaves once its poll interval is over.
                Await.until("the member left for its expired poll interval", SETTLED, () -> members(group) == 0);
                events.add("commitSync " + outcome(consumer::commitSync));
                events.add("committed " + committed(group));
                List<String> readAgain = new ArrayList<>();
                Await.until("the member back with its partitions", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> readAgain.add(record.partition() + "@" + record.offset()));
                    return consumer.assignment().size() == 3;
                });
                Map<String, Long> positions = new TreeMap<>();
                consumer.assignment().forEach(partition -> positions.put(partition.toString(), consumer.position(partition)));
                consumer.poll(Duration.ofMillis(100)).forEach(record -> readAgain.add(record.partition() + "@" + record.offset()));
                events.add("positions " + positions);
                events.add("read again " + readAgain);
            }
            seen.put(flavour, events);
        }

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned " + everything,
                "commitSync done", "committed {grouped-0=10, grouped-1=10, grouped-2=10}", "lost " + everything,
                "assigned " + everything, "positions {grouped-0=10, grouped-1=10, grouped-2=10}", "read again []",
                "revoked " + everything);
    }

    /** {@code subscribe(Pattern)} over a subscription to topics is refused, as mixing subscription kinds always is. */
    @Test
    void aPatternOverATopicSubscriptionIsRefused() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                consumer.subscribe(List.of(TOPIC));
                seen.put(flavour, List.of(
                        "pattern " + outcome(() -> consumer.subscribe(Pattern.compile("group.*"))),
                        "subscription pattern " + outcome(() -> consumer.subscribe(new SubscriptionPattern("group.*"))),
                        "subscription " + consumer.subscription()));
            }
        }

        String refused = "IllegalStateException: Subscription to topics, partitions and pattern are mutually exclusive";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly("pattern " + refused, "subscription pattern " + refused, "subscription [grouped]");
    }

    /** A subscription to topics after a {@code Pattern} one is refused the same way. */
    @Test
    void topicsOverAPatternSubscriptionAreRefused() {
        Map<Flavour, String> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                consumer.subscribe(Pattern.compile("group.*"));
                seen.put(flavour, outcome(() -> consumer.subscribe(List.of(TOPIC))));
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .isEqualTo("IllegalStateException: Subscription to topics, partitions and pattern are mutually exclusive");
    }

    /** A null rebalance listener is refused by every {@code subscribe} that takes one. */
    @Test
    void aNullListenerIsRefused() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                seen.put(flavour, List.of(
                        outcome(() -> consumer.subscribe(List.of(TOPIC), null)),
                        outcome(() -> consumer.subscribe(Pattern.compile("group.*"), null)),
                        outcome(() -> consumer.subscribe(new SubscriptionPattern("group.*"), null)),
                        "subscription " + consumer.subscription()));
            }
        }

        String refused = "IllegalArgumentException: RebalanceListener cannot be null";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly(refused, refused, refused, "subscription []");
    }

    /** Under a {@code SubscriptionPattern} the coordinator matches the topics: {@code subscription()} names none. */
    @Test
    void aSubscriptionPatternReportsNoSubscribedTopics() {
        Map<Flavour, String> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                consumer.subscribe(new SubscriptionPattern("group.*"));
                Await.until("the member's assignment", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return !consumer.assignment().isEmpty();
                });
                seen.put(flavour, "assignment " + new TreeSet<>(consumer.assignment().stream().map(TopicPartition::toString).toList())
                        + ", subscription " + consumer.subscription());
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .isEqualTo("assignment [grouped-0, grouped-1, grouped-2], subscription []");
    }

    /** Group calls without a {@code group.id} are refused with the same exception and message. */
    @Test
    void groupCallsWithoutAGroupIdAreRefused() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = memberConfig("unused");
            config.remove(ConsumerConfig.GROUP_ID_CONFIG);
            try (Consumer<String, String> consumer = flavour.consumer(config)) {
                seen.put(flavour, List.of(
                        "topics " + outcome(() -> consumer.subscribe(List.of(TOPIC))),
                        "null topics " + outcome(() -> consumer.subscribe((Collection<String>) null)),
                        "pattern " + outcome(() -> consumer.subscribe(Pattern.compile("group.*"))),
                        "subscription pattern " + outcome(() -> consumer.subscribe(new SubscriptionPattern("group.*"))),
                        "commitSync " + outcome(() -> consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(1)))),
                        "committed " + outcome(() -> consumer.committed(Set.of(new TopicPartition(TOPIC, 0))))));
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA));
    }

    /** A negative close timeout is refused, and the consumer stays open. */
    @Test
    void aNegativeCloseTimeoutIsRefused() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                seen.put(flavour, List.of(
                        "close " + outcome(() -> consumer.close(Duration.ofMillis(-1))),
                        "subscribe " + outcome(() -> consumer.subscribe(List.of(TOPIC)))));
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly("close IllegalArgumentException: The timeout cannot be negative.", "subscribe done");
    }

    /**
     * A rebalance callback that throws: {@code poll} raises it once the reconciliation is done (the
     * partitions are assigned all the same), wrapped as {@code KafkaConsumer} wraps it.
     */
    @Test
    void anAssignedCallbackThatThrowsIsRaisedByPoll() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            List<String> events = new ArrayList<>();
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        throw new IllegalStateException("the application refuses " + partitions.size() + " partitions");
                    }
                });
                Await.until("the member's assignment", SETTLED, () -> {
                    String outcome = outcome(() -> consumer.poll(Duration.ofMillis(100)));
                    if (!outcome.equals("done")) {
                        events.add(outcome);
                    }
                    return !consumer.assignment().isEmpty();
                });
                seen.put(flavour, events);
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).hasSize(1);
    }

    /** {@code committed} that runs out of time: the same exception, with the same message. */
    @Test
    void aCommittedTimeoutSaysTheSame() {
        Map<Flavour, String> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                seen.put(flavour, outcome(() -> consumer.committed(Set.of(new TopicPartition(TOPIC, 0)), Duration.ZERO)));
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).isEqualTo("TimeoutException: Timeout of 0ms expired "
                + "before the last committed offset for partitions [grouped-0] could be determined. Try tuning default.api.timeout.ms "
                + "larger to relax the threshold.");
    }

    /**
     * {@code commitSync} that runs out of time: Kafka's {@code TimeoutException} from both. Its message differs on purpose
     * (clients/README, differences): {@code KafkaConsumer}'s depends on where its background thread was (an internal
     * event's expiry, or the JDK's exception's text); fastleader's says which offsets were not committed in how long.
     */
    @Test
    void aCommitSyncTimeoutIsKafkasTimeoutException() {
        Map<Flavour, RuntimeException> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)))) {
                try {
                    consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(1)), Duration.ZERO);
                } catch (RuntimeException e) {
                    seen.put(flavour, e);
                }
            }
        }

        assertThat(seen.get(Flavour.KAFKA)).isExactlyInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
        assertThat(seen.get(Flavour.FASTLEADER)).isExactlyInstanceOf(org.apache.kafka.common.errors.TimeoutException.class)
                .hasMessage("Timeout of 0ms expired before successfully committing offsets "
                        + "{grouped-0=OffsetAndMetadata{offset=1, leaderEpoch=null, metadata=''}}");
    }

    /**
     * {@code close(Duration)} while the group coordinator cannot be reached returns within its
     * timeout: one deadline for the auto-commit, the revocation and the leave, as in {@code KafkaConsumer}.
     */
    @Test
    void closeWithTheCoordinatorUnreachableReturnsWithinItsTimeout(@Cluster(brokers = 1, execution = Execution.IN_JVM, brokerConfig = {
            "group.consumer.min.heartbeat.interval.ms=500",
            "group.consumer.heartbeat.interval.ms=500"}) KafkaTestCluster single) throws Exception {
        Duration timeout = Duration.ofSeconds(5);
        String topic = "alone";
        try (Admin admin = Admin.create(single.clientConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(single.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "key", "value")).get();
        }
        Map<Flavour, Long> tookMs = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = new HashMap<>(single.clientConfig());
            config.put(ConsumerConfig.GROUP_ID_CONFIG, newGroup(flavour));
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            Consumer<String, String> consumer = flavour.consumer(config);
            try {
                consumer.subscribe(List.of(topic));
                List<String> read = new ArrayList<>();
                Await.until("the record read", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.value()));
                    return !read.isEmpty();
                });
                single.stopBroker(0);
                long startNanos = System.nanoTime();
                consumer.close(timeout);
                tookMs.put(flavour, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            } finally {
                consumer.close(Duration.ZERO);
                single.startBroker(0);
            }
        }

        long boundMs = timeout.toMillis() + 3_000;
        assertThat(tookMs.get(Flavour.KAFKA)).as("KafkaConsumer's close").isLessThan(boundMs);
        assertThat(tookMs.get(Flavour.FASTLEADER)).as("FastLeaderConsumer's close, KafkaConsumer's took %s ms", tookMs.get(Flavour.KAFKA))
                .isLessThan(boundMs);
    }

    /** What a call did: {@code done}, or the exception's simple class name and message. */
    private static String outcome(Runnable call) {
        try {
            call.run();
            return "done";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Records each callback as {@link RecordingListener} does, committing synchronously in {@code onPartitionsRevoked} first. */
    private static ConsumerRebalanceListener committingOnRevoke(Consumer<String, String> consumer, List<String> events) {
        RecordingListener recording = new RecordingListener(events, true);
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                consumer.commitSync();
                events.add("committed");
                recording.onPartitionsRevoked(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                recording.onPartitionsAssigned(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                recording.onPartitionsLost(partitions);
            }
        };
    }

    private static String newGroup(Flavour flavour) {
        return "group-parity-" + (++groups) + "-" + flavour.name().toLowerCase();
    }

    private static Map<String, Object> memberConfig(String group) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return config;
    }

    /** The offsets committed for {@code group}, by partition. */
    private static Map<String, Long> committed(String group) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Map<String, Long> offsets = new TreeMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                    .forEach((partition, offset) -> offsets.put(partition.toString(), offset.offset()));
            return offsets;
        }
    }

    /** How many members the coordinator describes in {@code group}. */
    private static int members(String group) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().size();
        }
    }
}
