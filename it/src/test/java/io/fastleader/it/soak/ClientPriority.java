package io.fastleader.it.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soak's clients run at a lower scheduling priority than its brokers, as they would on machines
 * of their own. On two shared cores, a restarting broker otherwise waits a minute for CPU behind
 * hundreds of client threads (a graceful restart took 60 to 110 s to be unfenced), and the faults
 * measure the machine, not the clients.
 *
 * <p>Linux gives each thread its own nice value and a new thread its creator's: a thread that
 * lowers itself before it builds the clients lowers every thread they start, while the thread that
 * starts brokers keeps its own. Where {@code renice} is missing (not Linux), everything runs at
 * one priority and the soak says so in its log.
 */
final class ClientPriority {

    private static final Logger LOG = LoggerFactory.getLogger(ClientPriority.class);

    /** The nice value of every client thread: a tenth of a broker thread's share of a busy core. */
    static final int NICENESS = 10;

    private ClientPriority() {
    }

    /** Lowers the calling thread, and so every thread it starts from now on. */
    static void lowerThisThread() {
        try {
            // /proc/thread-self links to /proc/<pid>/task/<tid>.
            renice(List.of(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString()));
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("clients run at the brokers' priority: {}", e.toString());
        }
    }

    /** Lowers every thread of this process: for a client process, at the start of its main. */
    static void lowerThisProcess() {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            renice(tasks.map(task -> task.getFileName().toString()).toList());
        } catch (IOException e) {
            LOG.warn("clients run at the brokers' priority: {}", e.toString());
        }
    }

    private static void renice(List<String> threadIds) throws IOException {
        List<String> command = new ArrayList<>(List.of("renice", "-n", Integer.toString(NICENESS), "-p"));
        command.addAll(threadIds);
        Process renice = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!renice.waitFor(10, TimeUnit.SECONDS) || renice.exitValue() != 0) {
                LOG.warn("clients run at the brokers' priority: {} failed", command);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
