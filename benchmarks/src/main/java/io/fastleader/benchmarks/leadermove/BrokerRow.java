package io.fastleader.benchmarks.leadermove;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The brokers' settings one run of the scenario uses, on a fresh cluster: what the operator can
 * change, beside what the clients do.
 */
enum BrokerRow {
    /** The fixtures' settings, with Kafka's defaults for everything they leave alone. */
    DEFAULT(Map.of()),
    /**
     * A follower that finds its leader gone retries after 100 ms instead of Kafka's default
     * 1000 ms, so a new leader's ISR (and acks=all) recovers sooner.
     */
    TUNED(Map.of("replica.fetch.backoff.ms", "100"));

    private final Map<String, String> brokerConfigs;

    BrokerRow(Map<String, String> brokerConfigs) {
        this.brokerConfigs = brokerConfigs;
    }

    /** The row's settings, on top of the fixtures' and {@code --broker-config}'s. */
    Map<String, String> brokerConfigs() {
        return brokerConfigs;
    }

    /** The name in the summary, the JSON and file names. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The row's label and settings, for a header line. */
    String describe() {
        return brokerConfigs.isEmpty() ? label() + " (the brokers' defaults)" : label() + " (" + brokerConfigs.entrySet().stream()
            .map(setting -> setting.getKey() + "=" + setting.getValue()).collect(Collectors.joining(", ")) + ")";
    }

    static BrokerRow ofLabel(String label) {
        return Arrays.stream(values()).filter(row -> row.label().equals(label)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no broker row '" + label + "': expected one of " + labels()));
    }

    static String labels() {
        return Arrays.stream(values()).map(BrokerRow::label).collect(Collectors.joining(","));
    }
}
