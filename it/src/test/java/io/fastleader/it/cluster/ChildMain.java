package io.fastleader.it.cluster;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the main of a test's child JVM (a client a test kills as a process dies) does first. */
public final class ChildMain {

    private ChildMain() {
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
