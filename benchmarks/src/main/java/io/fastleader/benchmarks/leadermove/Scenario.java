package io.fastleader.benchmarks.leadermove;

import java.io.IOException;
import java.time.Duration;

import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;

/** What moves the leaders while the variants run, each disturbance timed on the wall clock and booked in a {@link MoveLedger}. */
enum Scenario {
    /** Every partition's replica list rotates by one, {@code --moves} times: the KIP-951 micro-benchmark. */
    REASSIGN {
        @Override
        void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options, MoveLedger ledger)
                throws IOException, InterruptedException {
            for (int move = 1; move <= options.moves(); move++) {
                ledger.begin("rotation " + move);
                disturbances.rotateReplicas(topic);
                ledger.end();
                pause(options.interval(), ledger);
            }
        }
    },
    /**
     * Every broker stops gracefully and starts again, one at a time, and gets its leaderships back
     * by a preferred election once it is in every ISR, as operators roll a cluster: clients lose
     * each broker's leaderships and must then find the restarted broker again. The KIP's roll,
     * scaled down.
     */
    ROLL {
        @Override
        void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options, MoveLedger ledger)
                throws IOException, InterruptedException {
            for (int broker : cluster.brokerIds()) {
                ledger.begin("restart of broker " + broker);
                cluster.stopBroker(broker);
                cluster.startBroker(broker);
                disturbances.awaitFullIsr(topic);
                disturbances.electPreferredLeaders(topic);
                ledger.end();
                pause(options.settle(), ledger);
            }
        }
    };

    /** Runs the disturbances, booking each in {@code ledger}. */
    abstract void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options, MoveLedger ledger)
        throws IOException, InterruptedException;

    /** Waits {@code pause} after a disturbance, closing its counted span half way. */
    private static void pause(Duration pause, MoveLedger ledger) throws IOException, InterruptedException {
        long half = pause.toMillis() / 2;
        Thread.sleep(half);
        ledger.counted();
        Thread.sleep(pause.toMillis() - half);
    }

    /** One disturbance: what it was, and when it began and ended (epoch milliseconds). */
    record Disturbance(String what, long startMillis, long endMillis) {
    }
}
