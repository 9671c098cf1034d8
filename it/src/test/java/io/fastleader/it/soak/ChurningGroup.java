package io.fastleader.it.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.it.parity.Flavour;

/**
 * A consumer group whose members come and go while it reads a topic and commits: members in this
 * JVM, closed and created again on a seeded schedule (the churn), and one member in a process of
 * its own ({@link ConsumerProcess}), which the soak kills and starts again as one of its faults.
 * Every record any member consumed is kept, so the read-back can tell that every acknowledged
 * record was consumed and how many were consumed twice.
 */
final class ChurningGroup {

    private static final Logger LOG = LoggerFactory.getLogger(ChurningGroup.class);
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
    /** A member churned this often, on average: several rebalances in a three-minute soak. */
    private static final int CHURN_MIN_SECONDS = 10;
    private static final int CHURN_MAX_SECONDS = 25;

    private final String group;
    private final Flavour flavour;
    private final String protocol;
    private final Map<String, Object> clientConfig;
    private final String topic;
    private final Random random;
    private final Closes closes;
    private final List<Member> members = new ArrayList<>();
    private final Map<Integer, Set<Long>> consumed = new ConcurrentHashMap<>();
    private final AtomicLong consumptions = new AtomicLong();
    private final AtomicLong churns = new AtomicLong();
    private final AtomicLong processKills = new AtomicLong();
    private final Set<String> failures = ConcurrentHashMap.newKeySet();
    private final Progress progress = new Progress();
    private final Thread churner;
    private final GroupMemberLoop.Sink sink = this::consumed;
    private ConsumerProcess process;
    private final AtomicInteger incarnations = new AtomicInteger();
    private volatile boolean stopping;

    ChurningGroup(String group, Flavour flavour, String protocol, Map<String, Object> clientConfig, String topic,
                  int membersInThisJvm, long seed, Closes closes) {
        this.group = group;
        this.flavour = flavour;
        this.protocol = protocol;
        this.clientConfig = clientConfig;
        this.topic = topic;
        this.random = new Random(seed);
        this.closes = closes;
        for (int i = 0; i < membersInThisJvm; i++) {
            members.add(new Member());
        }
        this.churner = new Thread(this::churn, "soak-churn-" + group);
    }

    String group() {
        return group;
    }

    Progress progress() {
        return progress;
    }

    synchronized void start() {
        progress.begin(System.currentTimeMillis());
        members.forEach(Member::start);
        process = startProcess();
        churner.start();
    }

    /** Kills the member process (SIGKILL) and starts another in its place. */
    synchronized void killAndRestartProcess() throws InterruptedException {
        process.kill();
        processKills.incrementAndGet();
        process = startProcess();
    }

    private ConsumerProcess startProcess() {
        String clientId = group + "-process-" + incarnations.incrementAndGet();
        return ConsumerProcess.start(clientId, flavour, GroupMemberLoop.config(clientConfig, group, protocol, clientId), topic, sink,
            failure -> failures.add(clientId + ": " + failure));
    }

    private void consumed(int partition, long offset) {
        consumptions.incrementAndGet();
        consumed.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(offset);
        progress.step(System.currentTimeMillis());
    }

    /** Whether every record of {@code acked} was consumed by some member. */
    boolean consumedAll(Map<TopicPartition, Map<Long, String>> acked) {
        return missing(acked) == 0;
    }

    private long missing(Map<TopicPartition, Map<Long, String>> acked) {
        return missingOffsets(acked).values().stream().mapToLong(List::size).sum();
    }

    /** The acknowledged offsets no member consumed, by partition, in order. */
    private Map<TopicPartition, List<Long>> missingOffsets(Map<TopicPartition, Map<Long, String>> acked) {
        Map<TopicPartition, List<Long>> missing = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
        for (Map.Entry<TopicPartition, Map<Long, String>> partition : acked.entrySet()) {
            Set<Long> offsets = consumed.getOrDefault(partition.getKey().partition(), Set.of());
            List<Long> notConsumed = partition.getValue().keySet().stream().filter(offset -> !offsets.contains(offset)).sorted().toList();
            if (!notConsumed.isEmpty()) {
                missing.put(partition.getKey(), notConsumed);
            }
        }
        return missing;
    }

    /**
     * Where the group stands on the partitions it has not consumed all of: the offsets missing, the
     * group's committed offset and the member the coordinator assigned each partition to, so that
     * a drain that times out says whether records were skipped, or a partition is not read.
     */
    String whereItStands(Admin admin, Map<TopicPartition, Map<Long, String>> acked) {
        Map<TopicPartition, List<Long>> missing = missingOffsets(acked);
        Map<TopicPartition, OffsetAndMetadata> committed;
        Map<TopicPartition, String> owners = new HashMap<>();
        try {
            committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                .get(10, TimeUnit.SECONDS);
            for (MemberDescription member : description.members()) {
                member.assignment().topicPartitions().forEach(partition -> owners.put(partition, member.clientId()));
            }
        } catch (ExecutionException | TimeoutException e) {
            return "cannot describe the group: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while describing the group";
        }
        StringBuilder out = new StringBuilder();
        missing.forEach((partition, offsets) -> {
            OffsetAndMetadata commit = committed.get(partition);
            out.append(String.format("; partition %d: %d not consumed, offsets %d to %d, committed %s, assigned to %s",
                partition.partition(), offsets.size(), offsets.get(0), offsets.get(offsets.size() - 1),
                commit == null ? "nothing" : commit.offset(), owners.getOrDefault(partition, "no member")));
        });
        return out.length() == 0 ? "nothing missing" : out.substring(2);
    }

    /** Stops the churn, closes every member in this JVM (timed) and kills the process. */
    void close() throws InterruptedException {
        stopping = true;
        churner.interrupt();
        churner.join(TimeUnit.MINUTES.toMillis(1));
        for (Member member : members) {
            member.close();
        }
        synchronized (this) {
            process.kill();
        }
    }

    /** Every acknowledged record consumed; records consumed more than once counted. */
    void verify(Map<TopicPartition, Map<Long, String>> acked, Findings findings) {
        long missing = missing(acked);
        long distinct = consumed.values().stream().mapToLong(Set::size).sum();
        String name = group;
        findings.figure(name, "records consumed", consumptions.get());
        findings.figure(name, "consumed more than once", consumptions.get() - distinct);
        findings.figure(name, "acknowledged not consumed", missing);
        findings.figure(name, "members closed and created again", churns.get());
        findings.figure(name, "member processes killed", processKills.get());
        findings.check(name, missing == 0, missing + " acknowledged records were never consumed: " + missingOffsets(acked).entrySet().stream()
            .map(e -> "partition " + e.getKey().partition() + " from offset " + e.getValue().get(0) + " (" + e.getValue().size() + ")")
            .toList());
        findings.check(name, failures.isEmpty(), "members failed: " + failures);
    }

    private void churn() {
        try {
            while (!stopping) {
                TimeUnit.SECONDS.sleep(CHURN_MIN_SECONDS + random.nextInt(CHURN_MAX_SECONDS - CHURN_MIN_SECONDS + 1));
                Member member = members.get(random.nextInt(members.size()));
                member.close();
                if (!stopping) {
                    member.start();
                    churns.incrementAndGet();
                }
            }
        } catch (InterruptedException stopped) {
            // close() ends the churn.
        }
    }

    /** A member in this JVM: a consumer on a thread of its own, closed and started again by the churn. */
    private final class Member {
        private Consumer<String, String> consumer;
        private Thread thread;
        private volatile boolean running;

        synchronized void start() {
            String clientId = group + "-member-" + incarnations.incrementAndGet();
            consumer = flavour.consumer(GroupMemberLoop.config(clientConfig, group, protocol, clientId));
            running = true;
            Consumer<String, String> mine = consumer;
            thread = new Thread(() -> {
                try {
                    GroupMemberLoop.run(mine, topic, sink, () -> running);
                } catch (RuntimeException e) {
                    LOG.warn("{} failed", clientId, e);
                    failures.add(clientId + ": " + e);
                } finally {
                    closes.close(clientId, CLOSE_TIMEOUT, mine::close);
                }
            }, "soak-" + clientId);
            thread.start();
        }

        /** Ends its loop; the loop's thread closes the consumer (a consumer is used from one thread) and ends. */
        synchronized void close() throws InterruptedException {
            if (thread == null) {
                return;
            }
            running = false;
            thread.join(TimeUnit.MINUTES.toMillis(2));
            if (thread.isAlive()) {
                failures.add(thread.getName() + " did not stop within 2 minutes");
            }
            thread = null;
        }
    }
}
