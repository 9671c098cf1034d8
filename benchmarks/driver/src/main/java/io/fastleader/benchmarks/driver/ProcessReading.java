package io.fastleader.benchmarks.driver;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;

/**
 * What this whole JVM has spent so far, read at one moment, or (after {@link #since}) between two:
 * CPU time of the process, every thread counted (the client's, the sending thread, the JIT
 * compilers, the collectors), and the garbage collectors' time and collection count, summed over
 * every collector the JVM has; and the JIT compilers' time, which says whether the warm-up was
 * long enough.
 *
 * @param nanos     {@link System#nanoTime()} at the reading, or the time between two
 * @param cpuNanos  process CPU time, from {@link OperatingSystemMXBean#getProcessCpuTime()}
 * @param gcMillis  the sum of {@link GarbageCollectorMXBean#getCollectionTime()}
 * @param gcCount   the sum of {@link GarbageCollectorMXBean#getCollectionCount()}
 * @param jitMillis {@link CompilationMXBean#getTotalCompilationTime()}, or 0 where the JVM does not keep it
 */
record ProcessReading(long nanos, long cpuNanos, long gcMillis, long gcCount, long jitMillis) {

    private static final OperatingSystemMXBean PROCESS = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    /** The figures now. */
    static ProcessReading now() {
        long gcMillis = 0;
        long gcCount = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            // -1 means the collector does not keep the figure: it adds nothing then.
            gcMillis += Math.max(0, collector.getCollectionTime());
            gcCount += Math.max(0, collector.getCollectionCount());
        }
        long jitMillis = JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : 0;
        return new ProcessReading(System.nanoTime(), PROCESS.getProcessCpuTime(), gcMillis, gcCount, jitMillis);
    }

    /** What was spent from {@code start} to this reading. */
    ProcessReading since(ProcessReading start) {
        return new ProcessReading(nanos - start.nanos, cpuNanos - start.cpuNanos, gcMillis - start.gcMillis, gcCount - start.gcCount,
            jitMillis - start.jitMillis);
    }
}
