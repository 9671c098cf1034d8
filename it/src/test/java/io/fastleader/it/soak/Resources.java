package io.fastleader.it.soak;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.sun.management.UnixOperatingSystemMXBean;

/**
 * What this JVM holds at one moment: live threads (by name), open file descriptors, and the heap
 * in use after a full collection. Two snapshots, before the workloads start and after they are
 * closed, tell whether the run leaked.
 */
record Resources(List<String> threads, long openFileDescriptors, long heapUsedBytes) {

    static Resources now() {
        System.gc();
        System.gc();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long descriptors = ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
            ? unix.getOpenFileDescriptorCount() : -1;
        List<String> names = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName).sorted().toList();
        return new Resources(names, descriptors, heap.getUsed());
    }

    /** Names of threads alive now that were not, by name, before. */
    Set<String> threadsNotIn(Resources before) {
        Set<String> added = new TreeSet<>(threads);
        added.removeAll(before.threads);
        return added;
    }

    @Override
    public String toString() {
        return threads.size() + " threads, " + openFileDescriptors + " file descriptors, " + heapUsedBytes / (1024 * 1024) + " MiB heap";
    }
}
