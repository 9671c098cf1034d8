package io.fastleader.benchmarks.driver;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One producer of the scale benchmark, in a JVM of its own, so that its CPU time is its client's
 * alone. Built by class name ({@code --producer-class}) and used through the kafka-clients API
 * that 3.6 already has, so it runs on any variant's classpath. Client id {@code --label}, acks=all,
 * each client's default idempotence, {@code linger.ms} as given, and {@code --client-config}
 * settings on top.
 *
 * <p>Commands come as lines on standard input; the driver prints {@code READY} once the producer
 * is built. {@code write topic:0,1,2;other:5} sends one record to each partition listed, at once,
 * waits for every answer, and prints {@code WRITTEN} followed by a JSON object: {@code micros},
 * for each partition in the order given, the microseconds from the command's arrival to its
 * acknowledgement (-1 for a failure); {@code failed}, {@code firstError}, and {@code cpuNanos},
 * this JVM's CPU time so far. {@code cpu} prints {@code CPU} and that CPU time. {@code stop} (or
 * the end of input) closes the producer and ends the JVM.
 */
public final class ScaleDriver {

    /** A bound on a write that hangs, never a figure: a record not answered by then counts as failed. */
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(180);
    private static final byte[] VALUE = "scale".getBytes(StandardCharsets.UTF_8);

    private final Producer<byte[], byte[]> producer;

    private ScaleDriver(Producer<byte[], byte[]> producer) {
        this.producer = producer;
    }

    /** Runs one producer; see the class comment for the conversation on standard input and output. */
    public static void main(String[] args) throws Exception {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            given.put(args[i], args[i + 1]);
        }
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, required(given, "--bootstrap"));
        config.put(ProducerConfig.CLIENT_ID_CONFIG, required(given, "--label"));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, Integer.parseInt(required(given, "--linger-ms")));
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) WRITE_TIMEOUT.toMillis() - 10_000);
        for (String setting : given.getOrDefault("--client-config", "").split(",")) {
            int eq = setting.indexOf('=');
            if (eq > 0) {
                config.put(setting.substring(0, eq), setting.substring(eq + 1));
            }
        }
        Serializer<byte[]> serializer = new ByteArraySerializer();
        @SuppressWarnings("unchecked")
        Producer<byte[], byte[]> producer = (Producer<byte[], byte[]>) Class.forName(required(given, "--producer-class"))
            .getConstructor(Map.class, Serializer.class, Serializer.class).newInstance(config, serializer, serializer);
        new ScaleDriver(producer).run();
    }

    private void run() throws Exception {
        System.out.println("READY");
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = commands.readLine()) != null && !command.equals("stop")) {
            long arrived = System.nanoTime();
            if (command.startsWith("write ")) {
                System.out.println("WRITTEN " + write(partitions(command.substring("write ".length())), arrived));
            } else if (command.equals("cpu")) {
                System.out.println("CPU " + processCpuNanos());
            } else {
                System.out.println("unknown command: " + command);
            }
            System.out.flush();
        }
        producer.close(Duration.ofSeconds(10));
    }

    /** {@code topic:0,1,2;other:5} as partitions, in that order. */
    static List<TopicPartition> partitions(String listed) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : listed.split(";")) {
            int colon = topic.indexOf(':');
            String name = topic.substring(0, colon);
            for (String partition : topic.substring(colon + 1).split(",")) {
                partitions.add(new TopicPartition(name, Integer.parseInt(partition)));
            }
        }
        return partitions;
    }

    /** One record to each of {@code partitions}; every acknowledgement timed from {@code arrived}. */
    private String write(List<TopicPartition> partitions, long arrived) throws InterruptedException {
        long[] micros = new long[partitions.size()];
        CountDownLatch answered = new CountDownLatch(partitions.size());
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>("");
        for (int i = 0; i < partitions.size(); i++) {
            int index = i;
            micros[index] = -1;
            TopicPartition tp = partitions.get(i);
            try {
                producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, VALUE), (metadata, e) -> {
                    if (e == null) {
                        micros[index] = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - arrived);
                    } else {
                        failed.incrementAndGet();
                        firstError.compareAndSet("", tp + ": " + e);
                    }
                    answered.countDown();
                });
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                firstError.compareAndSet("", tp + ": " + e);
                answered.countDown();
            }
        }
        if (!answered.await(WRITE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            firstError.compareAndSet("", answered.getCount() + " records not answered within " + WRITE_TIMEOUT);
        }
        StringBuilder json = new StringBuilder("{\"cpuNanos\":").append(processCpuNanos())
            .append(",\"failed\":").append(failed.get() + answered.getCount())
            .append(",\"firstError\":").append(quote(firstError.get()))
            .append(",\"micros\":[");
        // the callbacks' writes happened before their countDown, which happened before await returned
        for (int i = 0; i < micros.length; i++) {
            json.append(i == 0 ? "" : ",").append(micros[i]);
        }
        return json.append("]}").toString();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c >= 0x20) {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    private static String required(Map<String, String> given, String name) {
        String value = given.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }
}
