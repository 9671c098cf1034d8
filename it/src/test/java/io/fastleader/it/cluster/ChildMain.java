package io.fastleader.it.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the main of a test's child JVM (a client a test kills as a process dies) does first. */
public final class ChildMain {

    private ChildMain() {
    }

    /**
     * The command line of a child JVM on this test's class path: {@code java}, {@code jvmOptions},
     * {@code main}'s class, {@code arguments}, then {@code settings} as {@code key=value} arguments
     * for {@link #settings}.
     */
    public static List<String> command(List<String> jvmOptions, Class<?> main, List<String> arguments, Map<String, Object> settings) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        // Under surefire java.class.path is only the booter jar; the test class path is here.
        command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        command.add(main.getName());
        command.addAll(arguments);
        settings.forEach((key, value) -> command.add(key + "=" + value));
        return command;
    }

    /** Client settings from {@code key=value} arguments. */
    public static Map<String, Object> settings(List<String> arguments) {
        Map<String, Object> settings = new HashMap<>();
        for (String setting : arguments) {
            int equals = setting.indexOf('=');
            settings.put(setting.substring(0, equals), setting.substring(equals + 1));
        }
        return settings;
    }

    /**
     * Halts this JVM once its parent is gone, which closes its standard input: no child outlives a
     * test JVM that died without killing it.
     */
    public static void haltWhenParentGone() {
        Thread orphanWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // Nothing is sent; end of input means the parent is gone.
                }
            } catch (IOException gone) {
                // As gone.
            }
            Runtime.getRuntime().halt(1);
        }, "orphan-watch");
        orphanWatch.setDaemon(true);
        orphanWatch.start();
    }
}
