package io.fastleader.benchmarks.leadermove;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.fastleader.benchmarks.driver.RecordTimes;
import io.fastleader.clients.producer.ProducerSettings;

/**
 * One variant's {@code ClientDriver} in a child JVM: started, awaited until ready, relayed line by
 * line with the variant's label in front, and stopped for its result.
 */
final class DriverProcess implements AutoCloseable {

    private static final String DRIVER = "io.fastleader.benchmarks.driver.ClientDriver";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration REQUESTS_TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Variant variant;
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private final BlockingQueue<String> requestCounts = new LinkedBlockingQueue<>();
    private final Writer commands;
    private final Path recordsFile;

    private DriverProcess(Variant variant, Process process, Path recordsFile) {
        this.variant = variant;
        this.process = process;
        this.recordsFile = recordsFile;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread relay = new Thread(this::relay, "relay-" + variant.label());
        relay.setDaemon(true);
        relay.start();
    }

    /**
     * Starts {@code variant}'s driver against {@code topic} on the cluster {@code connection} reaches
     * (bootstrap servers and security settings); {@link #awaitReady} says when its consumer is in position.
     */
    static DriverProcess launch(Variant variant, LeaderMoveOptions options, Map<String, Object> connection, String topic)
            throws Exception {
        Path recordsFile = Files.createTempFile("leader-move-" + variant.label() + "-", ".records");
        recordsFile.toFile().deleteOnExit();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m", "-cp", variant.classpath(), DRIVER,
            "--label", variant.label(), "--connection", connectionFile(variant, connection).toString(), "--topic", topic,
            "--acks", options.acks(),
            "--partitions", String.valueOf(options.partitions()), "--rate", String.valueOf(options.rate()),
            "--record-size", String.valueOf(options.recordSize()),
            "--producer-class", variant.producerClass(), "--consumer-class", variant.consumerClass(),
            "--requests-from", variant.requestsFrom(options.countKafkaClientRequests()),
            "--records-file", recordsFile.toString()));
        Map<String, String> clientConfig = new TreeMap<>(variant.clientConfig());
        if (variant.isFastLeader()) {
            clientConfig.put(ProducerSettings.SLOW_BATCH_LOG_MS, String.valueOf(options.slowBatchMillis()));
            clientConfig.putAll(options.fastleaderConfigs());
        }
        if (!clientConfig.isEmpty()) {
            command.addAll(List.of("--client-config", clientConfig.entrySet().stream()
                .map(setting -> setting.getKey() + "=" + setting.getValue()).collect(Collectors.joining(","))));
        }
        return new DriverProcess(variant, new ProcessBuilder(command).redirectErrorStream(true).start(), recordsFile);
    }

    /**
     * The connection settings as a properties file for the driver: a SASL login or a truststore
     * path does not fit on a command line of comma-separated settings.
     */
    private static Path connectionFile(Variant variant, Map<String, Object> connection) throws IOException {
        Properties properties = new Properties();
        connection.forEach((key, value) -> properties.setProperty(key, String.valueOf(value)));
        Path file = Files.createTempFile("leader-move-" + variant.label() + "-", ".properties");
        file.toFile().deleteOnExit();
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, "connection for the " + variant.label() + " driver");
        }
        return file;
    }

    /** Returns once the driver's consumer is in position. */
    void awaitReady() throws InterruptedException {
        if (!ready.await(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || result.isCompletedExceptionally()) {
            throw new IllegalStateException(variant.label() + " did not get ready within " + READY_TIMEOUT);
        }
    }

    private void relay() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.equals("READY")) {
                    ready.countDown();
                } else if (line.startsWith("REQUESTS ")) {
                    requestCounts.add(line.substring("REQUESTS ".length()));
                } else if (line.startsWith("RESULT ")) {
                    result.complete(line.substring("RESULT ".length()));
                } else {
                    System.out.printf("[%s] %s%n", variant.label(), line);
                }
            }
            int exit = process.waitFor();
            result.completeExceptionally(new IllegalStateException(variant.label() + " ended without a result (exit " + exit + ")"));
        } catch (IOException e) {
            result.completeExceptionally(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.completeExceptionally(e);
        } finally {
            ready.countDown();
        }
    }

    /** Tells the driver to start sending. */
    void start() throws IOException {
        command("start");
    }

    /** Tells the driver that the warm-up is over: the records it sends from now on count in the percentiles. */
    void measure() throws IOException {
        command("measure");
    }

    /** The requests the variant's clients have sent so far, by API. */
    Map<String, Long> requests() throws IOException, InterruptedException {
        command("requests");
        String counts = requestCounts.poll(REQUESTS_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (counts == null) {
            throw new IllegalStateException(variant.label() + " did not tell its request counts within " + REQUESTS_TIMEOUT);
        }
        Map<String, Long> byApi = new TreeMap<>();
        JSON.readTree(counts).fields().forEachRemaining(e -> byApi.put(e.getKey(), e.getValue().asLong()));
        return byApi;
    }

    /** Tells the driver to stop; its result comes with {@link #result()}. */
    void stop() throws IOException {
        command("stop");
    }

    private void command(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    /** The driver's result, as JSON, once it stopped. */
    String result() throws Exception {
        try {
            return result.get(RESULT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(variant.label() + " gave no result within " + RESULT_TIMEOUT, e);
        }
    }

    /** Every measured record's partition, send and acknowledgement times, complete once {@link #result()} returned. */
    List<RecordTimes.Record> recordTimes() throws IOException {
        return RecordTimes.read(recordsFile);
    }

    /** The client id of the variant's producer, as the brokers log it. */
    String producerClientId() {
        return variant.label() + "-producer";
    }

    Variant variant() {
        return variant;
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            Files.deleteIfExists(recordsFile);
        } catch (IOException e) {
            System.out.println(variant.label() + ": could not delete " + recordsFile + ": " + e.getMessage());
        }
    }
}
