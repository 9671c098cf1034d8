package io.fastleader.it.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

import io.fastleader.it.cluster.Disturbances.StopStyle;

/**
 * The faults a soak applies, one at a time, each drawn with its target and its durations from the
 * run's seeded random; {@link Chaos#recover()} runs between two of them. Each returns what it did,
 * for the report.
 */
enum Fault {

    /** A broker stopped with a controlled shutdown, down for a moment, started again. */
    GRACEFUL_RESTART {
        @Override
        String apply(Chaos chaos, Random random) throws InterruptedException {
            int broker = chaos.randomBroker(random);
            return "broker " + broker + " " + restart(chaos, broker, StopStyle.GRACEFUL, random, 1_000, 3_000);
        }
    },

    /** A broker killed (SIGKILL), so its leaderships move only once the controller fences it, started again. */
    KILL_AND_RESTART {
        @Override
        String apply(Chaos chaos, Random random) throws InterruptedException {
            int broker = chaos.randomBroker(random);
            return "broker " + broker + " " + restart(chaos, broker, StopStyle.KILL, random, 2_000, 6_000);
        }
    },

    /** A quarter of each soak topic's partitions get new replica lists, each led by its new first replica. */
    REASSIGN_SHARE {
        @Override
        String apply(Chaos chaos, Random random) {
            List<Integer> brokers = new ArrayList<>(chaos.cluster().brokerIds());
            int moved = 0;
            for (String topic : chaos.topics()) {
                TopicDescription description = chaos.disturbances().describe(topic);
                List<TopicPartitionInfo> partitions = new ArrayList<>(description.partitions());
                Collections.shuffle(partitions, random);
                Map<Integer, List<Integer>> targets = new HashMap<>();
                for (TopicPartitionInfo partition : partitions.subList(0, Math.max(1, partitions.size() / 4))) {
                    List<Integer> current = partition.replicas().stream().map(Node::id).toList();
                    List<Integer> target;
                    do {
                        Collections.shuffle(brokers, random);
                        target = List.copyOf(brokers.subList(0, current.size()));
                    } while (target.equals(current));
                    targets.put(partition.partition(), target);
                }
                chaos.disturbances().reassign(topic, targets);
                moved += targets.size();
            }
            return moved + " partitions reassigned";
        }
    },

    /** Every partition's first replica elected leader where leadership had drifted. */
    PREFERRED_ELECTION {
        @Override
        String apply(Chaos chaos, Random random) {
            int moved = 0;
            for (String topic : chaos.topics()) {
                moved += (int) chaos.disturbances().describe(topic).partitions().stream()
                    .filter(p -> p.leader() == null || p.leader().id() != p.replicas().get(0).id()).count();
                chaos.disturbances().electPreferredLeaders(topic);
            }
            return moved + " partitions elected their preferred leader";
        }
    },

    /** The broker coordinating one of the soak's groups, or one pipeline member's transactions, restarted gracefully. */
    COORDINATOR_RESTART {
        @Override
        String apply(Chaos chaos, Random random) throws InterruptedException {
            Chaos.Coordinator coordinator = chaos.randomCoordinator(random);
            return "broker " + coordinator.broker() + ", coordinator of " + coordinator.of() + ", "
                + restart(chaos, coordinator.broker(), StopStyle.GRACEFUL, random, 1_000, 3_000);
        }
    },

    /** One broker's client links slowed by an extra one-way delay for a while. */
    NETWORK_DELAY {
        @Override
        String apply(Chaos chaos, Random random) throws InterruptedException {
            int broker = chaos.randomBroker(random);
            Duration extra = Duration.ofMillis(50 + random.nextInt(201));
            chaos.cluster().delayClientLinks(broker, extra);
            long heldMs = pause(random, 5_000, 10_000);
            chaos.cluster().delayClientLinks(broker, Duration.ZERO);
            return "broker " + broker + "'s client links " + extra.toMillis() + " ms slower each way for " + heldMs + " ms";
        }
    },

    /** One broker cut off from every client (connections dropped, new ones refused) while it runs on. */
    NETWORK_CUT {
        @Override
        String apply(Chaos chaos, Random random) throws InterruptedException {
            int broker = chaos.randomBroker(random);
            chaos.cluster().cutClientLinks(broker);
            long heldMs = pause(random, 3_000, 8_000);
            chaos.cluster().restoreClientLinks(broker);
            return "broker " + broker + " cut off from its clients for " + heldMs + " ms";
        }
    },

    /** One group's member process killed (SIGKILL) and a new one started. */
    CLIENT_PROCESS_KILLED {
        @Override
        String apply(Chaos chaos, Random random) throws InterruptedException {
            ChurningGroup group = chaos.randomGroup(random);
            group.killAndRestartProcess();
            return "a member process of " + group.group() + " killed and started again";
        }
    };

    /** Applies the fault; returns once the fault is over (not recovered from), with what it did. */
    abstract String apply(Chaos chaos, Random random) throws InterruptedException;

    /** Stops or kills {@code broker}, keeps it down between the bounds, starts it; says how long each step took. */
    private static String restart(Chaos chaos, int broker, StopStyle style, Random random, int minDownMs, int maxDownMs)
            throws InterruptedException {
        long start = System.nanoTime();
        style.stop(chaos.cluster(), broker);
        long stopped = System.nanoTime();
        long downMs = pause(random, minDownMs, maxDownMs);
        long starting = System.nanoTime();
        chaos.cluster().startBroker(broker);
        return String.format("%s in %d ms, down %d ms, started in %d ms", style == StopStyle.KILL ? "killed" : "stopped gracefully",
            TimeUnit.NANOSECONDS.toMillis(stopped - start), downMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - starting));
    }

    /** How long a fault holds: drawn between the bounds, in milliseconds. */
    private static long pause(Random random, int minMs, int maxMs) throws InterruptedException {
        long ms = minMs + random.nextInt(maxMs - minMs + 1);
        TimeUnit.MILLISECONDS.sleep(ms);
        return ms;
    }
}
