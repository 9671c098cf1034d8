package io.fastleader.clients.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.protocol.Readable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kafka-clients releases fastleader runs beside, checked when a producer or consumer is built.
 *
 * <p>fastleader takes kafka-clients' public API types from the application's classpath, and uses
 * some of its internals too: the runtime of the generated protocol messages, the record-batch and
 * compression classes. Kafka moves those between minor releases. The {@code fastleader-clients}
 * artifact carries them relocated, from the release it is built with, so it runs beside every
 * release its link check and smoke test pass on ({@value #OLDEST_LINE} to {@value #NEWEST_LINE},
 * {@code clients/shaded}). The unshaded build, which the integration tests and benchmarks use,
 * takes them from the classpath and runs only beside the line it is compiled against. Refusing any
 * other release at construction says what to pin instead of failing later with a
 * {@code NoClassDefFoundError}.
 */
public final class KafkaClientsRange {

    /** The oldest kafka-clients minor line the {@code fastleader-clients} artifact runs beside. */
    public static final String OLDEST_LINE = "3.7";
    /** The newest kafka-clients minor line the {@code fastleader-clients} artifact runs beside. */
    public static final String NEWEST_LINE = "4.4";
    /** The kafka-clients minor line fastleader is compiled against: all the unshaded build runs beside. */
    public static final String COMPILED_LINE = "4.3";

    private static final Logger LOG = LoggerFactory.getLogger(KafkaClientsRange.class);
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)\\.");
    /** Where every kafka-clients jar keeps its version; {@code AppInfoParser}, which reads it, moved in 4.4. */
    private static final String VERSION_RESOURCE = "/kafka/kafka-version.properties";
    /** The shade plugin rewrites this class literal with the rest of the relocated internals. */
    private static final boolean INTERNALS_RELOCATED = !Readable.class.getName().startsWith("org.apache.kafka.");

    private KafkaClientsRange() {
    }

    /**
     * Refuses a kafka-clients release on the classpath that this build of fastleader does not run beside.
     *
     * @throws KafkaException naming the version found and the range supported
     */
    public static void requireSupported() {
        requireSupported(onClasspath(), INTERNALS_RELOCATED);
    }

    /**
     * The version the classpath's first {@code kafka/kafka-version.properties} gives, or
     * {@code unknown}: in an application, its kafka-clients jar's (Kafka's broker jars carry one
     * too, with their own release).
     */
    public static String onClasspath() {
        try (InputStream in = KafkaException.class.getResourceAsStream(VERSION_RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown").trim();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + VERSION_RESOURCE, e);
        }
    }

    /**
     * Refuses {@code found} unless it is in the range of a build whose internals are relocated
     * ({@code relocated}), or of the unshaded build.
     */
    static void requireSupported(String found, boolean relocated) {
        String oldest = relocated ? OLDEST_LINE : COMPILED_LINE;
        String newest = relocated ? NEWEST_LINE : COMPILED_LINE;
        String range = oldest.equals(newest) ? oldest + ".x" : oldest + " to " + newest;
        Matcher line = MAJOR_MINOR.matcher(found);
        if (!line.find()) {
            // A repackaged kafka-clients can lose kafka-version.properties ("unknown"): let it try, loudly.
            LOG.warn("Cannot tell which kafka-clients release is on the classpath (it reports version '{}'); "
                    + "fastleader needs kafka-clients {}", found, range);
            return;
        }
        int release = lineNumber(line.group(1), line.group(2));
        if (release < lineNumber(oldest) || release > lineNumber(newest)) {
            String advice = relocated ? "" : " The fastleader-clients artifact carries them and runs beside kafka-clients "
                    + OLDEST_LINE + " to " + NEWEST_LINE + ".";
            throw new KafkaException("fastleader needs kafka-clients " + range + " on the classpath, found " + found
                    + ": it uses kafka-clients' protocol and record-batch classes, which move between minor releases."
                    + advice + " Pin org.apache.kafka:kafka-clients to a release from " + oldest + ".0 to " + newest + ".x.");
        }
    }

    private static int lineNumber(String line) {
        String[] parts = line.split("\\.");
        return lineNumber(parts[0], parts[1]);
    }

    /** A minor line as one comparable number: 3.7 is 3007. */
    private static int lineNumber(String major, String minor) {
        return Integer.parseInt(major) * 1000 + Integer.parseInt(minor);
    }
}
