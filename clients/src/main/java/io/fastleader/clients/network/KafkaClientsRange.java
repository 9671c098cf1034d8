package io.fastleader.clients.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kafka-clients releases fastleader runs beside, checked when a producer or consumer is built.
 *
 * <p>fastleader takes kafka-clients' public API types from the application's classpath, and also
 * its internals: the runtime of the generated protocol messages and the record-batch classes.
 * Kafka moves those between minor releases (4.3 moved the record classes to
 * {@code org.apache.kafka.common.record.internal}, 4.4 moved {@code ImplicitLinkedHashCollection}
 * and {@code ByteUtils} to {@code org.apache.kafka.common.utils.internals}), so a kafka-clients jar
 * from another minor line would fail at the first request with a {@code NoClassDefFoundError}.
 * Refusing it at construction says instead what to pin.
 */
public final class KafkaClientsRange {

    /** The kafka-clients minor line fastleader is compiled against and tested with. */
    public static final String SUPPORTED_LINE = "4.3";

    private static final Logger LOG = LoggerFactory.getLogger(KafkaClientsRange.class);
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+\\.\\d+)\\.");
    /** Where every kafka-clients jar keeps its version; {@code AppInfoParser}, which reads it, moved in 4.4. */
    private static final String VERSION_RESOURCE = "/kafka/kafka-version.properties";

    private KafkaClientsRange() {
    }

    /**
     * Refuses a kafka-clients release outside {@value #SUPPORTED_LINE}.x on the classpath.
     *
     * @throws KafkaException naming the version found and the range supported
     */
    public static void requireSupported() {
        requireSupported(onClasspath());
    }

    /** The version of the kafka-clients jar that {@link KafkaException} was loaded from, or {@code unknown}. */
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

    static void requireSupported(String found) {
        Matcher line = MAJOR_MINOR.matcher(found);
        if (!line.find()) {
            // A repackaged kafka-clients can lose kafka-version.properties ("unknown"): let it try, loudly.
            LOG.warn("Cannot tell which kafka-clients release is on the classpath (it reports version '{}'); "
                    + "fastleader needs kafka-clients {}.x", found, SUPPORTED_LINE);
            return;
        }
        if (!line.group(1).equals(SUPPORTED_LINE)) {
            throw new KafkaException("fastleader needs kafka-clients " + SUPPORTED_LINE + ".x on the classpath, found "
                    + found + ": it uses kafka-clients' protocol and record-batch classes, which move between minor "
                    + "releases. Pin org.apache.kafka:kafka-clients to a " + SUPPORTED_LINE + ".x release.");
        }
    }
}
