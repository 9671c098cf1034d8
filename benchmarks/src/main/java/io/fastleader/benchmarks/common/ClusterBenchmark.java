package io.fastleader.benchmarks.common;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * What every benchmark against real brokers does around its own work: note the machine and its
 * load, start one 3-broker Apache Kafka cluster in this JVM (loopback only, the {@code it}
 * module's fixtures) with a {@link Disturbances} to move its leaders, stop it afterwards, and
 * write the figures to a JSON file with the load at the end.
 */
public final class ClusterBenchmark {

    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    private ClusterBenchmark() {
    }

    /** The work done against the cluster. */
    @FunctionalInterface
    public interface Work {
        /** Runs against {@code cluster}, moving leaders with {@code disturbances}. */
        void run(KafkaTestCluster cluster, Disturbances disturbances) throws Exception;
    }

    /**
     * The machine as the run starts (start time, processors, JVM, load average), printed in one
     * line; goes into the JSON file as {@code environment}.
     */
    public static Map<String, Object> environment() {
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("started", Instant.now().toString());
        environment.put("processors", Runtime.getRuntime().availableProcessors());
        environment.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
        environment.put("loadAverageAtStart", OS.getSystemLoadAverage());
        System.out.printf("%d processors, load average %.2f; starting the Kafka brokers%n",
            Runtime.getRuntime().availableProcessors(), OS.getSystemLoadAverage());
        return environment;
    }

    /** Starts the cluster, runs {@code work} against it, and stops the cluster. */
    public static void run(Work work) throws Exception {
        run(ClusterSpec.builder().execution(Execution.IN_JVM).build(), work);
    }

    /** {@link #run(Work)} on the cluster {@code spec} describes. */
    public static void run(ClusterSpec spec, Work work) throws Exception {
        try (KafkaTestCluster cluster = spec.start();
             Disturbances disturbances = new Disturbances(cluster)) {
            System.out.println("Kafka " + cluster.kafkaVersion() + " at " + cluster.bootstrapServers());
            work.run(cluster, disturbances);
        }
    }

    /** Writes {@code figures} plus the finish time and the load at the end to {@code file}, and says where. */
    public static void write(Path file, Map<String, Object> figures) throws IOException {
        double loadAtEnd = OS.getSystemLoadAverage();
        Map<String, Object> json = new LinkedHashMap<>(figures);
        json.put("finished", Instant.now().toString());
        json.put("loadAverageAtEnd", loadAtEnd);
        Files.createDirectories(file.toAbsolutePath().getParent());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
        System.out.printf("%nload average at the end %.2f; figures in %s%n", loadAtEnd, file.toAbsolutePath());
    }

    /** "met" or "missed", as the target lines and the JSON say it. */
    public static String verdict(boolean met) {
        return met ? "met" : "missed";
    }
}
