package io.fastleader.it.cluster;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
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
        // Under surefire java.class.path is only the booter jar; the test class path is here.
        return command(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), jvmOptions, main,
            arguments, settings);
    }

    /**
     * The command line of a child JVM on {@code classPath} with this module's test classes after it,
     * for a {@code main} that needs only the JDK, those and what {@code classPath} holds: a client
     * of another kafka-clients release than this JVM's.
     */
    public static List<String> commandBeside(String classPath, List<String> jvmOptions, Class<?> main, List<String> arguments,
                                             Map<String, Object> settings) {
        String testClasses;
        try {
            testClasses = Path.of(ChildMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate this module's test classes", e);
        }
        return command(classPath + File.pathSeparator + testClasses, jvmOptions, main, arguments, settings);
    }

    private static List<String> command(String classPath, List<String> jvmOptions, Class<?> main, List<String> arguments,
                                        Map<String, Object> settings) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
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
