package io.fastleader.it.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;

import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * What the faults act on: the cluster, the soak's topics and its lanes' groups; and the recovery
 * between two faults (every broker running, every partition with its full ISR).
 */
final class Chaos {

    /** Internal topics whose replicas the faults move too: the group and transaction coordinators' logs. */
    private static final List<String> INTERNAL_TOPICS = List.of("__consumer_offsets", "__transaction_state");

    /** The broker that coordinates {@code of}, a group or a transactional id. */
    record Coordinator(int broker, String of) {
    }

    private final KafkaTestCluster cluster;
    private final Disturbances disturbances;
    private final Admin admin;
    private final List<String> topics;
    private final List<Lane> lanes;

    Chaos(KafkaTestCluster cluster, Disturbances disturbances, Admin admin, List<String> topics, List<Lane> lanes) {
        this.cluster = cluster;
        this.disturbances = disturbances;
        this.admin = admin;
        this.topics = topics;
        this.lanes = lanes;
    }

    KafkaTestCluster cluster() {
        return cluster;
    }

    Disturbances disturbances() {
        return disturbances;
    }

    /** The soak's own topics. */
    List<String> topics() {
        return topics;
    }

    int randomBroker(Random random) {
        List<Integer> brokers = new ArrayList<>(cluster.brokerIds());
        return brokers.get(random.nextInt(brokers.size()));
    }

    ChurningGroup randomGroup(Random random) {
        List<ChurningGroup> groups = lanes.stream().flatMap(lane -> lane.groups().stream()).toList();
        return groups.get(random.nextInt(groups.size()));
    }

    /** A group's coordinator, or a pipeline member's transaction coordinator, drawn at random. */
    Coordinator randomCoordinator(Random random) {
        Lane lane = lanes.get(random.nextInt(lanes.size()));
        try {
            if (random.nextBoolean()) {
                String transactionalId = lane.transactionalIds().get(random.nextInt(lane.transactionalIds().size()));
                int broker = admin.describeTransactions(List.of(transactionalId)).description(transactionalId).get().coordinatorId();
                return new Coordinator(broker, "transactional id " + transactionalId);
            }
            String group = lane.groupIds().get(random.nextInt(lane.groupIds().size()));
            int broker = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().coordinator().id();
            return new Coordinator(broker, "group " + group);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot find a coordinator: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Returns once every broker runs and every partition of the soak's topics, and of the
     * coordinators' topics once the brokers created them, has its full ISR.
     */
    void recover() throws InterruptedException {
        for (int broker : cluster.stoppedBrokers()) {
            cluster.startBroker(broker);
        }
        topics.forEach(disturbances::awaitFullIsr);
        Set<String> existing;
        try {
            existing = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot list the topics: " + e.getCause(), e.getCause());
        }
        INTERNAL_TOPICS.stream().filter(existing::contains).forEach(disturbances::awaitFullIsr);
    }
}
