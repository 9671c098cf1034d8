package io.fastleader.it.soak;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fastleader.it.parity.Flavour;

/**
 * The soak's report: the faults applied, each workload's figures for both libraries side by side,
 * each workload's longest stall and the fault it fell in, the closes, the resources before and
 * after, and the failures.
 */
final class SoakReport {

    private static final String ROW = "%-44s %-30s %-30s%n";

    private final SoakSettings settings;
    private final String brokerVersion;
    private final String kafkaClientsVersion;
    private final List<ChaosSoak.Applied> applied;
    private final Map<Flavour, Findings> findings;
    private final Map<Flavour, Map<String, Progress.Stall>> stalls;
    private final Closes closes;
    private final Resources before;
    private final Resources after;
    private final List<String> failures;
    private final long startMs;

    SoakReport(SoakSettings settings, String brokerVersion, String kafkaClientsVersion, List<ChaosSoak.Applied> applied,
               Map<Flavour, Findings> findings, Map<Flavour, Map<String, Progress.Stall>> stalls, Closes closes,
               Resources before, Resources after, List<String> failures) {
        this.settings = settings;
        this.brokerVersion = brokerVersion;
        this.kafkaClientsVersion = kafkaClientsVersion;
        this.applied = applied;
        this.findings = findings;
        this.stalls = stalls;
        this.closes = closes;
        this.before = before;
        this.after = after;
        this.failures = failures;
        this.startMs = stalls.values().stream().flatMap(s -> s.values().stream()).mapToLong(Progress.Stall::startedMs)
            .filter(ms -> ms > 0).min().orElse(applied.isEmpty() ? 0 : applied.get(0).startMs());
    }

    String render() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Chaos soak: seed %d, %d s of faults, %d brokers %s in child JVMs (RF 3, min.insync.replicas 2)%n",
            settings.seed(), settings.duration().toSeconds(), ChaosSoak.BROKERS, brokerVersion));
        out.append(String.format("fastleader beside kafka-clients %s, each on topics of its own. Replay: %s%n%n", kafkaClientsVersion, settings.replayCommand()));
        out.append(String.format("Faults applied (%d):%n", applied.size()));
        for (ChaosSoak.Applied fault : applied) {
            out.append(String.format("  %8s  %-22s %s; over in %.1f s, recovered %.1f s later%n", at(fault.startMs()), fault.fault(),
                fault.what(), (fault.endMs() - fault.startMs()) / 1000.0, (fault.recoveredMs() - fault.endMs()) / 1000.0));
        }
        out.append(String.format("%n" + ROW, "workload / figure", "fastleader", "kafka-clients " + kafkaClientsVersion));
        for (String workload : workloads()) {
            out.append(workload).append('\n');
            Set<String> names = new LinkedHashSet<>();
            findings.keySet().forEach(flavour -> names.addAll(figuresOf(flavour, workload).keySet()));
            for (String name : names) {
                out.append(String.format(ROW, "  " + name, figure(Flavour.FASTLEADER, workload, name), figure(Flavour.KAFKA, workload, name)));
            }
            out.append(String.format(ROW, "  longest stall between two steps", stall(Flavour.FASTLEADER, workload), stall(Flavour.KAFKA, workload)));
        }
        List<Closes.Close> all = closes.all();
        out.append(String.format("%nCloses: %d clients closed, the slowest in %d ms, %d late%n", all.size(), closes.slowest().toMillis(),
            all.stream().filter(Closes.Close::late).count()));
        out.append(String.format("This JVM before the workloads: %s; after: %s; thread kinds that grew: %s%n", before, after,
            after.threadGrowth(before)));
        out.append(String.format("%nFailures: %s%n", failures.isEmpty() ? "none" : ""));
        failures.forEach(failure -> out.append("  ").append(failure).append('\n'));
        return out.toString();
    }

    /** The workloads by their name within a lane, in the order the lanes list them. */
    private Set<String> workloads() {
        Set<String> names = new LinkedHashSet<>();
        stalls.forEach((flavour, byWorkload) -> byWorkload.keySet().forEach(name -> names.add(withoutLane(flavour, name))));
        return names;
    }

    private Map<String, String> figuresOf(Flavour flavour, String workload) {
        Findings found = findings.get(flavour);
        return found == null ? Map.of() : found.figures().getOrDefault(Lane.prefix(flavour) + workload, Map.of());
    }

    private String figure(Flavour flavour, String workload, String name) {
        return figuresOf(flavour, workload).getOrDefault(name, "");
    }

    private String stall(Flavour flavour, String workload) {
        Progress.Stall stall = stalls.getOrDefault(flavour, Map.of()).get(Lane.prefix(flavour) + workload);
        if (stall == null || stall.fromMs() < 0) {
            return "no progress";
        }
        return stall.millis() + " ms at " + at(stall.fromMs()) + during(stall);
    }

    /** The fault whose window (start to recovery) the stall overlaps. */
    private String during(Progress.Stall stall) {
        long end = stall.fromMs() + stall.millis();
        return applied.stream().filter(fault -> fault.startMs() <= end && stall.fromMs() <= fault.recoveredMs())
            .map(fault -> " (" + fault.fault() + ")").findFirst().orElse("");
    }

    private String at(long epochMs) {
        long seconds = Math.max(0, (epochMs - startMs) / 1000);
        return String.format("+%d:%02d", seconds / 60, seconds % 60);
    }

    private static String withoutLane(Flavour flavour, String name) {
        String prefix = Lane.prefix(flavour);
        return name.startsWith(prefix) ? name.substring(prefix.length()) : name;
    }
}
