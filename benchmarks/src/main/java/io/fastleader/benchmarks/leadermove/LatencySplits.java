package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fastleader.benchmarks.driver.RecordTimes;

/**
 * One variant's measured records, each one's produce latency split into the time a Produce request
 * carrying its partition was at a broker, and the rest, the client's: queued, backing off, waiting
 * for metadata, connecting, and the network both ways. The figure at a rank is the split of the
 * record at that rank (nearest rank, ordered by latency), not a percentile of each part.
 */
final class LatencySplits {

    /** The ranks the report shows, by name, as fractions of the records (1 is the slowest). */
    static final Map<String, Double> RANKS = ranks();
    private static final int SLOWEST_KEPT = 10;

    private final List<Split> byLatency;

    private LatencySplits(List<Split> byLatency) {
        this.byLatency = byLatency;
    }

    /** Splits {@code records} by the time {@code atBrokers} says their partitions' requests were at a broker. */
    static LatencySplits of(List<RecordTimes.Record> records, BrokerTime atBrokers) {
        List<Split> splits = new ArrayList<>(records.size());
        for (RecordTimes.Record record : records) {
            splits.add(new Split(record.partition(), record.sentMicros(), record.latencyMicros(),
                atBrokers.within(record.partition(), record.sentMicros(), record.ackedMicros())));
        }
        splits.sort(Comparator.comparingLong(Split::totalMicros));
        return new LatencySplits(splits);
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
     * @param brokerMicros the part of it a request carrying its partition was at a broker
     */
    record Split(int partition, long sentMicros, long totalMicros, long brokerMicros) {

        long clientMicros() {
            return totalMicros - brokerMicros;
        }

        double totalMs() {
            return totalMicros / 1000.0;
        }

        double brokerMs() {
            return brokerMicros / 1000.0;
        }

        double clientMs() {
            return clientMicros() / 1000.0;
        }
    }
}
