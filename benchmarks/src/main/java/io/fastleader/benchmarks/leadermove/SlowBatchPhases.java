package io.fastleader.benchmarks.leadermove;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fastleader.clients.producer.BatchPhase;

/**
 * Where fastleader's slowest batches waited, summed by phase over their log lines
 * ({@code Slow batch t-3 (1 records) took 812 ms: queued 1 ms, in-flight node 1 epoch 5 12 ms
 * NOT_LEADER_OR_FOLLOWER, metadata 280 ms, ...}).
 */
final class SlowBatchPhases {

    /** The phases fastleader's producer names, in the order a batch usually meets them. */
    static final List<String> PHASES = Arrays.stream(BatchPhase.values()).map(BatchPhase::label).toList();
    private static final Pattern PHASE = Pattern.compile("(?:^|, |: )(" + String.join("|", PHASES) + ")(?: node -?\\d+)?(?: epoch -?\\d+)? (\\d+) ms");

    private SlowBatchPhases() {
    }

    /** Milliseconds spent in each phase over every line, every phase listed. */
    static Map<String, Long> totals(List<String> lines) {
        Map<String, Long> totals = new LinkedHashMap<>();
        PHASES.forEach(phase -> totals.put(phase, 0L));
        for (String line : lines) {
            Matcher phase = PHASE.matcher(line);
            while (phase.find()) {
                totals.merge(phase.group(1), Long.parseLong(phase.group(2)), Long::sum);
            }
        }
        return totals;
    }
}
