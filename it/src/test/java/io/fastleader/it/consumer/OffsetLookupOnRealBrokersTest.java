package io.fastleader.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.ListedOffset;
import io.fastleader.clients.consumer.OffsetLookup;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/** {@link OffsetLookup} asking the leaders of a real 3-broker Kafka 4.3.1 cluster, while they stay and while they move. */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OffsetLookupOnRealBrokersTest {

    private static final long EARLIEST = ListOffsetsRequest.EARLIEST_TIMESTAMP;
    private static final long LATEST = ListOffsetsRequest.LATEST_TIMESTAMP;

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    private ClientStack client;
    private ClusterMetadata metadata;
    private OffsetLookup lookup;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM, brokerConfig = "transaction.state.log.num.partitions=1")
                             KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @BeforeEach
    void start() {
        client = new ClientStack(cluster);
        metadata = client.metadata;
        lookup = new OffsetLookup(client.pool, metadata, ClientStack.LEADER_RETRY_BACKOFF, ClientStack::nowMs, client.owner);
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void findsTheEarliestTheLatestAndTheFirstAtATimestampOfEveryLeaderInOneCall() throws Exception {
        String topic = "timed";
        disturbances.createTopic(new NewTopic(topic, 3, (short) 3));
        TopicPartition p0 = new TopicPartition(topic, 0);
        long base = System.currentTimeMillis() - 60_000;
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, base + i * 1000L, "key", "value-" + i)).get();
            }
        }
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(1))).all().get();
        }

        // The topic is new to the metadata: the lookup waits for it first.
        Map<TopicPartition, Long> targets = new LinkedHashMap<>();
        targets.put(p0, EARLIEST);
        targets.put(new TopicPartition(topic, 1), LATEST);
        targets.put(new TopicPartition(topic, 2), EARLIEST);
        Map<TopicPartition, ListedOffset> ends = lookup.offsets(targets, IsolationLevel.READ_UNCOMMITTED, ClientStack.deadline()).get();
        Map<TopicPartition, ListedOffset> latest = lookup.offsets(Map.of(p0, LATEST), IsolationLevel.READ_UNCOMMITTED, ClientStack.deadline()).get();

        int epoch = metadata.cache().leadership(p0).leaderEpoch();
        assertThat(ends.get(p0)).isEqualTo(new ListedOffset(1, -1, Optional.of(epoch)));
        assertThat(latest.get(p0)).isEqualTo(new ListedOffset(5, -1, Optional.of(epoch)));
        assertThat(ends.get(new TopicPartition(topic, 1)).offset()).isZero();
        assertThat(ends.get(new TopicPartition(topic, 2)).offset()).isZero();
        assertThat(byTimestamp(p0, base + 1500)).isEqualTo(new ListedOffset(2, base + 2000, Optional.of(epoch)));
        assertThat(byTimestamp(p0, base + 4000)).isEqualTo(new ListedOffset(4, base + 4000, Optional.of(epoch)));
        // Record 0 is deleted: the first record at or after its timestamp is record 1.
        assertThat(byTimestamp(p0, base)).isEqualTo(new ListedOffset(1, base + 1000, Optional.of(epoch)));
        ListedOffset afterTheLast = byTimestamp(p0, base + 10_000);
        assertThat(afterTheLast.offset()).isEqualTo(ListedOffset.NOT_FOUND);
        assertThat(afterTheLast.found()).isFalse();
    }

    @Test
    void readCommittedEndsAtTheLastStableOffsetOfAnOpenTransaction() throws Exception {
        String topic = "transactional";
        disturbances.createTopic(new NewTopic(topic, 1, (short) 3));
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> plain = producer(Map.of());
             KafkaProducer<String, String> transactional = producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "open-txn"))) {
            plain.send(new ProducerRecord<>(topic, 0, "key", "committed-0")).get();
            plain.send(new ProducerRecord<>(topic, 0, "key", "committed-1")).get();
            transactional.initTransactions();
            transactional.beginTransaction();
            for (int i = 0; i < 3; i++) {
                transactional.send(new ProducerRecord<>(topic, 0, "key", "open-" + i)).get();
            }

            assertThat(latest(partition, IsolationLevel.READ_UNCOMMITTED)).as("high watermark").isEqualTo(5);
            assertThat(latest(partition, IsolationLevel.READ_COMMITTED)).as("last stable offset").isEqualTo(2);

            transactional.abortTransaction();
            // The abort marker takes offset 5; the stable offset then passes it.
            Await.until("the last stable offset passes the aborted transaction", Duration.ofSeconds(30),
                    () -> latest(partition, IsolationLevel.READ_COMMITTED) == 6);
        }
    }

    @Test
    void aLookupAtALeaderThatMovedAwayFollowsTheMoveWithinItsDeadline() throws Exception {
        String topic = "moving";
        TopicDescription created = disturbances.createTopic(new NewTopic(topic, 1, (short) 3));
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "key", "value-" + i)).get();
            }
        }
        metadata.awaitTopics(List.of(topic)).get(30, TimeUnit.SECONDS);
        PartitionLeadership before = metadata.cache().leadership(partition);
        int oldLeader = created.partitions().get(0).leader().id();
        int newLeader = cluster.brokerIds().stream().filter(id -> id != oldLeader).findFirst().orElseThrow();

        disturbances.moveLeadershipOnto(topic, newLeader);
        // The cache still names the old leader at the old epoch: the first request goes there and is refused.
        assertThat(metadata.cache().leadership(partition).leaderId()).isEqualTo(oldLeader);
        ListedOffset latest = lookup.offsets(Map.of(partition, LATEST), IsolationLevel.READ_UNCOMMITTED, ClientStack.deadline())
                .get(30, TimeUnit.SECONDS).get(partition);

        PartitionLeadership after = metadata.cache().leadership(partition);
        assertThat(after.leaderId()).isEqualTo(newLeader);
        assertThat(after.leaderEpoch()).isGreaterThan(before.leaderEpoch());
        assertThat(latest.offset()).isEqualTo(3);
        assertThat(latest.leaderEpoch()).contains(after.leaderEpoch());
        assertThat(client.refreshes("leader-error")).as("refreshes after the refusal").isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void aPartitionThatNeverAppearsTimesOutNamingIt() {
        TopicPartition missing = new TopicPartition("never-created", 0);
        long startMs = ClientStack.nowMs();

        assertThat(lookup.offsets(Map.of(missing, LATEST), IsolationLevel.READ_UNCOMMITTED, startMs + 1500))
                .failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class)
                .withMessageContaining("never-created-0").withMessageContaining("metadata");
        assertThat(ClientStack.nowMs() - startMs).isGreaterThanOrEqualTo(1500);
    }

    private ListedOffset byTimestamp(TopicPartition partition, long timestamp) throws Exception {
        return lookup.offsets(Map.of(partition, timestamp), IsolationLevel.READ_UNCOMMITTED, ClientStack.deadline()).get().get(partition);
    }

    private long latest(TopicPartition partition, IsolationLevel isolation) throws Exception {
        return lookup.offsets(Map.of(partition, LATEST), isolation, ClientStack.deadline()).get().get(partition).offset();
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.putAll(overrides);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }
}
