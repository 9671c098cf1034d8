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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

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
 *       on the caller), is printed per trial as "simulated side", with the time from the move
 *       until each client's last record of the round was appended, by client kind.</li>
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
        /** Whether the iteration running is measured (not warm-up): only those are summed below. */
        boolean measured;
        final Summary simulated = new Summary();
        final Summary fastleaderClients = new Summary();
        final Summary kafkaClients = new Summary();

        @Setup(Level.Trial)
        public void start() {
            cluster = new ProducingCluster(brokers, topics, movedTopics, partitionsPerTopic, clients);
        }

        @Setup(Level.Iteration)
        public void iteration(IterationParams params) {
            measured = params.getType() == IterationType.MEASUREMENT;
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
            simulated.print("simulated side (cluster threads' CPU + the move)");
            fastleaderClients.print("move to a FastLeaderProducer's last record appended");
            kafkaClients.print("move to a KafkaProducer's last record appended");
            cluster.close();
        }

        void record(long moveNanos, long simulatedNanos, long[] appendedNanos) {
            if (!measured) {
                return;
            }
            simulated.add(simulatedNanos);
            for (int c = 0; c < appendedNanos.length; c++) {
                (cluster.isFastleader(c) ? fastleaderClients : kafkaClients).add(moveNanos + appendedNanos[c]);
            }
        }
    }

    /** Mean, min and max of durations, printed at the end of a trial. */
    static final class Summary {
        private long count;
        private long total;
        private long min = Long.MAX_VALUE;
        private long max;

        void add(long nanos) {
            count++;
            total += nanos;
            min = Math.min(min, nanos);
            max = Math.max(max, nanos);
        }

        void print(String what) {
            if (count > 0) {
                System.out.printf("%n%s, %d measured: mean %.1f ms, min %.1f ms, max %.1f ms%n", what, count, total / 1e6 / count,
                    min / 1e6, max / 1e6);
            }
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
        long[] appended = state.cluster.produceAndAwaitAppends();
        state.record(moveNanos, moveNanos + state.cluster.simulationThreadsCpuNanos() - cpuBefore, appended);
        return moved;
    }
}
