package io.fastleader.benchmarks.steady;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.fastleader.benchmarks.leadermove.Variant;

/**
 * One turn's driver in a child JVM of its own, on the variant's classpath (as the leader-move
 * benchmark starts its drivers): {@code SteadyDriver} for a producer cell, {@code ConsumeDriver}
 * for a consume cell. Started, relayed line by line with the variant's label in front, and
 * awaited for its {@code RESULT}. {@link #close} returns only once the JVM has ended, so that no
 * turn shares the cores with the one before.
 */
final class ClientJvm implements AutoCloseable {

    private static final String PRODUCE_DRIVER = "io.fastleader.benchmarks.driver.SteadyDriver";
    private static final String CONSUME_DRIVER = "io.fastleader.benchmarks.driver.ConsumeDriver";
    /**
     * Beyond warm-up and window: the JVM's start, the client's first metadata, and a producer's
     * flush of the records still in flight, which {@code delivery.timeout.ms} (120 s) bounds.
     */
    private static final Duration RESULT_MARGIN = Duration.ofSeconds(180);
    /** The JVM's end after the result; the driver bounds the client's close at 10 s. */
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String label;
    private final Process process;
    private final CompletableFuture<String> result = new CompletableFuture<>();

    private ClientJvm(String label, Process process) {
        this.label = label;
        this.process = process;
        Thread relay = new Thread(this::relay, "relay-" + label);
        relay.setDaemon(true);
        relay.start();
    }

    /** Starts {@code variant}'s driver for one turn of {@code cell} on {@code topic}. */
    static ClientJvm start(Variant variant, Cell cell, String topic, String bootstrap, SteadyOptions options) throws IOException {
        boolean consume = cell.mode() == Cell.Mode.CONSUME;
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options.clientJvmOptions());
        command.addAll(List.of("-cp", variant.classpath(), consume ? CONSUME_DRIVER : PRODUCE_DRIVER,
            "--label", variant.label(), "--bootstrap", bootstrap, "--topic", topic, "--record-bytes", String.valueOf(cell.recordBytes()),
            "--warmup-s", String.valueOf(options.warmUp().toSeconds()), "--window-s", String.valueOf(options.window().toSeconds())));
        command.addAll(consume
            ? List.of("--consumer-class", variant.consumerClass(), "--fetch-min-bytes", String.valueOf(cell.fetchMinBytes()),
                "--max-poll-records", String.valueOf(cell.maxPollRecords()))
            : List.of("--producer-class", variant.producerClass(), "--linger-ms", String.valueOf(cell.lingerMs()),
                "--max-in-flight", String.valueOf(cell.maxInFlight()), "--compression", cell.compression(),
                "--rate", String.valueOf(cell.rate())));
        if (!variant.clientConfig().isEmpty()) {
            command.addAll(List.of("--client-config", variant.clientConfig().entrySet().stream()
                .map(setting -> setting.getKey() + "=" + setting.getValue()).collect(Collectors.joining(","))));
        }
        return new ClientJvm(variant.label(), new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void relay() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith("RESULT ")) {
                    result.complete(line.substring("RESULT ".length()));
                } else {
                    System.out.printf("  [%s] %s%n", label, line);
                }
            }
            result.completeExceptionally(new IllegalStateException(label + "'s JVM ended without a result (exit " + process.waitFor() + ")"));
        } catch (IOException e) {
            result.completeExceptionally(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.completeExceptionally(e);
        }
    }

    /**
     * The figures of the driver's window, once it printed them.
     *
     * @throws IllegalStateException if the JVM ended without them, or gave none in time
     */
    Turn.Figures figures(SteadyOptions options) throws IOException, InterruptedException {
        Duration timeout = options.warmUp().plus(options.window()).plus(RESULT_MARGIN);
        try {
            return JSON.readValue(result.get(timeout.toSeconds(), TimeUnit.SECONDS), Turn.Figures.class);
        } catch (TimeoutException e) {
            throw new IllegalStateException(label + " gave no result within " + timeout.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** Waits for the JVM to end by itself, and ends it if it does not; returns once it has ended. */
    @Override
    public void close() {
        try {
            if (!process.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                System.out.printf("  [%s] did not end within %d s after its turn: killed%n", label, EXIT_TIMEOUT.toSeconds());
            }
        } catch (InterruptedException e) {
            // the run is being stopped: the JVM is ended below all the same
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly().onExit().join();
    }
}
