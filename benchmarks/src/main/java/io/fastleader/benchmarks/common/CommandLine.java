package io.fastleader.benchmarks.common;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A benchmark's command line: {@code --name value} pairs, read one option at a time with its
 * default, and {@code --help}. Every option must be read: {@link #done()} refuses what is left.
 */
public final class CommandLine {

    private final Map<String, String> unread;

    private CommandLine(Map<String, String> given) {
        this.unread = given;
    }

    /**
     * Parses {@code args} with {@code reader}; prints {@code help} for {@code --help}, and the
     * problem for a bad argument, then exits with 2.
     *
     * @return the options, or null after printing {@code help} (the caller then returns)
     */
    public static <T> T parseOrExit(String[] args, String help, Function<CommandLine, T> reader) {
        try {
            CommandLine line = parse(args);
            if (line == null) {
                System.out.print(help);
                return null;
            }
            T options = reader.apply(line);
            line.done();
            return options;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return null;
        }
    }

    /**
     * Splits {@code args} into options.
     *
     * @return the options, or null if {@code --help} was asked for
     * @throws IllegalArgumentException for anything but {@code --option value} pairs
     */
    public static CommandLine parse(String... args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--help") || name.equals("-h")) {
                return null;
            }
            if (!name.startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --option value, got '" + name + "' (see --help)");
            }
            given.put(name, args[++i]);
        }
        return new CommandLine(given);
    }

    /** The whole number given for {@code name} (at least 0), or {@code defaultValue}. */
    public int integer(String name, int defaultValue) {
        String value = unread.remove(name);
        return value == null ? defaultValue : parseWhole(name, value, value, "a whole number >= 0");
    }

    private static int parseWhole(String name, String given, String number, String expected) {
        try {
            int parsed = Integer.parseInt(number);
            if (parsed < 0) {
                throw new NumberFormatException();
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " " + given + ": expected " + expected, e);
        }
    }

    /**
     * The whole numbers (each at least 0) given for {@code name} as {@code a,b,c}, in the order
     * given, or {@code defaultValues}. A number given twice is refused, since each value names one
     * run of what the option varies.
     */
    public List<Integer> integers(String name, List<Integer> defaultValues) {
        String value = unread.remove(name);
        if (value == null) {
            return List.copyOf(defaultValues);
        }
        List<Integer> parsed = new ArrayList<>();
        for (String number : value.split(",", -1)) {
            int each = parseWhole(name, value, number.trim(), "a list of whole numbers >= 0, e.g. 0,5,20");
            if (parsed.contains(each)) {
                throw new IllegalArgumentException(name + " " + value + ": " + each + " is given twice");
            }
            parsed.add(each);
        }
        return List.copyOf(parsed);
    }

    /** {@link #integer} as seconds. */
    public Duration seconds(String name, int defaultSeconds) {
        return Duration.ofSeconds(integer(name, defaultSeconds));
    }

    /** The text given for {@code name}, or {@code defaultValue}. */
    public String string(String name, String defaultValue) {
        String value = unread.remove(name);
        return value == null ? defaultValue : value;
    }

    /** The settings given for {@code name} as {@code key=value,key=value}, in order; none if not given. */
    public Map<String, String> settings(String name) {
        String value = unread.remove(name);
        Map<String, String> settings = new LinkedHashMap<>();
        if (value == null) {
            return settings;
        }
        for (String setting : value.split(",")) {
            if (setting.isBlank()) {
                continue;
            }
            int equals = setting.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException(name + " " + value + ": expected key=value,key=value");
            }
            settings.put(setting.substring(0, equals).trim(), setting.substring(equals + 1).trim());
        }
        return settings;
    }

    /** Whether {@code name} is {@code on} or {@code off}, or {@code defaultValue}. */
    public boolean onOff(String name, boolean defaultValue) {
        String value = unread.remove(name);
        if (value == null) {
            return defaultValue;
        }
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(name + " " + value + ": expected on or off");
        };
    }

    /** The path given for {@code name}, or {@code defaultValue}. */
    public Path path(String name, String defaultValue) {
        return Path.of(string(name, defaultValue));
    }

    /** @throws IllegalArgumentException if an option was given that nobody read */
    public void done() {
        if (!unread.isEmpty()) {
            throw new IllegalArgumentException("unknown option " + unread.keySet().iterator().next() + " (see --help)");
        }
    }

    /** @throws IllegalArgumentException naming the option unless {@code value} is at least 1 */
    public static void requirePositive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " " + value + ": expected at least 1");
        }
    }
}
