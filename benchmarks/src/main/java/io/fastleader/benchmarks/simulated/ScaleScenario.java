package io.fastleader.benchmarks.simulated;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.kafka.common.TopicPartition;

import io.fastleader.it.sim.SimulatedCluster;

/** The disturbances of the scale benchmark, each a series of leader moves on a {@link SimulatedCluster}. */
enum ScaleScenario {

    /**
     * A rolling restart of the first {@code --moves} brokers, one after another: each broker's
     * leaderships move off it (a controlled shutdown's first step), it stops, stays down
     * {@code --down-ms}, starts again, and gets the same leaderships back (as a preferred election
     * would give them): two moves per broker.
     */
    ROLL {
        @Override
        void run(SimulatedCluster cluster, List<String> topics, ScaleOptions options, Mover mover) throws Exception {
            int rolled = Math.min(options.moves(), cluster.brokerIds().size());
            for (int broker = 0; broker < rolled; broker++) {
                int restarted = broker;
                Set<TopicPartition> led = mover.move("broker " + broker + " off", () -> cluster.moveLeadershipOff(restarted));
                cluster.stopBroker(restarted);
                Thread.sleep(options.downMillis());
                cluster.startBroker(restarted);
                Map<TopicPartition, Integer> back = new LinkedHashMap<>();
                led.forEach(partition -> back.put(partition, restarted));
                mover.move("broker " + broker + " back", () -> cluster.moveLeaders(back));
            }
        }
    },

    /**
     * {@code --moves} rotations: each moves the leader of {@code --reassign-percent} of the
     * partitions, spread evenly over them, to the replica after it, all at once.
     */
    REASSIGN {
        @Override
        void run(SimulatedCluster cluster, List<String> topics, ScaleOptions options, Mover mover) throws Exception {
            for (int rotation = 0; rotation < options.moves(); rotation++) {
                Map<TopicPartition, Integer> moves = new LinkedHashMap<>();
                long index = 0;
                for (String topic : topics) {
                    for (Map.Entry<TopicPartition, Integer> next : cluster.nextReplicas(topic).entrySet()) {
                        if (chosen(index++, options.reassignPercent())) {
                            moves.put(next.getKey(), next.getValue());
                        }
                    }
                }
                mover.move("rotation " + rotation, () -> cluster.moveLeaders(moves));
            }
        }
    };

    /** Makes the scenario's moves, each through {@code mover}. */
    abstract void run(SimulatedCluster cluster, List<String> topics, ScaleOptions options, Mover mover) throws Exception;

    /** Whether the {@code index}th partition is among {@code percent} per cent spread evenly: where the running share passes a whole number. */
    static boolean chosen(long index, int percent) {
        return (index + 1) * percent / 100 > index * percent / 100;
    }

    /** Makes one move and measures what follows it. */
    @FunctionalInterface
    interface Mover {
        /**
         * Runs {@code move}, a command of the cluster that returns the partitions it moved with
         * their new epochs, then measures the client's first record to each of them.
         *
         * @return the partitions moved
         */
        Set<TopicPartition> move(String name, Supplier<Map<TopicPartition, Integer>> move) throws Exception;
    }
}
