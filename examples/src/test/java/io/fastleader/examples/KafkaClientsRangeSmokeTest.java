package io.fastleader.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QuickStart} in a child JVM whose classpath is this test's with another kafka-clients jar
 * in place of the one fastleader is compiled against, as in an application that pins its own
 * kafka-clients; the broker is a real one in this JVM. The jars are chosen in the pom
 * ({@code kafka.clients.version}, {@code kafka.clients.unsupported.version}).
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaClientsRangeSmokeTest {

    private static final String COMPILED_AGAINST = System.getProperty("fastleader.examples.kafka-clients.compiled");

    @TempDir
    Path work;

    @Test
    void testProducesAndConsumesBesideAnotherReleaseOfTheSupportedLine(@Cluster(brokers = 1) KafkaTestCluster cluster)
            throws Exception {
        Path jar = jar("fastleader.examples.kafka-clients.supported");

        Run run = quickStartWith(jar, cluster.bootstrapServers());

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
            .contains("fastleader beside kafka-clients " + releaseOf(jar))
            .contains("consumed 100 of 100 records");
    }

    @Test
    void testRefusesAReleaseOutsideTheSupportedLineWhenTheProducerIsBuilt(@Cluster(brokers = 1) KafkaTestCluster cluster)
            throws Exception {
        Path jar = jar("fastleader.examples.kafka-clients.unsupported");

        Run run = quickStartWith(jar, cluster.bootstrapServers());

        assertThat(run.exitCode()).as(run.output()).isNotZero();
        assertThat(run.output())
            .contains("fastleader beside kafka-clients " + releaseOf(jar))
            .contains("at io.fastleader.examples.QuickStart.run")
            .contains("org.apache.kafka.common.KafkaException: fastleader needs kafka-clients 4.3.x on the classpath, found "
                + releaseOf(jar) + ":")
            .doesNotContain("NoClassDefFoundError")
            .doesNotContain("produced 100 records");
    }

    private record Run(int exitCode, String output) {
    }

    private Run quickStartWith(Path kafkaClientsJar, String bootstrapServers) throws IOException, InterruptedException {
        Path output = work.resolve("quickstart.out");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpathWith(kafkaClientsJar), QuickStart.class.getName(), bootstrapServers)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
        if (!child.waitFor(2, TimeUnit.MINUTES)) {
            child.destroyForcibly();
            throw new AssertionError("QuickStart did not end within 2 minutes:\n" + Files.readString(output));
        }
        return new Run(child.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    /** This test's classpath with {@code kafkaClientsJar} in place of the kafka-clients jar fastleader is compiled against. */
    private static String classpathWith(Path kafkaClientsJar) {
        String compiledJar = "kafka-clients-" + COMPILED_AGAINST + ".jar";
        List<String> entries = Arrays.asList(System.getProperty("surefire.test.class.path").split(File.pathSeparator));
        assertThat(entries).as("the test classpath").anyMatch(entry -> entry.endsWith(compiledJar));
        return entries.stream()
            .map(entry -> entry.endsWith(compiledJar) ? kafkaClientsJar.toString() : entry)
            .collect(Collectors.joining(File.pathSeparator));
    }

    private static Path jar(String property) {
        Path jar = Path.of(System.getProperty(property));
        assertThat(jar).as(property).isRegularFile();
        return jar;
    }

    /** {@code 4.3.0} of {@code .../kafka-clients-4.3.0.jar}. */
    private static String releaseOf(Path jar) {
        String name = jar.getFileName().toString();
        return name.substring("kafka-clients-".length(), name.length() - ".jar".length());
    }
}
