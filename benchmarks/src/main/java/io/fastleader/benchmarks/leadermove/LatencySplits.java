package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fastleader.benchmarks.driver.RecordTimes;

/**
 * One variant's measured records, each one's produce latency split into the time a Produce request
 * carrying its partition was at a broker, the time the brokers' and relays' JVM stood still outside
 * that, and the rest, the client's: queued, backing off, waiting for metadata, connecting, and the
 * network both ways. The figure at a rank is the split of the
 * record at that rank (nearest rank, ordered by latency), not a percentile of each part. Without
 * the brokers' request log the records are kept unsplit, for the latencies within the moves' windows.
 */
final class LatencySplits {

    /** The ranks the report shows, by name, as fractions of the records (1 is the slowest). */
    static final Map<String, Double> RANKS = ranks();
    private static final int SLOWEST_KEPT = 10;

    private final List<Split> byLatency;
    private final boolean brokerMeasured;

    private LatencySplits(List<Split> byLatency, boolean brokerMeasured) {
        this.byLatency = byLatency;
        this.brokerMeasured = brokerMeasured;
    }

    /**
     * Splits {@code records} by the brokers' request log: {@code served} says when their partitions'
     * requests were being served (read to response), {@code withWaiting} when they were at a broker,
     * waiting unread behind earlier requests on their connection included; {@code pauses} when the
     * JVM the brokers and relays run in stood still ({@link ClusterPauses}), which counts as paused
     * where no request of the record's partition was at a broker. With {@code served} and
     * {@code withWaiting} null (the brokers' log out of reach) every broker part and the paused part
     * are 0 and {@link #brokerMeasured} false.
     */
    static LatencySplits of(List<RecordTimes.Record> records, BrokerTime served, BrokerTime withWaiting, List<long[]> pauses) {
        BrokerTime withWaitingOrPaused = withWaiting == null ? null : withWaiting.orDuring(pauses);
        List<Split> splits = new ArrayList<>(records.size());
        for (RecordTimes.Record record : records) {
            long from = record.sentMicros();
            long to = record.ackedMicros();
            long servedMicros = served == null ? 0 : served.within(record.partition(), from, to);
            long atBrokerMicros = withWaiting == null ? 0 : withWaiting.within(record.partition(), from, to);
            long atBrokerOrPausedMicros = withWaitingOrPaused == null ? 0 : withWaitingOrPaused.within(record.partition(), from, to);
            splits.add(new Split(record.partition(), from, record.latencyMicros(), servedMicros,
                Math.max(0, atBrokerMicros - servedMicros), atBrokerOrPausedMicros - atBrokerMicros));
        }
        splits.sort(Comparator.comparingLong(Split::totalMicros));
        return new LatencySplits(splits, served != null);
    }

    /** {@link #of(List, BrokerTime, BrokerTime, List)} with both broker times from {@code requests}. */
    static LatencySplits of(List<RecordTimes.Record> records, List<BrokerRequestLog.ProduceAtBroker> requests, List<long[]> pauses) {
        return of(records, BrokerTime.served(requests), BrokerTime.withWaiting(requests), pauses);
    }

    /** The records, unsplit: the brokers' request log is out of reach. */
    static LatencySplits unsplit(List<RecordTimes.Record> records) {
        return of(records, null, null, List.of());
    }

    /** Whether the broker parts were measured. */
    boolean brokerMeasured() {
        return brokerMeasured;
    }

    /** The records sent within one of {@code windows}. */
    LatencySplits sentWithin(List<Scenario.Window> windows) {
        return new LatencySplits(byLatency.stream().filter(split -> windows.stream().anyMatch(w -> w.contains(split.sentMicros())))
            .toList(), brokerMeasured);
    }

    /** The split of the record at {@code rank} (0 to 1] of the records by latency, nearest rank; null without records. */
    Split at(double rank) {
        if (byLatency.isEmpty()) {
            return null;
        }
        int index = (int) Math.ceil(rank * byLatency.size()) - 1;
        return byLatency.get(Math.max(0, Math.min(byLatency.size() - 1, index)));
    }

    /** The splits of the slowest records, slowest first. */
    List<Split> slowest() {
        List<Split> slowest = new ArrayList<>(byLatency.subList(Math.max(0, byLatency.size() - SLOWEST_KEPT), byLatency.size()));
        slowest.sort(Comparator.comparingLong(Split::totalMicros).reversed());
        return slowest;
    }

    int records() {
        return byLatency.size();
    }

    private static Map<String, Double> ranks() {
        Map<String, Double> ranks = new LinkedHashMap<>();
        ranks.put("p99", 0.99);
        ranks.put("p99.9", 0.999);
        ranks.put("p99.99", 0.9999);
        ranks.put("max", 1.0);
        return ranks;
    }

    /**
     * One record's produce latency, split.
     *
     * @param partition    its partition
     * @param sentMicros   its send, in epoch microseconds
     * @param totalMicros  send to acknowledgement
     * @param servedMicros the part of it a request carrying its partition was being served at a broker (read to response)
     * @param unreadMicros the further part such a request waited unread at a broker, behind earlier requests on its connection
     * @param pausedMicros the part outside those two during which the brokers' and relays' JVM stood still
     */
    record Split(int partition, long sentMicros, long totalMicros, long servedMicros, long unreadMicros, long pausedMicros) {

        long brokerMicros() {
            return servedMicros + unreadMicros;
        }

        long clientMicros() {
            return totalMicros - brokerMicros() - pausedMicros;
        }

        double pausedMs() {
            return pausedMicros / 1000.0;
        }

        double totalMs() {
            return totalMicros / 1000.0;
        }

        double brokerMs() {
            return brokerMicros() / 1000.0;
        }

        double servedMs() {
            return servedMicros / 1000.0;
        }

        double unreadMs() {
            return unreadMicros / 1000.0;
        }

        double clientMs() {
            return clientMicros() / 1000.0;
        }
    }
}
