package io.fastleader.benchmarks.simulated;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import io.fastleader.it.sim.SimulatedCluster;

/**
 * The CPU time of a {@link SimulatedCluster}'s own threads ({@code <name>-network} and
 * {@code <name>-timer}): the simulated side's share of two cores it shares with the clients.
 */
final class SimulationThreads {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long[] threadIds;

    private SimulationThreads(long[] threadIds) {
        this.threadIds = threadIds;
    }

    /** The threads {@code cluster} runs now; both start with the cluster. */
    static SimulationThreads of(SimulatedCluster cluster) {
        return new SimulationThreads(Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith(cluster.name() + "-"))
            .mapToLong(Thread::getId)
            .toArray());
    }

    /** CPU time these threads have used so far, in nanoseconds. */
    long cpuNanos() {
        long total = 0;
        for (long id : threadIds) {
            total += Math.max(0, THREADS.getThreadCpuTime(id));
        }
        return total;
    }

    /** CPU time the calling thread has used so far, in nanoseconds: a command such as a move runs on it. */
    static long callerCpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }
}
