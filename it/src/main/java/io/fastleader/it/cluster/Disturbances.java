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
import org.apache.kafka.common.errors.ElectionNotNeededException;

/**
 * The events that move partition leaders, each returning once the cluster reports the new state:
 * replica-list rotation, moving partitions onto another broker, preferred-leader election,
 * rolling restarts and topic recreation.
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

    /**
     * Creates a topic and returns once every partition has a leader and a full ISR.
     *
     * @return the topic id
     */
    public Uuid createTopic(NewTopic topic) {
        call(() -> admin.createTopics(List.of(topic)).all().get());
        awaitFullIsr(topic.name());
        return describe(topic.name()).topicId();
    }

    /**
     * Rotates every partition's replica list by one, so each partition's first replica moves to
     * the back (the KIP-951 benchmark move), and elects the new first replica leader.
     *
     * @return each partition's new leader
     */
    public Map<TopicPartition, Integer> rotateReplicas(String topic) {
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
     * @return each partition's new leader ({@code nodeId} for all)
     */
    public Map<TopicPartition, Integer> moveLeadershipOnto(String topic, int nodeId) {
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
     * Elects each partition's first replica leader and returns once they all lead, e.g. after a
     * restart left leadership drifted onto the other brokers.
     *
     * @return each partition's leader
     */
    public Map<TopicPartition, Integer> electPreferredLeaders(String topic) {
        Map<TopicPartition, Integer> preferred = preferredLeaders(describe(topic));
        try {
            admin.electLeaders(ElectionType.PREFERRED, preferred.keySet()).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof ElectionNotNeededException)) {
                throw new IllegalStateException("preferred-leader election for " + topic + " failed", e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        Await.until("preferred leaders of " + topic, TIMEOUT, () -> leaders(describe(topic)).equals(preferred));
        return preferred;
    }

    /**
     * Restarts every running broker once, one at a time, stopping each gracefully or killing it,
     * and waits after each for every partition of {@code topics} to have its full ISR again.
     */
    public void rollingRestart(StopStyle style, Set<String> topics) {
        for (int nodeId : cluster.brokerIds()) {
            if (cluster.stoppedBrokers().contains(nodeId)) {
                continue;
            }
            style.stop(cluster, nodeId);
            cluster.startBroker(nodeId);
            topics.forEach(this::awaitFullIsr);
        }
    }

    /**
     * Deletes a topic and creates it again under the same name with the same partition count,
     * replication factor and topic-level configs.
     *
     * @return the new topic id
     */
    public Uuid recreateTopic(String topic) {
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
        awaitFullIsr(topic);
        return describe(topic).topicId();
    }

    /** Returns once every partition of {@code topic} has a leader and all its replicas in sync. */
    public void awaitFullIsr(String topic) {
        Await.until("full ISR on " + topic, TIMEOUT, () -> describe(topic).partitions().stream()
            .allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size()));
    }

    /** The topic as the cluster describes it now. */
    public TopicDescription describe(String topic) {
        return call(() -> admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic));
    }

    @Override
    public void close() {
        admin.close();
    }

    private Map<TopicPartition, Integer> reassign(String topic, Function<TopicPartitionInfo, List<Integer>> newReplicas) {
        TopicDescription description = describe(topic);
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        for (TopicPartitionInfo partition : description.partitions()) {
            List<Integer> target = newReplicas.apply(partition);
            if (!target.equals(replicaIds(partition))) {
                moves.put(new TopicPartition(topic, partition.partition()), Optional.of(new NewPartitionReassignment(target)));
            }
        }
        if (!moves.isEmpty()) {
            call(() -> admin.alterPartitionReassignments(moves).all().get());
            Await.until("reassignment of " + topic, TIMEOUT,
                () -> admin.listPartitionReassignments(moves.keySet()).reassignments().get().isEmpty());
        }
        return electPreferredLeaders(topic);
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

    private static Map<TopicPartition, Integer> preferredLeaders(TopicDescription description) {
        return description.partitions().stream().collect(Collectors.toMap(
            p -> new TopicPartition(description.name(), p.partition()),
            p -> p.replicas().get(0).id()));
    }

    private static Map<TopicPartition, Integer> leaders(TopicDescription description) {
        Map<TopicPartition, Integer> leaders = new HashMap<>();
        for (TopicPartitionInfo p : description.partitions()) {
            leaders.put(new TopicPartition(description.name(), p.partition()), p.leader() == null ? -1 : p.leader().id());
        }
        return leaders;
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

    /** How a rolling restart takes each broker down. */
    public enum StopStyle {
        /** Controlled shutdown: leaderships move away before the broker stops. */
        GRACEFUL {
            @Override
            void stop(KafkaTestCluster cluster, int nodeId) {
                cluster.stopBroker(nodeId);
            }
        },
        /** SIGKILL: the broker vanishes mid-request. Needs {@link KafkaTestCluster#supportsKill()}. */
        KILL {
            @Override
            void stop(KafkaTestCluster cluster, int nodeId) {
                cluster.killBroker(nodeId);
            }
        };

        abstract void stop(KafkaTestCluster cluster, int nodeId);
    }
}
