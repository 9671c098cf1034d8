package io.fastleader.it.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The events that move partition leaders, each returning once the cluster reports the new state:
 * replica-list rotation, moving partitions onto another broker, preferred-leader election,
 * rolling restarts and topic recreation.
 *
 * <p>Admin answers come from whichever broker it asks, and a broker's metadata can lag the
 * controller's by a moment. So every wait states the exact state it expects (computed here, not
 * read back), and every method returns the description that showed that state, never a later
 * read that might come from a lagging broker.
 */
public final class Disturbances implements AutoCloseable {

    /** How long any one disturbance may take to show in the cluster's metadata. */
    public static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final KafkaTestCluster cluster;
    private final Admin admin;

    /** Disturbances for {@code cluster}, through an Admin client that this object closes. */
    public Disturbances(KafkaTestCluster cluster) {
        this.cluster = cluster;
        this.admin = Admin.create(cluster.clientConfig());
    }

    /** Creates a topic; returns its description once every partition has a leader and a full ISR. */
    public TopicDescription createTopic(NewTopic topic) {
        call(() -> admin.createTopics(List.of(topic)).all().get());
        return awaitFullIsr(topic.name());
    }

    /**
     * Rotates every partition's replica list by one, so each partition's first replica moves to
     * the back (the KIP-951 benchmark move), and elects the new first replica leader.
     *
     * @return the topic once every partition has its rotated replicas and is led by the new first
     */
    public TopicDescription rotateReplicas(String topic) {
        return reassign(topic, partition -> {
            List<Integer> replicas = replicaIds(partition);
            List<Integer> rotated = new ArrayList<>(replicas.subList(1, replicas.size()));
            rotated.add(replicas.get(0));
            return rotated;
        });
    }

    /**
     * Moves every partition's leadership onto {@code nodeId}: it takes the current leader's place
     * in the replica list as the first replica, so the old leader no longer hosts the partition
     * at all. Where {@code nodeId} already is a follower, it only moves to the front and the old
     * leader stays a follower. Partitions {@code nodeId} already leads are left alone.
     *
     * @return the topic once {@code nodeId} leads every partition
     */
    public TopicDescription moveLeadershipOnto(String topic, int nodeId) {
        return reassign(topic, partition -> {
            List<Integer> moved = new ArrayList<>(replicaIds(partition));
            if (partition.leader() == null || partition.leader().id() == nodeId) {
                return moved;
            }
            if (!moved.remove(Integer.valueOf(nodeId))) {
                moved.remove(Integer.valueOf(partition.leader().id()));
            }
            moved.add(0, nodeId);
            return moved;
        });
    }

    /**
     * Gives each partition of {@code topic} that {@code replicas} names those replicas (a
     * reassignment of part of a topic), and elects each one's first replica leader; the other
     * partitions keep their replicas and leaders.
     *
     * @return the topic once every partition named has its new replicas and is led by the first
     */
    public TopicDescription reassign(String topic, Map<Integer, List<Integer>> replicas) {
        return reassign(topic, partition -> replicas.get(partition.partition()));
    }

    /**
     * Elects each partition's first replica leader, e.g. after a restart left leadership drifted
     * onto the other brokers.
     *
     * @return the topic once every partition is led by its first replica
     */
    public TopicDescription electPreferredLeaders(String topic) {
        return elect(topic, replicasByPartition(describe(topic)));
    }

    /**
     * Restarts every running broker once, one at a time, stopping each gracefully or killing it,
     * and waits after each for every partition of {@code topics} to have its full ISR again.
     */
    public void rollingRestart(StopStyle style, Set<String> topics) {
        rollingRestart(style, topics, new RollSteps() { });
    }

    /**
     * {@link #rollingRestart(StopStyle, Set)}, calling {@code steps} around each broker's restart,
     * so a test can see its workload make progress at each stage of the roll.
     */
    public void rollingRestart(StopStyle style, Set<String> topics, RollSteps steps) {
        for (int nodeId : cluster.brokerIds()) {
            if (cluster.stoppedBrokers().contains(nodeId)) {
                continue;
            }
            steps.beforeStop(nodeId);
            style.stop(cluster, nodeId);
            steps.whileStopped(nodeId);
            cluster.startBroker(nodeId);
            topics.forEach(this::awaitFullIsr);
            steps.afterRestart(nodeId);
        }
    }

    /**
     * Gives every partition of {@code topic} a replica on every running broker, its leader first,
     * e.g. for an internal topic the fixture created with one replica (the testing library sets
     * {@code offsets.topic.replication.factor} and {@code transaction.state.log.replication.factor}
     * to 1 and refuses a broker config that sets them again), so that its coordinators move to
     * another broker during a restart instead of being gone.
     *
     * @return the topic once every partition has its replicas, in sync, led by its first replica
     */
    public TopicDescription replicateOnEveryBroker(String topic) {
        List<Integer> running = cluster.brokerIds().stream().filter(id -> !cluster.stoppedBrokers().contains(id)).toList();
        reassign(topic, partition -> {
            List<Integer> replicas = new ArrayList<>(replicaIds(partition));
            running.stream().filter(id -> !replicas.contains(id)).forEach(replicas::add);
            return replicas;
        });
        return awaitFullIsr(topic);
    }

    /**
     * Deletes a topic and creates it again under the same name with the same partition count,
     * replication factor and topic-level configs.
     *
     * @return the new topic, once it has a new topic id, leaders and full ISR
     */
    public TopicDescription recreateTopic(String topic) {
        TopicDescription before = describe(topic);
        Map<String, String> configs = topicConfigs(topic);
        call(() -> admin.deleteTopics(List.of(topic)).all().get());
        Await.until(topic + " deleted", TIMEOUT, () -> !admin.listTopics().names().get().contains(topic));
        NewTopic again = new NewTopic(topic, before.partitions().size(), (short) before.partitions().get(0).replicas().size())
            .configs(configs);
        // A broker may still be deleting the old log; the controller refuses a create until then.
        Await.until(topic + " created again", TIMEOUT, () -> {
            admin.createTopics(List.of(again)).all().get();
            return true;
        });
        return awaitState(topic, "a new id and full ISR",
            description -> !description.topicId().equals(before.topicId()) && hasFullIsr(description));
    }

    /** Returns the topic once every partition has a leader and all its replicas in sync. */
    public TopicDescription awaitFullIsr(String topic) {
        return awaitState(topic, "full ISR", Disturbances::hasFullIsr);
    }

    /** The topic as the first broker to answer describes it; retried while no broker knows it yet. */
    public TopicDescription describe(String topic) {
        return awaitState(topic, "a description", description -> true);
    }

    @Override
    public void close() {
        admin.close();
    }

    /** Describes {@code topic} until a description satisfies {@code expected}, and returns that one. */
    private TopicDescription awaitState(String topic, String what, Predicate<TopicDescription> expected) {
        TopicDescription[] seen = new TopicDescription[1];
        Await.until(what + " on " + topic, TIMEOUT, () -> {
            seen[0] = describeOnce(topic);
            return expected.test(seen[0]);
        });
        return seen[0];
    }

    /** One answer, from whichever broker Admin asks. */
    private TopicDescription describeOnce(String topic) throws ExecutionException, InterruptedException {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    }

    /** Reassigns each partition to {@code newReplicas}' answer for it; a partition it answers null for is left alone. */
    private TopicDescription reassign(String topic, Function<TopicPartitionInfo, List<Integer>> newReplicas) {
        TopicDescription description = describe(topic);
        Map<Integer, List<Integer>> target = new HashMap<>();
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        for (TopicPartitionInfo partition : description.partitions()) {
            List<Integer> replicas = newReplicas.apply(partition);
            if (replicas == null) {
                continue;
            }
            target.put(partition.partition(), replicas);
            if (!replicas.equals(replicaIds(partition))) {
                moves.put(new TopicPartition(topic, partition.partition()), Optional.of(new NewPartitionReassignment(replicas)));
            }
        }
        if (!moves.isEmpty()) {
            call(() -> admin.alterPartitionReassignments(moves).all().get());
            Await.until("reassignment of " + topic, TIMEOUT,
                () -> admin.listPartitionReassignments(moves.keySet()).reassignments().get().isEmpty());
        }
        return elect(topic, target);
    }

    /**
     * Waits until every partition {@code replicas} names has exactly those and is led by the first of them,
     * asking for a preferred-leader election of the partitions that are not there yet. Elections
     * are repeated because one can be refused while the preferred replica is still catching up.
     */
    private TopicDescription elect(String topic, Map<Integer, List<Integer>> replicas) {
        TopicDescription[] seen = new TopicDescription[1];
        Await.until("leaders " + replicas + " on " + topic, TIMEOUT, () -> {
            seen[0] = describeOnce(topic);
            Set<TopicPartition> pending = seen[0].partitions().stream()
                .filter(p -> replicas.containsKey(p.partition()) && !isLedByFirstOf(p, replicas.get(p.partition())))
                .map(p -> new TopicPartition(topic, p.partition()))
                .collect(Collectors.toSet());
            if (pending.isEmpty()) {
                return true;
            }
            admin.electLeaders(ElectionType.PREFERRED, pending).all().get();
            return false;
        });
        return seen[0];
    }

    private static boolean isLedByFirstOf(TopicPartitionInfo partition, List<Integer> replicas) {
        return partition.leader() != null && replicaIds(partition).equals(replicas) && partition.leader().id() == replicas.get(0);
    }

    private static boolean hasFullIsr(TopicDescription description) {
        return description.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size());
    }

    private static Map<Integer, List<Integer>> replicasByPartition(TopicDescription description) {
        return description.partitions().stream().collect(Collectors.toMap(TopicPartitionInfo::partition, Disturbances::replicaIds));
    }

    private static List<Integer> replicaIds(TopicPartitionInfo partition) {
        return partition.replicas().stream().map(Node::id).toList();
    }

    private Map<String, String> topicConfigs(String topic) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = call(() -> admin.describeConfigs(List.of(resource)).all().get().get(resource));
        return config.entries().stream()
            .filter(entry -> entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
            .collect(Collectors.toMap(ConfigEntry::name, ConfigEntry::value));
    }

    private static <T> T call(AdminCall<T> call) {
        try {
            return call.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @FunctionalInterface
    private interface AdminCall<T> {
        T get() throws ExecutionException, InterruptedException;
    }

    /** What a test runs around each broker's restart in {@link #rollingRestart(StopStyle, Set, RollSteps)}; each does nothing unless overridden. */
    public interface RollSteps {
        /** Before broker {@code nodeId} is stopped. */
        default void beforeStop(int nodeId) {
        }

        /** Once broker {@code nodeId} is down, before it is started again. */
        default void whileStopped(int nodeId) {
        }

        /** Once broker {@code nodeId} is back and every partition of the roll's topics has its full ISR again. */
        default void afterRestart(int nodeId) {
        }
    }

    /** How a rolling restart takes each broker down. */
    public enum StopStyle {
        /** Controlled shutdown: leaderships move away before the broker stops. */
        GRACEFUL {
            @Override
            public void stop(KafkaTestCluster cluster, int nodeId) {
                cluster.stopBroker(nodeId);
            }
        },
        /** SIGKILL: the broker vanishes mid-request. Needs {@link KafkaTestCluster#supportsKill()}. */
        KILL {
            @Override
            public void stop(KafkaTestCluster cluster, int nodeId) {
                cluster.killBroker(nodeId);
            }
        };

        /** Takes broker {@code nodeId} of {@code cluster} down this way; returns once it is down. */
        public abstract void stop(KafkaTestCluster cluster, int nodeId);
    }
}
