package io.fastleader.it.soak;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.Consumer;

import io.fastleader.it.cluster.ChildMain;
import io.fastleader.it.parity.Flavour;

/**
 * A soak group's member in a JVM of its own, so that the soak can kill it as a process dies: no
 * leave, no last commit, sockets dropped by the operating system. The child writes a line
 * {@code consumed <partition> <offset>} per record consumed, flushed before each commit, so every
 * record whose offset it committed has reached the parent; the parent hands them to its group.
 * Other lines on its standard output (a client's log) are skipped.
 */
final class ConsumerProcess {

    private static final String CONSUMED = "consumed ";
    private static final String FAILED = "failed ";

    private final Process process;
    private final Thread reader;

    private ConsumerProcess(Process process, GroupMemberLoop.Sink sink, java.util.function.Consumer<String> onFailure, String name) {
        this.process = process;
        this.reader = new Thread(() -> read(sink, onFailure), "soak-process-reader-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child JVM whose {@code flavour} consumer subscribes to {@code topic} with {@code config};
     * {@code onFailure} is told of an exception that ended its consumer's loop.
     */
    static ConsumerProcess start(String name, Flavour flavour, Map<String, Object> config, String topic, GroupMemberLoop.Sink sink,
                                 java.util.function.Consumer<String> onFailure) {
        List<String> command = ChildMain.command(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), ConsumerProcess.class,
            List.of(flavour.name(), topic), config);
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return new ConsumerProcess(process, sink, onFailure, name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the consumer process " + name, e);
        }
    }

    private void read(GroupMemberLoop.Sink sink, java.util.function.Consumer<String> onFailure) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith(FAILED)) {
                    onFailure.accept(line.substring(FAILED.length()));
                }
                if (!line.startsWith(CONSUMED)) {
                    continue;
                }
                String[] record = line.substring(CONSUMED.length()).split(" ");
                sink.consumed(Integer.parseInt(record[0]), Long.parseLong(record[1]));
            }
        } catch (IOException killed) {
            // The process is gone; what it wrote before is read.
        }
    }

    /** Kills the process (SIGKILL) and returns once it is gone and its last line is read. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        reader.join(TimeUnit.SECONDS.toMillis(30));
    }

    /**
     * The child: {@code flavour topic key=value...}; consumes until killed, or until its parent is
     * gone. An exception that ends the loop is written as a {@code failed} line, after every record
     * consumed before it.
     */
    public static void main(String[] args) throws IOException {
        ClientPriority.lowerThisProcess();
        Map<String, Object> config = ChildMain.settings(Arrays.asList(args).subList(2, args.length));
        ChildMain.haltWhenParentGone();
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        try (Consumer<String, String> consumer = Flavour.valueOf(args[0]).consumer(config)) {
            runLoggingFailure(consumer, args[1], out);
        }
    }

    private static void runLoggingFailure(Consumer<String, String> consumer, String topic, BufferedWriter out) throws IOException {
        try {
            GroupMemberLoop.run(consumer, topic, new GroupMemberLoop.Sink() {
                @Override
                public void consumed(int partition, long offset) {
                    try {
                        out.write(CONSUMED + partition + " " + offset + "\n");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                @Override
                public void beforeCommit() {
                    try {
                        out.flush();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }, () -> true);
        } catch (RuntimeException e) {
            out.write(FAILED + e.toString().replace('\n', ' ') + "\n");
            out.flush();
            throw e;
        }
    }
}
