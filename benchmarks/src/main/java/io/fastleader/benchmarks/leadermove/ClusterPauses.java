package io.fastleader.benchmarks.leadermove;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;

/**
 * The stop-the-world garbage collections of this JVM while this is open, as intervals in epoch
 * microseconds. With the brokers and the network model's relays in this JVM, a pause stops the
 * cluster and its network at once: bytes wait in a relay, or unread in a broker's socket, and
 * neither the brokers' request log (which times a request from its read) nor a client sees it.
 * Without these intervals a record that waited out a pause would count it as client time.
 *
 * <p>A collector whose name says it works concurrently ({@code Concurrent}, {@code Cycles}: G1's
 * concurrent cycle on Java 20 and later, ZGC's and Shenandoah's cycles) is left out: the JVM runs
 * meanwhile. The JVM reports a collection's start and end in milliseconds.
 */
final class ClusterPauses implements AutoCloseable {

    private final long jvmStartMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
    private final List<long[]> pauses = new ArrayList<>();
    private final Map<NotificationEmitter, NotificationListener> listening = new LinkedHashMap<>();

    private ClusterPauses() {
    }

    /** Starts keeping this JVM's pauses. */
    static ClusterPauses attach() {
        ClusterPauses kept = new ClusterPauses();
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (stopsTheWorld(collector.getName()) && collector instanceof NotificationEmitter emitter) {
                NotificationListener listener = (notification, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                        kept.keep(GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcInfo());
                    }
                };
                emitter.addNotificationListener(listener, null, null);
                kept.listening.put(emitter, listener);
            }
        }
        return kept;
    }

    static boolean stopsTheWorld(String collectorName) {
        return !collectorName.contains("Concurrent") && !collectorName.contains("Cycles");
    }

    private synchronized void keep(GcInfo collection) {
        pauses.add(new long[] {(jvmStartMillis + collection.getStartTime()) * 1000, (jvmStartMillis + collection.getEndTime()) * 1000});
    }

    /** The pauses so far, each {@code [start, end]} in epoch microseconds, in the order they ended. */
    synchronized List<long[]> pauses() {
        return pauses.stream().map(long[]::clone).toList();
    }

    @Override
    public void close() {
        listening.forEach((emitter, listener) -> {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // Removed already: nothing is kept any more either way.
            }
        });
        listening.clear();
    }
}
