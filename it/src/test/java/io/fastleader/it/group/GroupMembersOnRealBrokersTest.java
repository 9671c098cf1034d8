package io.fastleader.it.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.group.GroupMember.Flavour;

/**
 * {@link FastLeaderConsumer}s as members of consumer-protocol groups (KIP-848) on a real 3-broker
 * Kafka 4.3.1 cluster, beside a {@code KafkaConsumer} member, and of classic groups where a test
 * runs under both protocols (a leave, a static member's return, a killed member, a rolling
 * restart): partitions spread over every member
 * and move on join, on leave, and once the session of a member that went without giving them up
 * (a static member's leave, a member's process killed) times out, never owned by two members at
 * once (checked from the listeners); a dynamic member cannot remain in the group when closed, as
 * with {@code KafkaConsumer}; a static member comes back to its partitions; offsets either client
 * commits are where the other starts; and a rolling restart of every broker, the group coordinator's included, loses
 * no acknowledged record. The brokers heartbeat members every 500 ms and expire them after 6 s,
 * so the tests wait seconds rather than the defaults' minute. The fixture gives the offsets topic
 * one replica: while the coordinator's broker restarts, the group has no coordinator at all.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GroupMembersOnRealBrokersTest extends GroupTestBase {

    @Test
    void threeFastLeaderMembersAndAKafkaConsumerShareEveryPartitionAndReadEveryRecord() throws Exception {
        int records = produce(newTopic(), 400);

        GroupMember kafka = join("kafka", Flavour.KAFKA, Map.of());
        for (int i = 1; i <= 3; i++) {
            join("fastleader-" + i, Flavour.FASTLEADER, Map.of());
        }

        awaitEveryPartitionOwnedByEachOf(members);
        Await.until("every record read", SETTLED, () -> GroupMember.union(members).size() == records);
        assertThat(ownership.of(kafka.name())).as("the KafkaConsumer member's share").isNotEmpty();
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void aJoiningMemberGetsPartitionsOnlyOnceTheirOwnerRevokedThem() throws Exception {
        newTopic();
        join("first", Flavour.FASTLEADER, Map.of());
        join("second", Flavour.KAFKA, Map.of());
        awaitEveryPartitionOwnedByEachOf(members);

        GroupMember third = join("third", Flavour.FASTLEADER, Map.of());
        awaitEveryPartitionOwnedByEachOf(members);

        assertThat(third.events()).first().asString().startsWith("assigned");
        assertThat(members.subList(0, 2)).as("an earlier member gave partitions up")
                .anyMatch(member -> member.events().stream().anyMatch(event -> event.startsWith("revoked")));
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @ParameterizedTest(name = "{0} protocol")
    @ValueSource(strings = {"consumer", "classic"})
    void aLeavingMembersPartitionsGoToTheOthers(String protocol) throws Exception {
        newTopic();
        GroupMember leaving = join("leaving", Flavour.FASTLEADER, protocol(protocol));
        join("other-fastleader", Flavour.FASTLEADER, protocol(protocol));
        join("kafka", Flavour.KAFKA, protocol(protocol));
        awaitEveryPartitionOwnedByEachOf(members);
        Set<TopicPartition> left = ownership.of(leaving.name());

        leaving.stop(CloseOptions.timeout(Duration.ofSeconds(30)));
        members.remove(leaving);

        assertThat(left).isNotEmpty();
        assertThat(leaving.events()).last().asString().startsWith("revoked");
        assertThat(ownership.of(leaving.name())).as("everything it owned was revoked").isEmpty();
        awaitEveryPartitionOwnedByEachOf(members);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void aStaticMemberThatDoesNotComeBackHasItsPartitionsTakenOverOnceItsSessionTimesOut() throws Exception {
        newTopic();
        GroupMember gone = join("gone", Flavour.FASTLEADER, Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-gone"));
        join("other-fastleader", Flavour.FASTLEADER, Map.of());
        join("kafka", Flavour.KAFKA, Map.of());
        awaitEveryPartitionOwnedByEachOf(members);

        // A static member leaves with epoch -2: the coordinator keeps its partitions for the session timeout,
        // as for a member whose process died.
        gone.stop(CloseOptions.timeout(Duration.ofSeconds(30)));
        ownership.died(gone.name());
        members.remove(gone);

        assertThat(groupMembers()).as("still a member until its session times out").contains("instance-gone");
        awaitEveryPartitionOwnedByEachOf(members);
        assertThat(groupMembers()).doesNotContain("instance-gone");
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @ParameterizedTest(name = "{0} protocol")
    @ValueSource(strings = {"consumer", "classic"})
    void aMemberWhoseProcessIsKilledLosesItsPartitionsToTheOthersOnceItsSessionTimesOut(String protocol) throws Exception {
        newTopic();
        join("fastleader", Flavour.FASTLEADER, protocol(protocol));
        join("kafka", Flavour.KAFKA, protocol(protocol));
        try (MemberProcess crashed = MemberProcess.start("crashed", memberConfig("group-" + topic, protocol(protocol)), topic, ownership)) {
            List<String> everyone = new ArrayList<>(members.stream().map(GroupMember::name).toList());
            everyone.add(crashed.name());
            awaitEveryPartitionOwnedByEachNamed(everyone);
            Set<TopicPartition> itsShare = ownership.of(crashed.name());
            String memberId = crashed.memberId();

            // SIGKILL: no leave, no last heartbeat; only the coordinator's session timeout can free its partitions.
            crashed.kill();
            ownership.died(crashed.name());

            assertThat(itsShare).isNotEmpty();
            assertThat(memberId).isNotNull();
            assertThat(groupMembers()).as("still a member until its session times out").contains(memberId);
            awaitEveryPartitionOwnedByEachOf(members);
            assertThat(groupMembers()).as("expired").doesNotContain(memberId).hasSize(2);
            Set<TopicPartition> takenOver = new TreeSet<>(GroupMember.PARTITION_ORDER);
            members.forEach(member -> takenOver.addAll(ownership.of(member.name())));
            assertThat(takenOver).containsAll(itsShare);
            assertThat(crashed.events()).noneMatch(event -> event.startsWith("revoked") || event.startsWith("lost"));
        }
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void aDynamicMemberClosedToRemainInTheGroupLeavesItAsKafkaConsumerDoes() throws Exception {
        newTopic();
        GroupMember fastleader = join("fastleader", Flavour.FASTLEADER, Map.of());
        GroupMember kafka = join("kafka", Flavour.KAFKA, Map.of());
        join("staying", Flavour.FASTLEADER, Map.of());
        awaitEveryPartitionOwnedByEachOf(members);
        CloseOptions remain = CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP);

        fastleader.stop(remain);
        int afterFastLeaderClosed = groupMembers().size();
        kafka.stop(remain);
        int afterKafkaClosed = groupMembers().size();

        assertThat(List.of(afterFastLeaderClosed, afterKafkaClosed)).as("the consumer protocol lets no dynamic member stay")
                .containsExactly(2, 1);
        members.removeAll(List.of(fastleader, kafka));
        assertNoMemberFailed();
    }

    /** The group's members as the coordinator describes them: instance ids of static members, member ids of the others. */
    private List<String> groupMembers() throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeConsumerGroups(List.of("group-" + topic)).all().get().get("group-" + topic).members().stream()
                    .map(member -> member.groupInstanceId().orElse(member.consumerId())).toList();
        }
    }

    @ParameterizedTest(name = "{0} protocol")
    @ValueSource(strings = {"consumer", "classic"})
    void aStaticMemberThatComesBackWithinItsSessionGetsItsPartitionsBack(String protocol) throws Exception {
        newTopic();
        GroupMember first = join("static-a", Flavour.FASTLEADER, staticMember(protocol, "instance-a"));
        join("static-b", Flavour.KAFKA, staticMember(protocol, "instance-b"));
        awaitEveryPartitionOwnedByEachOf(members);
        Set<TopicPartition> before = ownership.of(first.name());

        first.stop(CloseOptions.timeout(Duration.ofSeconds(30)));
        members.remove(first);
        GroupMember back = join("static-a-again", Flavour.FASTLEADER, staticMember(protocol, "instance-a"));

        Await.until("the static member owns partitions again", SETTLED, () -> !ownership.of(back.name()).isEmpty());
        assertThat(ownership.of(back.name())).isEqualTo(before);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    /**
     * {@code first} reads a third of the records alone, with nothing committed; it commits only in
     * {@code onPartitionsRevoked}, when {@code next} joins and takes some partitions and when it
     * leaves and hands over the rest. A third of the records is written after each handover. The
     * members reset to the earliest offset, so a handover whose commit the next owner did not read
     * would show as records read by both.
     */
    @ParameterizedTest(name = "{0} hands over")
    @EnumSource(Flavour.class)
    void offsetsCommittedBeforeAHandoverAreWhereTheNextOwnerStarts(Flavour firstFlavour) throws Exception {
        String handedOver = newTopic();
        Flavour nextFlavour = firstFlavour == Flavour.FASTLEADER ? Flavour.KAFKA : Flavour.FASTLEADER;
        Map<String, Object> manualCommits = Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        GroupMember first = join("first-" + firstFlavour, firstFlavour, manualCommits);
        int records = produce(handedOver, 400);
        Await.until("the first member read every record", SETTLED, () -> first.seen().size() == 400);

        GroupMember next = join("next-" + nextFlavour, nextFlavour, manualCommits);
        awaitEveryPartitionOwnedByEachOf(members);
        Set<TopicPartition> takenOnJoin = ownership.of(next.name());
        records += produce(handedOver, 400);
        Await.until("the records written after the join read", SETTLED, () -> GroupMember.union(members).size() == 800);
        first.stop(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        members.remove(first);
        awaitEveryPartitionOwnedByEachOf(members);
        records += produce(handedOver, 400);
        int written = records;
        Await.until("every record read", SETTLED, () -> GroupMember.union(List.of(first, next)).size() == written);

        Set<String> both = new TreeSet<>(first.seen().keySet());
        both.retainAll(next.seen().keySet());
        assertThat(takenOnJoin).as("partitions handed over on join").isNotEmpty().hasSizeLessThan(PARTITIONS);
        assertThat(ownership.of(next.name())).as("every partition handed over by the leave").hasSize(PARTITIONS);
        assertThat(both).as("records read by both: a handover's commit was not where the next owner started").isEmpty();
        assertThat(first.seen().values()).allMatch(times -> times == 1);
        assertThat(next.seen().values()).allMatch(times -> times == 1);
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @ParameterizedTest(name = "{0} protocol, leader hints {1}")
    @CsvSource({"consumer, true", "consumer, false", "classic, true"})
    void aRollingRestartOfEveryBrokerLosesNoAcknowledgedRecordAndNeverSharesAPartition(String protocol, boolean hints) throws Exception {
        String rolled = newTopic();
        Map<String, Object> config = new HashMap<>(protocol(protocol));
        config.put(FastLeaderConfigs.LEADER_HINTS_ENABLED, hints);
        join("fastleader-1", Flavour.FASTLEADER, config);
        join("fastleader-2", Flavour.FASTLEADER, config);
        join("kafka", Flavour.KAFKA, protocol(protocol));
        awaitEveryPartitionOwnedByEachOf(members);
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> produceUntilStopped(rolled, acknowledged, producing), "group-roll-producer");
        producer.start();

        disturbances.rollingRestart(StopStyle.GRACEFUL, Set.of(rolled));
        producing.set(false);
        producer.join(TimeUnit.SECONDS.toMillis(60));

        Await.until("every acknowledged record read", SETTLED, () -> GroupMember.union(members).containsAll(acknowledged));
        Set<Integer> lost = new TreeSet<>();
        members.forEach(member -> lost.addAll(member.lost()));
        Map<String, Integer> reads = new HashMap<>();
        members.forEach(member -> member.seen().forEach((record, times) -> reads.merge(record, times, Integer::sum)));
        Set<String> readAgain = new TreeSet<>();
        reads.forEach((record, times) -> {
            if (times > 1) {
                readAgain.add(record);
            }
        });
        System.out.printf("roll (%s protocol) with hints %s: %d acknowledged, %d read more than once, partitions lost: %s%n",
                protocol, hints, acknowledged.size(), readAgain.size(), lost);
        assertThat(readAgain).as("records read twice come only from partitions lost with uncommitted positions")
                .allMatch(record -> lost.contains(Integer.parseInt(record.substring(0, record.indexOf('@')))));
        assertThat(ownership.violations()).isEmpty();
        assertNoMemberFailed();
    }

    @Test
    void subscribeAndAssignExcludeEachOther() {
        try (FastLeaderConsumer<String, String> consumer = new FastLeaderConsumer<>(memberConfig("refusals", Map.of()),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("anything"));
            assertThatThrownBy(() -> consumer.assign(List.of(new TopicPartition("anything", 0))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("Subscription to topics, partitions and pattern are mutually exclusive");
        }
    }

    private GroupMember join(String name, Flavour flavour, Map<String, Object> extra) {
        GroupMember member = new GroupMember(name, flavour, memberConfig("group-" + topic, extra), topic, ownership,
                consumer -> consumer.commitSync());
        members.add(member);
        return member;
    }

    /**
     * A member's keys for the group {@code protocol}: the classic one's session and heartbeat are
     * the client's to set, as short as the brokers give consumer-protocol members here.
     */
    private static Map<String, Object> protocol(String protocol) {
        return protocol.equals("classic")
                ? Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000,
                        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500)
                : Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    }

    /** A static member's keys: {@code protocol}'s, and {@code group.instance.id}. */
    private static Map<String, Object> staticMember(String protocol, String instanceId) {
        Map<String, Object> config = new HashMap<>(protocol(protocol));
        config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        return config;
    }

    private static Map<String, Object> memberConfig(String group, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(extra);
        return config;
    }

    private static void produceUntilStopped(String topic, Set<String> acknowledged, AtomicBoolean producing) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            int i = 0;
            while (producing.get()) {
                int partition = i % PARTITIONS;
                producer.send(new ProducerRecord<>(topic, partition, "key", "value-" + i++), (written, error) -> {
                    if (error == null) {
                        acknowledged.add(written.partition() + "@" + written.offset());
                    }
                });
                if (i % 50 == 0) {
                    producer.flush();
                }
            }
        }
    }
}
