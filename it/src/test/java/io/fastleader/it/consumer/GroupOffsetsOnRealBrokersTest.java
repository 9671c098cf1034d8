package io.fastleader.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetMetadataTooLarge;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.group.GroupOffsets;
import io.fastleader.clients.consumer.group.StableOffsets;
import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.protocol.ApiKey;

/**
 * {@link GroupOffsets} committing and reading a standalone consumer's offsets at the group
 * coordinator of a real 3-broker Kafka 4.3.1 cluster, read back by kafka-clients' own consumer,
 * and across a restart of the coordinator's broker. The fixture gives the offsets topic one
 * replica (it refuses another replication factor), so while that broker is down the group has no
 * coordinator at all.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupOffsetsOnRealBrokersTest {

    private static final String TOPIC = "committed";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    private ClientStack client;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) throws Exception {
        cluster = started;
        disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(TOPIC, 2, (short) 3));
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "key", "value-" + i)).get();
            }
        }
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @BeforeEach
    void start() {
        client = new ClientStack(cluster);
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void kafka43TakesAStandaloneCommitAtTheVersionsWeNegotiate() {
        try (BrokerConnection connection = BrokerConnection.open(cluster.firstBootstrapAddress(), ConnectionConfig.defaults("fastleader-it"))) {
            assertThat(connection.versions().version(ApiKey.FIND_COORDINATOR)).isEqualTo((short) 6);
            assertThat(connection.versions().version(ApiKey.OFFSET_COMMIT)).isEqualTo((short) 9);
            assertThat(connection.versions().version(ApiKey.OFFSET_FETCH)).isEqualTo((short) 9);
        }
    }

    @Test
    void committedReturnsWhatWasCommittedAndNothingForAPartitionNeverCommitted() throws Exception {
        // The metadata knows no broker yet: the coordinator is found through a bootstrap server.
        GroupOffsets offsets = groupOffsets("standalone");

        offsets.commit(Map.of(P0, new OffsetAndMetadata(5, Optional.of(3), "meta")), ClientStack.deadline()).get(30, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = offsets.committed(Set.of(P0, P1), StableOffsets.NOT_ASKED, ClientStack.deadline()).get(30, TimeUnit.SECONDS);

        assertThat(committed).containsOnlyKeys(P0);
        assertThat(committed.get(P0)).isEqualTo(new OffsetAndMetadata(5, Optional.of(3), "meta"));
        assertThat(offsets.committed(Set.of(P0), StableOffsets.ASKED, ClientStack.deadline()).get(30, TimeUnit.SECONDS))
                .as("requiring stable offsets").isEqualTo(Map.of(P0, new OffsetAndMetadata(5, Optional.of(3), "meta")));

        offsets.commit(Map.of(P0, new OffsetAndMetadata(6), P1, new OffsetAndMetadata(1, Optional.empty(), "p1")), ClientStack.deadline())
                .get(30, TimeUnit.SECONDS);
        assertThat(offsets.committed(Set.of(P0, P1), StableOffsets.NOT_ASKED, ClientStack.deadline()).get(30, TimeUnit.SECONDS)).isEqualTo(Map.of(
                P0, new OffsetAndMetadata(6, Optional.empty(), ""), P1, new OffsetAndMetadata(1, Optional.empty(), "p1")));
    }

    @Test
    void kafkasConsumerReadsWhatWeCommitAndWeReadWhatItCommits() throws Exception {
        client.metadata.awaitTopics(List.of(TOPIC)).get(30, TimeUnit.SECONDS);
        int epoch = client.metadata.cache().leadership(P0).leaderEpoch();
        GroupOffsets offsets = groupOffsets("interop");
        offsets.commit(Map.of(P0, new OffsetAndMetadata(7, Optional.of(epoch), "from-fastleader")), ClientStack.deadline()).get(30, TimeUnit.SECONDS);

        try (KafkaConsumer<String, String> consumer = kafkaConsumer("interop")) {
            consumer.assign(List.of(P0, P1));
            assertThat(consumer.committed(Set.of(P0, P1), Duration.ofSeconds(30)).get(P0))
                    .isEqualTo(new OffsetAndMetadata(7, Optional.of(epoch), "from-fastleader"));
            assertThat(consumer.position(P0, Duration.ofSeconds(30))).isEqualTo(7);

            consumer.commitSync(Map.of(P1, new OffsetAndMetadata(0, Optional.of(epoch), "from-kafka")), Duration.ofSeconds(30));
        }

        assertThat(offsets.committed(Set.of(P0, P1), StableOffsets.NOT_ASKED, ClientStack.deadline()).get(30, TimeUnit.SECONDS)).isEqualTo(Map.of(
                P0, new OffsetAndMetadata(7, Optional.of(epoch), "from-fastleader"),
                P1, new OffsetAndMetadata(0, Optional.of(epoch), "from-kafka")));
    }

    @Test
    void aCommitWaitsOutARestartOfTheCoordinatorsBrokerAndEarlierCommitsSurviveIt() throws Exception {
        String group = "restarted-coordinator";
        GroupOffsets offsets = groupOffsets(group);
        offsets.commit(Map.of(P0, new OffsetAndMetadata(1, Optional.empty(), "before")), ClientStack.deadline()).get(30, TimeUnit.SECONDS);
        int coordinator;
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            coordinator = admin.describeConsumerGroups(List.of(group)).all().get().get(group).coordinator().id();
        }

        CompletableFuture<Void> acrossTheRestart;
        cluster.stopBroker(coordinator);
        try {
            acrossTheRestart = offsets.commit(Map.of(P1, new OffsetAndMetadata(2, Optional.empty(), "across")), ClientStack.nowMs() + 120_000);
            Thread.sleep(1000);
            assertThat(acrossTheRestart).as("no coordinator while its broker is down").isNotDone();
        } finally {
            cluster.startBroker(coordinator);
        }

        acrossTheRestart.get(120, TimeUnit.SECONDS);
        assertThat(offsets.committed(Set.of(P0, P1), StableOffsets.NOT_ASKED, ClientStack.deadline()).get(30, TimeUnit.SECONDS)).isEqualTo(Map.of(
                P0, new OffsetAndMetadata(1, Optional.empty(), "before"), P1, new OffsetAndMetadata(2, Optional.empty(), "across")));
    }

    @Test
    void theBrokersRefusalsFailTheCommitWithKafkasExceptions() throws Exception {
        GroupOffsets offsets = groupOffsets("refused");
        OffsetAndMetadata tooLarge = new OffsetAndMetadata(1, Optional.empty(), "x".repeat(5000));

        assertThat(offsets.commit(Map.of(P0, tooLarge, P1, new OffsetAndMetadata(1)), ClientStack.deadline()))
                .failsWithin(30, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(OffsetMetadataTooLarge.class);

        // A group with a member takes no commit from outside it.
        String group = "has-a-member";
        try (KafkaConsumer<String, String> member = kafkaConsumer(group)) {
            member.subscribe(List.of(TOPIC));
            Await.until("the member is assigned partitions", Duration.ofSeconds(60), () -> {
                member.poll(Duration.ofMillis(100));
                return !member.assignment().isEmpty();
            });
            assertThat(groupOffsets(group).commit(Map.of(P0, new OffsetAndMetadata(1)), ClientStack.deadline()))
                    .failsWithin(30, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(CommitFailedException.class);
        }
    }

    private GroupOffsets groupOffsets(String group) {
        return new GroupOffsets(client.pool, client.metadata, group, ClientStack.LEADER_RETRY_BACKOFF, ClientStack::nowMs, client.owner);
    }

    private static KafkaConsumer<String, String> kafkaConsumer(String group) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }
}
