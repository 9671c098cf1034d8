package io.fastleader.benchmarks.driver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Halts a steady benchmark driver's JVM when its standard input ends: the benchmark that started
 * it is gone, and no driver may outlive it.
 */
final class InputWatch {

    private InputWatch() {
    }

    /** Starts the watch, a daemon thread. */
    static void start() {
        Thread watch = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                while (in.readLine() != null) {
                    // nothing is said on standard input: only its end counts
                }
            } catch (IOException e) {
                // a broken pipe is an end too
            }
            System.err.println("standard input ended: the benchmark is gone");
            Runtime.getRuntime().halt(3);
        }, "steady-input-watch");
        watch.setDaemon(true);
        watch.start();
    }
}
