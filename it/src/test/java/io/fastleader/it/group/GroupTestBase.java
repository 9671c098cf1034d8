package io.fastleader.it.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Group members on a real 3-broker Kafka 4.3.1 cluster in the test JVM, each test with a topic of
 * its own: the members ({@link GroupMember}) a test starts, stopped after it, and who owns which
 * partition ({@link Ownership}, from their listeners). The brokers heartbeat consumer-protocol
 * members every 500 ms and expire them after 6 s, so the tests wait seconds rather than the
 * defaults' minute; classic members set the same themselves. The fixture gives the offsets topic
 * one replica: while the coordinator's broker restarts, the group has no coordinator at all.
 */
@ExtendWith(KafkaClusterExtension.class)
abstract class GroupTestBase {

    static final int PARTITIONS = 8;
    static final Duration SETTLED = Duration.ofSeconds(60);

    static KafkaTestCluster cluster;
    static Disturbances disturbances;
    private static int topics;

    final Ownership ownership = new Ownership();
    final List<GroupMember> members = new ArrayList<>();
    String topic;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM, brokerConfig = {
            "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500",
            "group.consumer.min.session.timeout.ms=6000", "group.consumer.session.timeout.ms=6000"}) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @AfterEach
    void stopMembers() throws InterruptedException {
        for (GroupMember member : members) {
            member.close();
        }
    }

    /** A new topic of {@link #PARTITIONS} partitions, three replicas each, for this test. */
    String newTopic() {
        newTopic(PARTITIONS, Map.of());
        return topic;
    }

    /** A new topic of {@code partitions} partitions, three replicas each, with {@code configs}, for this test. */
    TopicDescription newTopic(int partitions, Map<String, String> configs) {
        topic = "group-topic-" + ++topics;
        return disturbances.createTopic(new NewTopic(topic, partitions, (short) 3).configs(configs));
    }

    /** Waits until every partition of the test's topic is owned, and each of {@code owners} owns at least one. */
    void awaitEveryPartitionOwnedByEachOf(Collection<GroupMember> owners) {
        awaitEveryPartitionOwnedByEachNamed(owners.stream().map(GroupMember::name).toList());
    }

    /** Waits until every partition of the test's topic is owned, and each member named in {@code owners} owns at least one. */
    void awaitEveryPartitionOwnedByEachNamed(Collection<String> owners) {
        int partitions = disturbances.describe(topic).partitions().size();
        Await.until("every partition owned, each of " + owners + " with a share", SETTLED, () -> {
            Map<TopicPartition, String> owned = ownership.snapshot();
            return owned.size() == partitions && owners.stream().allMatch(owned::containsValue);
        });
    }

    /** The test's group ({@code group-<topic>}) as the coordinator describes it. */
    ConsumerGroupDescription describeGroup() throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeConsumerGroups(List.of("group-" + topic)).all().get(30, TimeUnit.SECONDS).get("group-" + topic);
        }
    }

    void assertNoMemberFailed() {
        members.forEach(member -> assertThat(member.failure()).as("%s failed", member.name()).isNull());
    }

    /** Writes {@code records} records over every partition of {@code topic}, and returns how many. */
    static int produce(String topic, int records) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, "key", "value-" + i));
            }
            producer.flush();
        }
        return records;
    }
}
