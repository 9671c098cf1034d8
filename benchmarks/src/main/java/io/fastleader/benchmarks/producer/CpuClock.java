package io.fastleader.benchmarks.producer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

import com.sun.management.OperatingSystemMXBean;
import io.fastleader.benchmarks.common.ClientVariant;

/**
 * CPU time used since it was started, two ways: by the threads of one client (a thread-name
 * test, plus the thread that calls {@code send}), from {@link ThreadMXBean#getThreadCpuTime}; and
 * by the whole process, brokers included, from {@link OperatingSystemMXBean#getProcessCpuTime}.
 * Threads of the client that start after this clock count from zero; none may end before
 * {@link #elapsed()}, which holds for a producer that is not closed in between.
 */
final class CpuClock {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final OperatingSystemMXBean PROCESS = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);

    private final Predicate<Thread> counted;
    private final Map<Long, Long> threadStart;
    private final long processStart;

    private CpuClock(Predicate<Thread> counted) {
        if (!THREADS.isThreadCpuTimeSupported() || !THREADS.isThreadCpuTimeEnabled()) {
            throw new IllegalStateException("this JVM does not measure thread CPU time");
        }
        this.counted = counted;
        this.threadStart = threadCpu(counted);
        this.processStart = PROCESS.getProcessCpuTime();
    }

    /** Starts counting the CPU of {@code client}'s threads and of {@code sender}. */
    static CpuClock start(ClientVariant client, Thread sender) {
        return new CpuClock(thread -> thread == sender || client.ownsProducerThread(thread.getName()));
    }

    /** CPU used since {@link #start}. */
    Elapsed elapsed() {
        long process = PROCESS.getProcessCpuTime() - processStart;
        long threads = 0;
        for (Map.Entry<Long, Long> now : threadCpu(counted).entrySet()) {
            threads += now.getValue() - threadStart.getOrDefault(now.getKey(), 0L);
        }
        return new Elapsed(threads, process);
    }

    private static Map<Long, Long> threadCpu(Predicate<Thread> counted) {
        Map<Long, Long> cpu = new HashMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (counted.test(thread)) {
                long nanos = THREADS.getThreadCpuTime(thread.getId());
                if (nanos >= 0) {
                    cpu.put(thread.getId(), nanos);
                }
            }
        }
        return cpu;
    }

    /**
     * CPU nanoseconds used.
     *
     * @param clientNanos  by the client's threads and its sending thread
     * @param processNanos by the whole JVM, the in-JVM brokers included
     */
    record Elapsed(long clientNanos, long processNanos) {
    }
}
