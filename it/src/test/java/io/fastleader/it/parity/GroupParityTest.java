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
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
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
import org.junit.jupiter.params.provider.EnumSource;
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
 * (or classic, where a test says so) and one {@code FastLeaderConsumer}, each alone in a group of its
 * own on a real 3-broker cluster,
 * driven through the same calls; what the application sees (listener calls, exceptions, the group
 * as the coordinator describes it) must be the same.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupParityTest {

    private static final String TOPIC = "grouped";
    private static final int RECORDS = 30;
    private static final Duration SETTLED = Duration.ofSeconds(60);
    /** A member that commits only when told to, and leaves its group 5 s after its last {@code poll}. */
    private static final Map<String, Object> SHORT_POLL_INTERVAL_MANUAL_COMMITS = Map.of(
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 5_000);

    /** A member of the classic protocol, with the session and heartbeat the brokers give consumer-protocol members here. */
    private static final Map<String, Object> CLASSIC = Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic",
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    /** Groups made so far, for {@link #newGroup}; members of both flavours may run at once. */
    private static final AtomicInteger groups = new AtomicInteger();

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
        Map<String, Object> config = Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, autoCommit,
                // Nothing auto-committed while polling: only the close commits.
                ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 600_000);
        Map<Flavour, List<String>> seen = eachMember(config, (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), autoCommit ? new RecordingListener(events, true) : committingOnRevoke(consumer, events));
            readEverything(consumer);
            consumer.wakeup();
            // Closed here, so that the group can be looked at after it; eachMember's own close then returns at once.
            consumer.close();
            events.add("members after close " + members(group));
            events.add("committed " + committed(group));
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).endsWith("revoked " + everything,
                "members after close 0", "committed {grouped-0=10, grouped-1=10, grouped-2=10}");
    }

    /** Listener and commit callbacks run on the application's thread, the one calling the consumer. */
    @Test
    void callbacksRunOnTheThreadThatCallsTheConsumer() throws Exception {
        Map<Flavour, List<String>> seen = eachMember((consumer, group) -> {
            Thread caller = Thread.currentThread();
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    events.add("revoked on the caller " + (Thread.currentThread() == caller));
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    // The coordinator may first answer a join with an empty assignment (its timing, either client):
                    // only the member's partitions are counted here.
                    if (!partitions.isEmpty()) {
                        events.add("assigned on the caller " + (Thread.currentThread() == caller));
                    }
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
            return List.copyOf(events);
        });

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned on the caller true",
                "commit callback on the caller true, failure null", "revoked on the caller true");
    }

    /**
     * A member whose first assignment is empty (a {@code SubscriptionPattern} no topic matches) is
     * still told, with an empty {@code onPartitionsAssigned}: every completed reconciliation ends so.
     */
    @Test
    void aMemberJoiningWithNoPartitionsIsToldItsEmptyAssignment() throws Exception {
        Map<Flavour, List<String>> seen = eachMember((consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(new SubscriptionPattern("no-topic-matches-this-.*"), new RecordingListener(events, true));
            Await.until("the member's first reconciliation", SETTLED, () -> {
                consumer.poll(Duration.ofMillis(100));
                return !events.isEmpty();
            });
            return List.copyOf(events);
        });

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned []");
    }

    /**
     * {@code exclude.internal.topics=false} lets a {@code Pattern} match an internal topic: the member
     * is assigned {@code __consumer_offsets} beside the topic it matches too, under either protocol.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aPatternMatchesInternalTopicsWithExcludeInternalTopicsFalse(String protocol) throws Exception {
        Map<Flavour, Set<String>> seen = eachMember(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol,
                ConsumerConfig.EXCLUDE_INTERNAL_TOPICS_CONFIG, false), (consumer, group) -> {
            consumer.subscribe(Pattern.compile("__consumer_offsets|" + TOPIC));
            Set<String> topics = new TreeSet<>();
            Await.until("the member assigned the topic its pattern matches", SETTLED, () -> {
                consumer.poll(Duration.ofMillis(100));
                consumer.assignment().forEach(partition -> topics.add(partition.topic()));
                return topics.contains(TOPIC);
            });
            return topics;
        });

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("__consumer_offsets", TOPIC);
    }

    /**
     * A member alone in its group that stops polling for longer than {@code max.poll.interval.ms}
     * leaves; its {@code commitSync} still stores what it read (the group is empty, and the commit no
     * longer carries a member epoch), and the next {@code poll} gives the partitions up as lost,
     * rejoins and goes on from there: nothing is handed out again.
     */
    @Test
    void aMemberPastItsPollIntervalCommitsAndRejoinsWhereItLeftOff() throws Exception {
        Map<Flavour, List<String>> seen = eachMemberAtOnce(SHORT_POLL_INTERVAL_MANUAL_COMMITS, (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new RecordingListener(events, true));
            readEverything(consumer);
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
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned " + everything,
                "commitSync done", "committed {grouped-0=10, grouped-1=10, grouped-2=10}", "lost " + everything,
                "assigned " + everything, "positions {grouped-0=10, grouped-1=10, grouped-2=10}", "read again []",
                "revoked " + everything);
    }

    /**
     * A classic member that left for an expired poll interval is no longer in the group: its commit
     * fails with {@code CommitFailedException} and {@code KafkaConsumer}'s message, and the next
     * {@code poll} gives its partitions up as lost and joins again.
     */
    @Test
    void aClassicMemberPastItsPollIntervalHasItsCommitRefusedThenRejoins() throws Exception {
        Map<String, Object> config = new HashMap<>(CLASSIC);
        config.putAll(SHORT_POLL_INTERVAL_MANUAL_COMMITS);
        Map<Flavour, List<String>> seen = eachMemberAtOnce(config, (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new RecordingListener(events, true));
            readEverything(consumer);
            Await.until("the member left for its expired poll interval", SETTLED, () -> members(group) == 0);
            events.add("commitSync " + outcome(consumer::commitSync));
            awaitBackWithItsPartitions(consumer);
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned " + everything,
                "commitSync CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active "
                        + "group for auto partition assignment; it is likely that the consumer was kicked out of the group.",
                "lost " + everything, "assigned " + everything, "revoked " + everything);
    }

    /**
     * What a closed classic member does about its group, as {@code CloseOptions} says: a dynamic member
     * leaves by default and with {@code LEAVE_GROUP}, and stays until its session times out with
     * {@code REMAIN_IN_GROUP} (as Kafka Streams closes its consumer).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(CloseOptions.GroupMembershipOperation.class)
    void aClosedClassicMemberLeavesOrStaysAsItsCloseOptionsSay(CloseOptions.GroupMembershipOperation operation) throws Exception {
        Map<Flavour, List<String>> seen = eachMember(CLASSIC, (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new RecordingListener(events, true));
            readEverything(consumer);
            consumer.close(CloseOptions.groupMembershipOperation(operation).withTimeout(Duration.ofSeconds(30)));
            events.add("members after close " + members(group));
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        int staying = operation == CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP ? 1 : 0;
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned " + everything,
                "revoked " + everything, "members after close " + staying);
    }

    /** {@code enforceRebalance} makes a classic member join again on its next {@code poll}: a new generation, the same member id. */
    @Test
    void enforceRebalanceGivesAClassicMemberANewGeneration() throws Exception {
        Map<Flavour, List<String>> seen = eachMember(CLASSIC, (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new RecordingListener(events, true));
            readEverything(consumer);
            ConsumerGroupMetadata joined = consumer.groupMetadata();
            events.add("joined " + describe(joined, joined));
            consumer.enforceRebalance("asked by the test");
            Await.until("a new generation", SETTLED, () -> {
                consumer.poll(Duration.ofMillis(100));
                return consumer.groupMetadata().generationId() > joined.generationId() && consumer.assignment().size() == 3;
            });
            events.add("rebalanced " + describe(consumer.groupMetadata(), joined));
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).startsWith("assigned " + everything,
                "joined member id: the first, generation: the first").contains("rebalanced member id: the first, generation: a later one");
    }

    /** {@code subscribe(Pattern)} over a subscription to topics is refused, as mixing subscription kinds always is. */
    @Test
    void aPatternOverATopicSubscriptionIsRefused() throws Exception {
        Map<Flavour, List<String>> seen = eachMember((consumer, group) -> {
            consumer.subscribe(List.of(TOPIC));
            return List.of(
                    "pattern " + outcome(() -> consumer.subscribe(Pattern.compile("group.*"))),
                    "subscription pattern " + outcome(() -> consumer.subscribe(new SubscriptionPattern("group.*"))),
                    "subscription " + consumer.subscription());
        });

        String refused = "IllegalStateException: Subscription to topics, partitions and pattern are mutually exclusive";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly("pattern " + refused, "subscription pattern " + refused, "subscription [grouped]");
    }

    /** A subscription to topics after a {@code Pattern} one is refused the same way. */
    @Test
    void topicsOverAPatternSubscriptionAreRefused() throws Exception {
        Map<Flavour, String> seen = eachMember((consumer, group) -> {
            consumer.subscribe(Pattern.compile("group.*"));
            return outcome(() -> consumer.subscribe(List.of(TOPIC)));
        });

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .isEqualTo("IllegalStateException: Subscription to topics, partitions and pattern are mutually exclusive");
    }

    /** A null rebalance listener is refused by every {@code subscribe} that takes one. */
    @Test
    void aNullListenerIsRefused() throws Exception {
        Map<Flavour, List<String>> seen = eachMember((consumer, group) -> List.of(
                outcome(() -> consumer.subscribe(List.of(TOPIC), null)),
                outcome(() -> consumer.subscribe(Pattern.compile("group.*"), null)),
                outcome(() -> consumer.subscribe(new SubscriptionPattern("group.*"), null)),
                "subscription " + consumer.subscription()));

        String refused = "IllegalArgumentException: RebalanceListener cannot be null";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly(refused, refused, refused, "subscription []");
    }

    /** Under a {@code SubscriptionPattern} the coordinator matches the topics: {@code subscription()} names none. */
    @Test
    void aSubscriptionPatternReportsNoSubscribedTopics() throws Exception {
        Map<Flavour, String> seen = eachMember((consumer, group) -> {
            consumer.subscribe(new SubscriptionPattern("group.*"));
            Await.until("the member's assignment", SETTLED, () -> {
                consumer.poll(Duration.ofMillis(100));
                return !consumer.assignment().isEmpty();
            });
            return "assignment " + sorted(consumer.assignment()) + ", subscription " + consumer.subscription();
        });

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
    void aNegativeCloseTimeoutIsRefused() throws Exception {
        Map<Flavour, List<String>> seen = eachMember((consumer, group) -> List.of(
                "close " + outcome(() -> consumer.close(Duration.ofMillis(-1))),
                "subscribe " + outcome(() -> consumer.subscribe(List.of(TOPIC)))));

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly("close IllegalArgumentException: The timeout cannot be negative.", "subscribe done");
    }

    /**
     * A rebalance callback that throws: {@code poll} raises it once the reconciliation is done (the
     * partitions are assigned all the same), wrapped as {@code KafkaConsumer} wraps it.
     */
    @Test
    void anAssignedCallbackThatThrowsIsRaisedByPoll() throws Exception {
        Map<Flavour, List<String>> seen = eachMember((consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    // Not an empty assignment the coordinator may give first (its timing, either client): the member's partitions.
                    if (!partitions.isEmpty()) {
                        throw new IllegalStateException("the application refuses " + partitions.size() + " partitions");
                    }
                }
            });
            Await.until("the member's assignment", SETTLED, () -> {
                String outcome = outcome(() -> consumer.poll(Duration.ofMillis(100)));
                if (!outcome.equals("done")) {
                    events.add(outcome);
                }
                return !consumer.assignment().isEmpty();
            });
            return events;
        });

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).hasSize(1);
    }

    /** {@code committed} that runs out of time: the same exception, with the same message. */
    @Test
    void aCommittedTimeoutSaysTheSame() throws Exception {
        Map<Flavour, String> seen = eachMember(
                (consumer, group) -> outcome(() -> consumer.committed(Set.of(new TopicPartition(TOPIC, 0)), Duration.ZERO)));

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
    void aCommitSyncTimeoutIsKafkasTimeoutException() throws Exception {
        Map<Flavour, RuntimeException> seen = eachMember((consumer, group) -> {
            try {
                consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(1)), Duration.ZERO);
                return null; // no exception: the assertions below fail on it
            } catch (RuntimeException e) {
                return e;
            }
        });

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
        // A member of each flavour, each in a group of its own, reads the record; then the one broker stops under both,
        // and both close at once, each timed on a thread of its own: each waits out its close timeout alone.
        Map<Flavour, Consumer<String, String>> consumers = new EnumMap<>(Flavour.class);
        Map<Flavour, Long> tookMs;
        boolean stopped = false;
        try {
            for (Flavour flavour : Flavour.values()) {
                Map<String, Object> config = new HashMap<>(single.clientConfig());
                config.put(ConsumerConfig.GROUP_ID_CONFIG, newGroup(flavour));
                config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                consumers.put(flavour, flavour.consumer(config));
            }
            for (Consumer<String, String> consumer : consumers.values()) {
                consumer.subscribe(List.of(topic));
                List<String> read = new ArrayList<>();
                Await.until("the record read", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.value()));
                    return !read.isEmpty();
                });
            }
            single.stopBroker(0);
            stopped = true;
            Map<Flavour, Callable<Long>> closes = new EnumMap<>(Flavour.class);
            consumers.forEach((flavour, consumer) -> closes.put(flavour, () -> {
                long startNanos = System.nanoTime();
                consumer.close(timeout);
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            }));
            tookMs = SideBySide.atOnce("member", closes);
        } finally {
            consumers.values().forEach(consumer -> consumer.close(Duration.ZERO));
            if (stopped) {
                single.startBroker(0);
            }
        }

        long boundMs = timeout.toMillis() + 3_000;
        assertThat(tookMs.get(Flavour.KAFKA)).as("KafkaConsumer's close").isLessThan(boundMs);
        assertThat(tookMs.get(Flavour.FASTLEADER)).as("FastLeaderConsumer's close, KafkaConsumer's took %s ms", tookMs.get(Flavour.KAFKA))
                .isLessThan(boundMs);
    }

    /**
     * Without a rebalance listener, a member past its {@code max.poll.interval.ms}: {@code KafkaConsumer} drops its
     * partitions as soon as it leaves, so a {@code commitSync()} then commits nothing, and after rejoining the member
     * starts again from {@code auto.offset.reset}. fastleader keeps them until the next {@code poll}, as both do with a
     * listener, so its {@code commitSync()} stores what it read and it goes on from there (a difference kept, clients/README).
     */
    @Test
    void aMemberWithoutAListenerPastItsPollIntervalKeepsItsPartitionsUntilTheNextPoll() throws Exception {
        Map<Flavour, List<String>> seen = eachMemberAtOnce(SHORT_POLL_INTERVAL_MANUAL_COMMITS, (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC));
            readEverything(consumer);
            Await.until("the member left for its expired poll interval", SETTLED, () -> members(group) == 0);
            events.add("assignment " + sorted(consumer.assignment()));
            events.add("commitSync " + outcome(consumer::commitSync));
            events.add("committed " + committed(group));
            awaitBackWithItsPartitions(consumer);
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.KAFKA)).containsExactly("assignment []", "commitSync done", "committed {}");
        assertThat(seen.get(Flavour.FASTLEADER)).containsExactly("assignment " + everything, "commitSync done",
                "committed {grouped-0=10, grouped-1=10, grouped-2=10}");
    }

    /**
     * {@code groupMetadata()} of a member that left for an expired poll interval: its member id and the last
     * generation (member epoch) it had, until it rejoins on the next {@code poll}, with the same member id.
     */
    @Test
    void groupMetadataAfterAnExpiredPollIntervalKeepsTheMemberIdAndItsLastGeneration() throws Exception {
        Map<Flavour, List<String>> seen = eachMemberAtOnce(Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 5_000), (consumer, group) -> {
            List<String> events = new ArrayList<>();
            consumer.subscribe(List.of(TOPIC), new RecordingListener(events, true));
            readEverything(consumer);
            ConsumerGroupMetadata joined = consumer.groupMetadata();
            events.add("joined " + describe(joined, joined));
            Await.until("the member left for its expired poll interval", SETTLED, () -> members(group) == 0);
            events.add("left " + describe(consumer.groupMetadata(), joined));
            awaitBackWithItsPartitions(consumer);
            events.add("rejoined " + describe(consumer.groupMetadata(), joined));
            return events;
        });

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned " + everything,
                "joined member id: the first, generation: the first", "left member id: the first, generation: the first",
                "lost " + everything, "assigned " + everything, "rejoined member id: the first, generation: a later one",
                "revoked " + everything);
    }

    /**
     * A commit by a member that left for an expired poll interval, while another member is in the group: the
     * coordinator no longer knows its member id, and {@code commitSync} fails with {@code CommitFailedException}
     * and {@code KafkaConsumer}'s message.
     */
    @Test
    void aCommitAfterLeavingAGroupWithOtherMembersFailsWithKafkasMessage() throws Exception {
        // Each flavour's two members in a group of their own, the flavours' poll intervals running out at the same time.
        Map<Flavour, Callable<String>> workloads = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            Map<String, Object> config = memberConfig(group);
            config.putAll(SHORT_POLL_INTERVAL_MANUAL_COMMITS);
            Map<String, Object> stayingConfig = memberConfig(group);
            workloads.put(flavour, () -> {
                try (Consumer<String, String> leaving = flavour.consumer(config);
                     Consumer<String, String> staying = flavour.consumer(stayingConfig)) {
                    leaving.subscribe(List.of(TOPIC), new RecordingListener(new ArrayList<>(), true));
                    readEverything(leaving);
                    staying.subscribe(List.of(TOPIC));
                    Await.until("the other member in the group, and the first one gone", SETTLED, () -> {
                        staying.poll(Duration.ofMillis(100));
                        return members(group) == 1 && !describedMembers(group).isEmpty()
                                && describedMembers(group).get(0).equals(staying.groupMetadata().memberId());
                    });
                    return outcome(() -> leaving.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(5))));
                }
            });
        }
        Map<Flavour, String> seen = SideBySide.atOnce("member", workloads);

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .isEqualTo("CommitFailedException: OffsetCommit failed with unknown member ID. The coordinator is not aware of this member.");
    }

    /**
     * A commit made after {@code subscribe} and before the first {@code poll}, which is when a member joins: it
     * is made from outside the group (no member id, generation -1), as {@code KafkaConsumer}'s is, and the
     * coordinator takes it while the group is empty. The brokers' request log shows what each sent and what the
     * coordinator answered.
     */
    @Test
    void aCommitBeforeTheFirstPollIsMadeFromOutsideTheGroup() throws Exception {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            Map<String, Object> config = memberConfig(group);
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            try (CapturedLog requests = new CapturedLog("kafka.request.logger", org.apache.logging.log4j.Level.DEBUG);
                 Consumer<String, String> consumer = flavour.consumer(config)) {
                consumer.subscribe(List.of(TOPIC));
                String outcome = outcome(() -> consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(5))));
                // A broker logs a request once its answer is on the way: the client may have it first.
                List<String> commits = new ArrayList<>();
                Await.until("the broker's log of the commit", SETTLED, () -> {
                    commits.clear();
                    requests.messages().stream()
                            .filter(line -> line.contains("\"groupId\":\"" + group + "\"") && line.contains("\"requestApiKey\":8,"))
                            .forEach(line -> commits.add("epoch " + field(line, "generationIdOrMemberEpoch") + " member id "
                                    + field(line, "memberId") + " answered " + field(line, "errorCode")));
                    return !commits.isEmpty();
                });
                List<String> events = new ArrayList<>(commits);
                events.add("commitSync " + outcome);
                seen.put(flavour, events);
            }
        }
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .containsExactly("epoch -1 member id \"\" answered 0", "commitSync done");
    }

    /**
     * A member consuming and committing while its group's coordinator goes down and comes back (the broker stopped and
     * restarted, the group's coordinator moved meanwhile): fastleader hands no record out twice.
     */
    @Test
    void aCoordinatorRestartWhileConsumingHandsNothingOutTwice() throws Exception {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String topic = "outage-" + flavour.name().toLowerCase();
            int records = 300;
            disturbances.createTopic(new NewTopic(topic, 3, (short) 3));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                    new StringSerializer())) {
                for (int i = 0; i < records; i++) {
                    producer.send(new ProducerRecord<>(topic, i % 3, "key", "value-" + i));
                }
                producer.flush();
            }
            String group = newGroup(flavour);
            Map<String, Object> config = memberConfig(group);
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5);
            List<String> events = new ArrayList<>();
            try (Consumer<String, String> consumer = flavour.consumer(config)) {
                consumer.subscribe(List.of(topic), new RecordingListener(events, true));
                List<String> handedOut = new ArrayList<>();
                Set<String> failures = new TreeSet<>();
                // While the coordinator is gone (its offsets partition has one replica here) each commit
                // times out: a short timeout keeps that third of the records from taking 40 s.
                Runnable pollAndCommit = () -> {
                    try {
                        consumer.poll(Duration.ofMillis(100)).forEach(record -> handedOut.add(record.partition() + "@" + record.offset()));
                        consumer.commitSync(Duration.ofMillis(500));
                    } catch (RuntimeException e) {
                        failures.add(e.getClass().getSimpleName());
                    }
                };
                Await.until("a third read", SETTLED, () -> {
                    pollAndCommit.run();
                    return handedOut.size() >= records / 3;
                });
                int coordinator = coordinatorOf(group);
                cluster.stopBroker(coordinator);
                try {
                    Await.until("a second third read while the coordinator's broker is down", SETTLED, () -> {
                        pollAndCommit.run();
                        return handedOut.size() >= 2 * records / 3;
                    });
                } finally {
                    cluster.startBroker(coordinator);
                }
                Await.until("every record read", SETTLED, () -> {
                    pollAndCommit.run();
                    return new HashSet<>(handedOut).size() == records;
                });
                events.add("handed out twice " + (handedOut.size() - new HashSet<>(handedOut).size()));
                events.add("failures " + failures);
                disturbances.awaitFullIsr(topic);
            }
            seen.put(flavour, events);
        }

        // KafkaConsumer's count is recorded, not asserted: it handed records out again in some of the project's runs, not in others.
        assertThat(seen.get(Flavour.FASTLEADER)).contains("handed out twice 0");
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

    /** What one member does with its consumer, alone in {@code group}, and what it gives back for comparison. */
    @FunctionalInterface
    private interface MemberWorkload<T> {
        T run(Consumer<String, String> consumer, String group) throws Exception;
    }

    /** {@link #eachMember(Map, MemberWorkload)} with the member's configuration as {@link #memberConfig} gives it. */
    private static <T> Map<Flavour, T> eachMember(MemberWorkload<T> workload) throws Exception {
        return eachMember(Map.of(), workload);
    }

    /**
     * Runs {@code workload} with a member of each flavour, one after the other, each in a new group of its own, its
     * configuration {@link #memberConfig} with {@code extraConfig} on top; the consumer is closed after the workload.
     * What the workload returns is kept as it is, so a list a rebalance listener writes to also has what the listener
     * recorded while the consumer closed; a copy returned has only what came before.
     */
    private static <T> Map<Flavour, T> eachMember(Map<String, Object> extraConfig, MemberWorkload<T> workload) throws Exception {
        Map<Flavour, T> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            Map<String, Object> config = memberConfig(group);
            config.putAll(extraConfig);
            try (Consumer<String, String> consumer = flavour.consumer(config)) {
                seen.put(flavour, workload.run(consumer, group));
            }
        }
        return seen;
    }

    /**
     * {@link #eachMember(Map, MemberWorkload)}, the two members at the same time, each on a thread of its own: for
     * workloads that wait out a timer of the member's (its poll interval) and share nothing across flavours but the
     * records of {@link #TOPIC}, which they only read. Each member is built, driven and closed on its thread.
     */
    private static <T> Map<Flavour, T> eachMemberAtOnce(Map<String, Object> extraConfig, MemberWorkload<T> workload) throws Exception {
        Map<Flavour, Callable<T>> members = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            Map<String, Object> config = memberConfig(group);
            config.putAll(extraConfig);
            members.put(flavour, () -> {
                try (Consumer<String, String> consumer = flavour.consumer(config)) {
                    return workload.run(consumer, group);
                }
            });
        }
        return SideBySide.atOnce("member", members);
    }

    private static String newGroup(Flavour flavour) {
        return "group-parity-" + groups.incrementAndGet() + "-" + flavour.name().toLowerCase();
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

    /** Polls until every record of {@link #TOPIC} was handed out. */
    private static void readEverything(Consumer<String, String> consumer) {
        Set<String> read = new HashSet<>();
        Await.until("every record read", SETTLED, () -> {
            consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.partition() + "@" + record.offset()));
            return read.size() == RECORDS;
        });
    }

    /** Polls until the member, back in its group, has every partition of {@link #TOPIC} again. */
    private static void awaitBackWithItsPartitions(Consumer<String, String> consumer) {
        Await.until("the member back with its partitions", SETTLED, () -> {
            consumer.poll(Duration.ofMillis(100));
            return consumer.assignment().size() == 3;
        });
    }

    private static TreeSet<String> sorted(Collection<TopicPartition> partitions) {
        return new TreeSet<>(partitions.stream().map(TopicPartition::toString).toList());
    }

    /** A member's metadata, its member id and generation told apart from {@code first}'s. */
    private static String describe(ConsumerGroupMetadata metadata, ConsumerGroupMetadata first) {
        String id = metadata.memberId().isEmpty() ? "none" : metadata.memberId().equals(first.memberId()) ? "the first" : "another";
        int generation = metadata.generationId();
        return "member id: " + id + ", generation: " + (generation == first.generationId() ? "the first"
                : generation > first.generationId() ? "a later one" : String.valueOf(generation));
    }

    /** The member ids the coordinator describes in {@code group}. */
    private static List<String> describedMembers(String group) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().stream()
                    .map(member -> member.consumerId()).toList();
        }
    }

    /** A field of a broker's request log line, as {@code "generationIdOrMemberEpoch":-1} gives {@code -1}. */
    private static String field(String line, String name) {
        java.util.regex.Matcher value = Pattern.compile("\"" + name + "\":(\"[^\"]*\"|-?[0-9]+)").matcher(line);
        return value.find() ? value.group(1) : "absent";
    }

    /** The broker that coordinates {@code group}. */
    private static int coordinatorOf(String group) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).coordinator().id();
        }
    }
}
