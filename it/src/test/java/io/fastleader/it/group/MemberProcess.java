package io.fastleader.it.group;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.it.cluster.ChildMain;

/**
 * A {@link FastLeaderConsumer} group member in a JVM of its own, so that a test can kill it the way
 * a process dies: no leave, no last heartbeat, sockets dropped by the operating system. The child
 * reports its member id and every rebalance callback on its standard output; the parent feeds them
 * to the group's {@link Ownership}.
 */
final class MemberProcess implements AutoCloseable {

    private static final String REPORT = "MEMBER ";

    private final String name;
    private final Process process;
    private final List<String> events = new CopyOnWriteArrayList<>();
    private volatile String memberId;

    private MemberProcess(String name, Process process, String topic, Ownership ownership) {
        this.name = name;
        this.process = process;
        Thread reader = new Thread(() -> read(topic, ownership), "member-process-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a child JVM whose member subscribes to {@code topic} with {@code config}. */
    static MemberProcess start(String name, Map<String, Object> config, String topic, Ownership ownership) throws IOException {
        Process process = new ProcessBuilder(ChildMain.command(List.of(), MemberProcess.class, List.of(topic), config))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        return new MemberProcess(name, process, topic, ownership);
    }

    private void read(String topic, Ownership ownership) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.startsWith(REPORT)) {
                    continue;
                }
                String[] report = line.substring(REPORT.length()).split(" ", 2);
                if (report[0].equals("id")) {
                    memberId = report[1];
                    continue;
                }
                List<TopicPartition> partitions = report.length < 2 || report[1].isEmpty() ? List.of()
                        : Arrays.stream(report[1].split(",")).map(p -> new TopicPartition(topic, Integer.parseInt(p))).toList();
                events.add(report[0] + " " + partitions);
                if (report[0].equals("assigned")) {
                    ownership.assigned(name, partitions);
                } else {
                    ownership.released(name, partitions);
                }
            }
        } catch (IOException killed) {
            // The process is gone.
        }
    }

    String name() {
        return name;
    }

    /** Its member id, once the coordinator gave it one. */
    String memberId() {
        return memberId;
    }

    List<String> events() {
        return events;
    }

    /** Kills the process (SIGKILL) and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /** The child: {@code topic key=value...}; polls until killed, or until its parent closes its standard input. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        Map<String, Object> config = ChildMain.settings(Arrays.asList(args).subList(1, args.length));
        ChildMain.haltWhenParentGone();
        try (FastLeaderConsumer<String, String> consumer = new FastLeaderConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(args[0]), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    report("revoked", partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    out.println(REPORT + "id " + consumer.groupMetadata().memberId());
                    report("assigned", partitions);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    report("lost", partitions);
                }

                private void report(String event, Collection<TopicPartition> partitions) {
                    out.println(REPORT + event + " " + String.join(",", partitions.stream()
                            .map(partition -> Integer.toString(partition.partition())).toList()));
                    out.flush();
                }
            });
            while (true) {
                consumer.poll(Duration.ofMillis(100));
            }
        }
    }
}
