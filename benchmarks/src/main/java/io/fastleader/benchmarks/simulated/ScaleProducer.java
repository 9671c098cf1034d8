package io.fastleader.benchmarks.simulated;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.common.TopicPartition;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fastleader.benchmarks.leadermove.Variant;

/**
 * One variant's {@code ScaleDriver} in a child JVM, on the variant's classpath: started, awaited
 * until its producer is built, asked to write and for its CPU time, and stopped.
 */
final class ScaleProducer implements AutoCloseable {

    private static final String DRIVER = "io.fastleader.benchmarks.driver.ScaleDriver";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** Past the driver's own bound on a write (180 s), so the driver reports what hung. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(240);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String clientId;
    private final Process process;
    private final Writer commands;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    /** What the driver answered to a write. */
    record Written(long[] micros, int failed, String firstError, long cpuNanos) {
    }

    private ScaleProducer(String clientId, Process process) {
        this.clientId = clientId;
        this.process = process;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread relay = new Thread(this::relay, "relay-" + clientId);
        relay.setDaemon(true);
        relay.start();
    }

    /**
     * Starts {@code variant}'s producer against {@code bootstrap}, with client id
     * {@code scale-<label>} and the options' linger and settings, and returns once it is built.
     */
    static ScaleProducer start(Variant variant, String bootstrap, ScaleOptions options) throws IOException, InterruptedException {
        String clientId = "scale-" + variant.label();
        Map<String, String> clientConfig = new TreeMap<>(options.clientConfig());
        clientConfig.putAll(variant.clientConfig());
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx1g",
            // kafka-clients logs two WARN lines per refused partition: every variant logs at ERROR alike
            "-Dfastleader.bench.log.level=ERROR",
            "-cp", variant.classpath(), DRIVER,
            "--label", clientId, "--bootstrap", bootstrap, "--producer-class", variant.producerClass(),
            "--linger-ms", String.valueOf(options.lingerMs())));
        if (!clientConfig.isEmpty()) {
            command.addAll(List.of("--client-config", clientConfig.entrySet().stream()
                .map(setting -> setting.getKey() + "=" + setting.getValue()).collect(Collectors.joining(","))));
        }
        ScaleProducer producer = new ScaleProducer(clientId, new ProcessBuilder(command).redirectErrorStream(true).start());
        if (!producer.ready.await(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || !producer.process.isAlive()) {
            producer.close();
            throw new IllegalStateException(clientId + " did not start within " + READY_TIMEOUT);
        }
        return producer;
    }

    /** The client id its requests carry. */
    String clientId() {
        return clientId;
    }

    private void relay() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.equals("READY")) {
                    ready.countDown();
                } else if (line.startsWith("WRITTEN ") || line.startsWith("CPU ")) {
                    answers.add(line);
                } else {
                    System.out.printf("[%s] %s%n", clientId, line);
                }
            }
        } catch (IOException e) {
            System.out.printf("[%s] output lost: %s%n", clientId, e);
        } finally {
            ready.countDown();
        }
    }

    /**
     * Has the producer send one record to each of {@code partitions} at once, and returns when
     * every one is answered: each acknowledgement's time from the command's arrival.
     */
    Written write(List<TopicPartition> partitions) throws IOException, InterruptedException {
        JsonNode written = JSON.readTree(ask("write " + listing(partitions), "WRITTEN "));
        JsonNode micros = written.get("micros");
        long[] values = new long[micros.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = micros.get(i).asLong();
        }
        return new Written(values, written.get("failed").asInt(), written.get("firstError").asText(), written.get("cpuNanos").asLong());
    }

    /** The child JVM's CPU time so far, in nanoseconds. */
    long cpuNanos() throws IOException, InterruptedException {
        return Long.parseLong(ask("cpu", "CPU "));
    }

    private String ask(String command, String answerPrefix) throws IOException, InterruptedException {
        commands.write(command + "\n");
        commands.flush();
        String answer = answers.poll(ANSWER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (answer == null || !answer.startsWith(answerPrefix)) {
            throw new IllegalStateException(clientId + " answered " + answer + " to " + command.split(" ")[0]);
        }
        return answer.substring(answerPrefix.length());
    }

    /** {@code partitions} as the driver reads them, {@code topic:0,1;other:5}, in the same order. */
    static String listing(List<TopicPartition> partitions) {
        StringBuilder listing = new StringBuilder();
        String topic = null;
        for (TopicPartition partition : partitions) {
            if (!partition.topic().equals(topic)) {
                topic = partition.topic();
                listing.append(listing.length() == 0 ? "" : ";").append(topic).append(':');
            } else {
                listing.append(',');
            }
            listing.append(partition.partition());
        }
        return listing.toString();
    }

    /** Stops the producer; ends its JVM if it does not end by itself. */
    @Override
    public void close() {
        try {
            commands.write("stop\n");
            commands.flush();
            if (process.waitFor(20, TimeUnit.SECONDS)) {
                return;
            }
        } catch (IOException e) {
            // the JVM is gone or going: ended below either way
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
    }
}
