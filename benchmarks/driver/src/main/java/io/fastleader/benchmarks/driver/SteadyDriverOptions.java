package io.fastleader.benchmarks.driver;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * What the steady benchmark tells a {@link SteadyDriver}, as {@code --name value} pairs.
 *
 * @param label         the variant's name, also the producer's client id
 * @param bootstrap     {@code bootstrap.servers} (the benchmark's brokers are PLAINTEXT)
 * @param producerClass a {@code Producer} with a {@code (Map, Serializer, Serializer)} constructor
 * @param topic         the topic of this turn, the driver's alone
 * @param recordBytes   bytes per record value
 * @param lingerMs      {@code linger.ms}
 * @param maxInFlight   {@code max.in.flight.requests.per.connection}
 * @param compression   {@code compression.type}
 * @param rate          records per second, or 0 for as fast as one thread can call {@code send}
 * @param warmUp        sending before the measured window opens
 * @param window        the measured window
 * @param clientConfig  further producer settings, from {@code --client-config k=v,k=v}
 */
record SteadyDriverOptions(String label, String bootstrap, String producerClass, String topic, int recordBytes, int lingerMs,
                           int maxInFlight, String compression, int rate, Duration warmUp, Duration window,
                           Map<String, Object> clientConfig) {

    static SteadyDriverOptions parse(String[] args) {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            given.put(args[i], args[i + 1]);
        }
        Map<String, Object> clientConfig = new HashMap<>();
        for (String setting : given.getOrDefault("--client-config", "").split(",")) {
            int eq = setting.indexOf('=');
            if (eq > 0) {
                clientConfig.put(setting.substring(0, eq), setting.substring(eq + 1));
            }
        }
        return new SteadyDriverOptions(required(given, "--label"), required(given, "--bootstrap"), required(given, "--producer-class"),
            required(given, "--topic"), number(given, "--record-bytes"), number(given, "--linger-ms"), number(given, "--max-in-flight"),
            required(given, "--compression"), number(given, "--rate"), Duration.ofSeconds(number(given, "--warmup-s")),
            Duration.ofSeconds(number(given, "--window-s")), clientConfig);
    }

    private static int number(Map<String, String> given, String name) {
        return Integer.parseInt(required(given, name));
    }

    private static String required(Map<String, String> given, String name) {
        String value = given.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }
}
