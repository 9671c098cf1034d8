package io.fastleader.benchmarks.simulated;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 35's speed requirement: a move of 10,000 partition leaders with 10 clients connected
 * completes on the simulated side in well under a second. A {@link ProducingCluster} of 100
 * brokers and 100,000 partitions (1,000 topics of 100, RF 3: the simulated cluster's scale target),
 * whose first 100 topics' leaders all move at each invocation, and 10 producers (5
 * FastLeaderProducer, 5 KafkaProducer 4.3.1) that together write every moved partition.
 *
 * <ul>
 *   <li>{@link #move}: the {@code SimulatedCluster.moveLeaders} call of 10,000 partitions alone,
 *       with the clients connected and idle; after each invocation, outside the time, the clients
 *       write every moved partition once and the records are checked at the new leaders.</li>
 *   <li>{@link #moveAndNextProduces}: from the start of the move until every client's next Produce
 *       to each moved partition it writes has been appended by the new leader: the move, each
 *       client's one record to each of its partitions sent right after it, the refusals of the old
 *       leaders, the Metadata requests the clients send, the retries, until the last of the 10,000
 *       records is in its log (polled through the partitions' high watermarks, 20 µs apart). This is
 *       wall time on the two cores the cluster shares with the ten clients; the cluster's own share,
 *       the CPU time of its network and timer threads over the same span plus the move (which runs
 *       on the caller), is printed per trial as "simulated side".</li>
 * </ul>
 *
 * <p>Each invocation is one move (SingleShotTime); every invocation checks that each moved
 * partition's newest record was appended under the move's epoch.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 20)
// ERROR: KafkaProducer logs two WARN lines per refused partition, 10,000 a move, which would time its logging
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Dfastleader.bench.log.level=ERROR"})
public class SimulatedLeaderMoveBenchmark {

    /** The cluster and its clients, one per trial. */
    @State(Scope.Benchmark)
    public static class Cluster {
        @Param("100")
        public int brokers;
        @Param("1000")
        public int topics;
        @Param("100")
        public int movedTopics;
        @Param("100")
        public int partitionsPerTopic;
        @Param("10")
        public int clients;

        ProducingCluster cluster;
        /** Whether the last invocation moved leaders whose next Produces are still to be awaited. */
        boolean movedOnly;
        long rounds;
        long simulatedNanos;
        long simulatedNanosMax;
        long simulatedNanosMin = Long.MAX_VALUE;

        @Setup(Level.Trial)
        public void start() {
            cluster = new ProducingCluster(brokers, topics, movedTopics, partitionsPerTopic, clients);
        }

        /** After a move alone, the clients' next Produces, untimed, so the next move finds them settled. */
        @TearDown(Level.Invocation)
        public void settle() {
            if (movedOnly) {
                cluster.produceAndAwaitAppends();
                movedOnly = false;
            }
            cluster.checkLedByNewLeaders();
        }

        @TearDown(Level.Trial)
        public void stop() {
            if (rounds > 0) {
                System.out.printf("%nsimulated side (cluster threads' CPU + the move) over %d invocations: mean %.1f ms,"
                        + " min %.1f ms, max %.1f ms%n", rounds, simulatedNanos / 1e6 / rounds, simulatedNanosMin / 1e6,
                    simulatedNanosMax / 1e6);
            }
            cluster.close();
        }

        void addSimulated(long nanos) {
            rounds++;
            simulatedNanos += nanos;
            simulatedNanosMin = Math.min(simulatedNanosMin, nanos);
            simulatedNanosMax = Math.max(simulatedNanosMax, nanos);
        }
    }

    @Benchmark
    public int move(Cluster state) {
        state.movedOnly = true;
        return state.cluster.move();
    }

    @Benchmark
    public int moveAndNextProduces(Cluster state) {
        long cpuBefore = state.cluster.simulationThreadsCpuNanos();
        long started = System.nanoTime();
        int moved = state.cluster.move();
        long moveNanos = System.nanoTime() - started;
        state.cluster.produceAndAwaitAppends();
        state.addSimulated(moveNanos + state.cluster.simulationThreadsCpuNanos() - cpuBefore);
        return moved;
    }
}
