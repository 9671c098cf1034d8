package io.fastleader.benchmarks.leadermove;

import java.util.List;

import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;

/** What moves the leaders while the variants run, each disturbance timed on the wall clock. */
enum Scenario {
    /** Every partition's replica list rotates by one, {@code --moves} times: the KIP-951 micro-benchmark. */
    REASSIGN {
        @Override
        void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options,
                     List<Disturbance> done) throws InterruptedException {
            for (int move = 1; move <= options.moves(); move++) {
                long start = System.currentTimeMillis();
                disturbances.rotateReplicas(topic);
                done.add(new Disturbance("rotation " + move, start, System.currentTimeMillis()));
                Thread.sleep(options.interval().toMillis());
            }
        }
    },
    /** Every broker stops gracefully and starts again, one at a time, settling in between: the KIP's roll, scaled down. */
    ROLL {
        @Override
        void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options,
                     List<Disturbance> done) throws InterruptedException {
            for (int broker : cluster.brokerIds()) {
                long start = System.currentTimeMillis();
                cluster.stopBroker(broker);
                cluster.startBroker(broker);
                disturbances.awaitFullIsr(topic);
                done.add(new Disturbance("restart of broker " + broker, start, System.currentTimeMillis()));
                Thread.sleep(options.settle().toMillis());
            }
        }
    };

    /** Runs the disturbances, adding each to {@code done} as it ends. */
    abstract void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options,
                          List<Disturbance> done) throws InterruptedException;

    /** One disturbance: what it was, and when it began and ended (epoch milliseconds). */
    record Disturbance(String what, long startMillis, long endMillis) {
    }
}
