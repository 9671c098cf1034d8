package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When one producer's Produce requests were at a broker, per partition: the union of the intervals
 * of the requests that carried the partition, so that overlapping requests (several in flight, or
 * a retry at the new leader while the old one still holds the first) count once. For a record,
 * only the requests read before its acknowledgement count, and only up to it: the broker's log
 * line can come after the client has read the response (the broker's thread writes the response,
 * then logs), so a request logged after the acknowledgement may well be the record's own; one
 * read after it carried a later batch.
 *
 * <p>A broker reads one request per connection at a time: it reads the next only once it has sent
 * the response to the one before, and its log times a request from that read. A producer with
 * several requests in flight on one connection therefore has the later ones waiting at the broker,
 * unread, while an earlier one is held (at acks=all, until the followers have the records), and
 * the log times them from their read only ({@link #served}). {@link #withWaiting} takes a request
 * read within {@link #BACK_TO_BACK_MICROS} of the end of the one before it on its connection as
 * having been at the broker since that one was, and so on back along the run of back-to-back
 * requests; the record's own send bounds it, as always. On a connection that is never idle (a
 * high rate) that run covers everything, and the record's own time queued in the client with it.
 */
final class BrokerTime {

    /** A request read this soon after its connection's previous one ended waited behind it. */
    static final long BACK_TO_BACK_MICROS = 5_000;

    private final Map<Integer, List<long[]>> intervals;
    private final List<long[]> everyPartition;
    private final Map<Integer, Intervals> byPartition = new HashMap<>();
    private final Intervals otherPartitions;

    private BrokerTime(Map<Integer, List<long[]>> intervals, List<long[]> everyPartition) {
        this.intervals = intervals;
        this.everyPartition = everyPartition;
        intervals.forEach((partition, list) -> {
            List<long[]> all = new ArrayList<>(list);
            all.addAll(everyPartition);
            byPartition.put(partition, Intervals.of(all));
        });
        this.otherPartitions = Intervals.of(new ArrayList<>(everyPartition));
    }

    /** The time {@code requests} spent at the brokers, per partition they carried, from their read to their response. */
    static BrokerTime served(List<BrokerRequestLog.ProduceAtBroker> requests) {
        Map<Integer, List<long[]>> intervals = new HashMap<>();
        for (BrokerRequestLog.ProduceAtBroker request : requests) {
            for (int partition : request.partitions()) {
                intervals.computeIfAbsent(partition, p -> new ArrayList<>()).add(new long[] {request.startMicros(), request.endMicros()});
            }
        }
        return of(intervals);
    }

    /**
     * The time {@code requests} spent at the brokers, per partition they carried, each from the
     * start of the run of back-to-back requests it waited behind on its connection to its response.
     */
    static BrokerTime withWaiting(List<BrokerRequestLog.ProduceAtBroker> requests) {
        Map<String, List<BrokerRequestLog.ProduceAtBroker>> byConnection = new HashMap<>();
        requests.forEach(request -> byConnection.computeIfAbsent(request.connection(), c -> new ArrayList<>()).add(request));
        Map<Integer, List<long[]>> intervals = new HashMap<>();
        for (List<BrokerRequestLog.ProduceAtBroker> connection : byConnection.values()) {
            connection.sort(Comparator.comparingLong(BrokerRequestLog.ProduceAtBroker::startMicros));
            long waitingFrom = Long.MIN_VALUE;
            long previousEnd = Long.MIN_VALUE;
            for (BrokerRequestLog.ProduceAtBroker request : connection) {
                if (previousEnd == Long.MIN_VALUE || request.startMicros() - previousEnd > BACK_TO_BACK_MICROS) {
                    waitingFrom = request.startMicros();
                }
                previousEnd = Math.max(previousEnd, request.endMicros());
                for (int partition : request.partitions()) {
                    intervals.computeIfAbsent(partition, p -> new ArrayList<>()).add(new long[] {waitingFrom, request.endMicros()});
                }
            }
        }
        return of(intervals);
    }

    private static BrokerTime of(Map<Integer, List<long[]>> intervals) {
        return new BrokerTime(intervals, List.of());
    }

    /**
     * This time, or {@code pauses}, for every partition: the time a request carrying the partition
     * was at a broker or the whole cluster stood still ({@link ClusterPauses}).
     *
     * @param pauses intervals {@code [start, end]} in epoch microseconds
     */
    BrokerTime orDuring(List<long[]> pauses) {
        List<long[]> every = new ArrayList<>(everyPartition);
        every.addAll(pauses);
        return new BrokerTime(intervals, every);
    }

    /**
     * Microseconds from {@code fromMicros} to {@code toMicros} during which a request carrying
     * {@code partition} was at a broker (or, after {@link #orDuring}, the cluster paused).
     */
    long within(int partition, long fromMicros, long toMicros) {
        Intervals partitionTime = byPartition.getOrDefault(partition, otherPartitions);
        return toMicros <= fromMicros ? 0 : partitionTime.unionWithin(fromMicros, toMicros);
    }

    /** One partition's request intervals, by their ends. */
    private static final class Intervals {

        private final long[] starts;
        private final long[] ends;
        /** The longest interval's length: an interval ending more than this after a moment started after it. */
        private final long longest;

        private Intervals(long[] starts, long[] ends) {
            this.starts = starts;
            this.ends = ends;
            long longest = 0;
            for (int i = 0; i < ends.length; i++) {
                longest = Math.max(longest, ends[i] - starts[i]);
            }
            this.longest = longest;
        }

        static Intervals of(List<long[]> intervals) {
            intervals.sort(Comparator.comparingLong(interval -> interval[1]));
            return new Intervals(intervals.stream().mapToLong(interval -> interval[0]).toArray(),
                intervals.stream().mapToLong(interval -> interval[1]).toArray());
        }

        /** The length of the union of the intervals, clipped to [{@code from}, {@code to}]. */
        long unionWithin(long from, long to) {
            List<long[]> clipped = new ArrayList<>();
            for (int i = firstEndingAfter(from); i < ends.length && ends[i] - longest < to; i++) {
                if (starts[i] < to) {
                    clipped.add(new long[] {Math.max(from, starts[i]), Math.min(to, ends[i])});
                }
            }
            clipped.sort(Comparator.comparingLong(interval -> interval[0]));
            long length = 0;
            long coveredTo = Long.MIN_VALUE;
            for (long[] interval : clipped) {
                long start = Math.max(interval[0], coveredTo);
                if (interval[1] > start) {
                    length += interval[1] - start;
                    coveredTo = interval[1];
                }
            }
            return length;
        }

        private int firstEndingAfter(long micros) {
            int low = 0;
            int high = ends.length;
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (ends[middle] <= micros) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            return low;
        }
    }
}
