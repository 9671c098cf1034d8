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
     * The KIP-951 measurement: a long steady run ({@code --steady}), then one rotation of every
     * partition's replica list, then the pause after it; the report reads p99.9 over the whole run
     * and over the move's window.
     */
    KIP951 {
        @Override
        void disturb(KafkaTestCluster cluster, Disturbances disturbances, String topic, LeaderMoveOptions options, MoveLedger ledger)
                throws IOException, InterruptedException {
            Thread.sleep(options.steady().toMillis());
            ledger.begin("rotation");
            disturbances.rotateReplicas(topic);
            ledger.end();
            pause(options.interval(), ledger);
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

    /** kip951's default rate per variant: three variants at this rate keep up on a loaded 2-core machine (see the README). */
    static final int KIP951_RATE = 500;
    /** kip951's default steady run before the move. */
    static final int KIP951_STEADY_SECONDS = 240;

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

    /**
     * A disturbance's window: from its start to the end of its counted span, half way through the
     * pause after it (epoch milliseconds).
     */
    record Window(String what, long startMillis, long endMillis) {

        boolean contains(long epochMicros) {
            return epochMicros >= startMillis * 1000 && epochMicros < endMillis * 1000;
        }
    }
}
