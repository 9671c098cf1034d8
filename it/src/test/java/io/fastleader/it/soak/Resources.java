package io.fastleader.it.soak;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import com.sun.management.UnixOperatingSystemMXBean;

/**
 * What this JVM holds at one moment: live threads (by name), open file descriptors, and the heap
 * in use after a full collection. Two snapshots, before the workloads start and after they are
 * closed, tell whether the run leaked.
 */
record Resources(List<String> threads, long openFileDescriptors, long heapUsedBytes) {

    private static final Pattern DIGITS = Pattern.compile("\\d+");

    static Resources now() {
        System.gc();
        System.gc();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long descriptors = ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
            ? unix.getOpenFileDescriptorCount() : -1;
        List<String> names = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName).sorted().toList();
        return new Resources(names, descriptors, heap.getUsed());
    }

    /**
     * How many more threads of each kind are alive now than before, for the kinds that grew. A kind
     * is a name with its numbers masked ({@code delay-link-#-#-up-read}), so a connection or a
     * process that was replaced by another counts as the same thread.
     */
    Map<String, Long> threadGrowth(Resources before) {
        Map<String, Long> growth = new TreeMap<>(countByKind(threads));
        countByKind(before.threads).forEach((kind, count) -> growth.merge(kind, -count, Long::sum));
        growth.values().removeIf(count -> count <= 0);
        return growth;
    }

    private static Map<String, Long> countByKind(List<String> names) {
        return names.stream().collect(Collectors.groupingBy(name -> DIGITS.matcher(name).replaceAll("#"), Collectors.counting()));
    }

    @Override
    public String toString() {
        return threads.size() + " threads, " + openFileDescriptors + " file descriptors, " + heapUsedBytes / (1024 * 1024) + " MiB heap";
    }
}
