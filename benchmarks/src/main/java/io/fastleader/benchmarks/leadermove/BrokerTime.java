package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When one producer's Produce requests were at a broker, per partition: the union of the intervals
 * of the requests that carried the partition, so that overlapping requests (several in flight, or
 * a retry at the new leader while the old one still holds the first) count once.
 *
 * <p>A broker reads one request per connection at a time: it reads the next only once it has sent
 * the response to the one before, and its log times a request from that read. A producer with
 * several requests in flight on one connection therefore has the later ones waiting at the broker,
 * unread, while an earlier one is held (at acks=all, until the followers have the records). So a
 * request read within {@link #BACK_TO_BACK_MICROS} of the end of the one before it on its
 * connection is taken as having been at the broker since that one was, and so on back along the
 * run of back-to-back requests; the record's own send bounds it, as always.
 */
final class BrokerTime {

    /** A request read this soon after its connection's previous one ended waited behind it. */
    static final long BACK_TO_BACK_MICROS = 5_000;

    private final Map<Integer, Union> byPartition;

    private BrokerTime(Map<Integer, Union> byPartition) {
        this.byPartition = byPartition;
    }

    /** The time {@code requests} spent at the brokers, per partition they carried. */
    static BrokerTime of(List<BrokerRequestLog.ProduceAtBroker> requests) {
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
        Map<Integer, Union> byPartition = new HashMap<>();
        intervals.forEach((partition, list) -> byPartition.put(partition, Union.of(list)));
        return new BrokerTime(byPartition);
    }

    /** Microseconds from {@code fromMicros} to {@code toMicros} during which a request carrying {@code partition} was at a broker. */
    long within(int partition, long fromMicros, long toMicros) {
        Union union = byPartition.get(partition);
        return union == null || toMicros <= fromMicros ? 0 : union.before(toMicros) - union.before(fromMicros);
    }

    /** Disjoint intervals in order, with the total length of those before each. */
    private static final class Union {

        private final long[] starts;
        private final long[] ends;
        private final long[] lengthBefore;

        private Union(long[] starts, long[] ends, long[] lengthBefore) {
            this.starts = starts;
            this.ends = ends;
            this.lengthBefore = lengthBefore;
        }

        static Union of(List<long[]> intervals) {
            intervals.sort(Comparator.comparingLong(interval -> interval[0]));
            long[] starts = new long[intervals.size()];
            long[] ends = new long[intervals.size()];
            int merged = -1;
            for (long[] interval : intervals) {
                if (merged >= 0 && interval[0] <= ends[merged]) {
                    ends[merged] = Math.max(ends[merged], interval[1]);
                } else {
                    merged++;
                    starts[merged] = interval[0];
                    ends[merged] = interval[1];
                }
            }
            int count = merged + 1;
            long[] lengthBefore = new long[count];
            for (int i = 1; i < count; i++) {
                lengthBefore[i] = lengthBefore[i - 1] + ends[i - 1] - starts[i - 1];
            }
            return new Union(Arrays.copyOf(starts, count), Arrays.copyOf(ends, count), lengthBefore);
        }

        /** The length of the union before {@code micros}. */
        long before(long micros) {
            int found = Arrays.binarySearch(starts, micros);
            // The last interval starting at or before micros, or -1.
            int last = found >= 0 ? found : -found - 2;
            return last < 0 ? 0 : lengthBefore[last] + Math.min(micros, ends[last]) - starts[last];
        }
    }
}
