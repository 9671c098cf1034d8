package io.fastleader.benchmarks.driver;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The command line the benchmarks give their drivers ({@link SteadyDriver}, {@link ConsumeDriver},
 * the leader-move {@link ClientDriver}'s {@link DriverOptions}): {@code --name value} pairs, read by name.
 */
final class DriverArguments {

    private final Map<String, String> given = new HashMap<>();

    private DriverArguments(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            given.put(args[i], args[i + 1]);
        }
    }

    /** The pairs of {@code args}. */
    static DriverArguments of(String[] args) {
        return new DriverArguments(args);
    }

    /**
     * The value of {@code name}.
     *
     * @throws IllegalArgumentException if it was not given
     */
    String required(String name) {
        String value = given.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

    /** The value of {@code name}, or null if it was not given. */
    String optional(String name) {
        return given.get(name);
    }

    /** The whole number given for {@code name}, which is required. */
    int number(String name) {
        return Integer.parseInt(required(name));
    }

    /** The seconds given for {@code name}, which is required. */
    Duration seconds(String name) {
        return Duration.ofSeconds(number(name));
    }

    /** Further client settings, from {@code --client-config k=v,k=v}; none if not given. */
    Map<String, Object> clientConfig() {
        Map<String, Object> clientConfig = new HashMap<>();
        for (String setting : given.getOrDefault("--client-config", "").split(",")) {
            int eq = setting.indexOf('=');
            if (eq > 0) {
                clientConfig.put(setting.substring(0, eq), setting.substring(eq + 1));
            }
        }
        return clientConfig;
    }
}
