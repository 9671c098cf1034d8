package io.fastleader.it.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a lane's verdict found, workload by workload: the figures the report prints side by side,
 * and the failures among what was checked, each naming its workload.
 */
final class Findings {

    private final Map<String, Map<String, String>> figures = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    /** A figure of {@code workload}'s, shown in the report. */
    synchronized void figure(String workload, String name, Object value) {
        figures.computeIfAbsent(workload, w -> new LinkedHashMap<>()).put(name, String.valueOf(value));
    }

    /** Something checked that did not hold. */
    synchronized void failure(String workload, String what) {
        failures.add(workload + ": " + what);
    }

    /** Checks {@code holds}, a failure described by {@code what} where it does not. */
    void check(String workload, boolean holds, String what) {
        if (!holds) {
            failure(workload, what);
        }
    }

    synchronized Map<String, Map<String, String>> figures() {
        Map<String, Map<String, String>> copy = new LinkedHashMap<>();
        figures.forEach((workload, named) -> copy.put(workload, new LinkedHashMap<>(named)));
        return copy;
    }

    synchronized List<String> failures() {
        return List.copyOf(failures);
    }
}
