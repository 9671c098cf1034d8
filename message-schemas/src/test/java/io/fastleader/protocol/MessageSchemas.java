package io.fastleader.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

import org.apache.kafka.message.MessageGenerator;
import org.apache.kafka.message.MessageSpec;

/**
 * Our JSON schemas and kafka-clients' own, parsed with the protocol generator's parser, so tests
 * walk exactly the structure the generator compiled.
 */
final class MessageSchemas {

    static final String OUR_PACKAGE = "io.fastleader.protocol.message";
    static final String KAFKA_PACKAGE = "org.apache.kafka.common.message";

    private MessageSchemas() {
    }

    /** Every schema in {@code message-schemas/src/main/schemas}, sorted by name. */
    static List<MessageSpec> ours() {
        Path dir = Paths.get(System.getProperty("fastleader.schemas.dir", "src/main/schemas"));
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".json"))
                .sorted()
                .map(MessageSchemas::parse)
                .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** kafka-clients' schema of the same name, from the copy its jar carries. */
    static MessageSpec kafkas(String name) {
        String resource = "/common/message/" + name + ".json";
        try (InputStream in = MessageSchemas.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("kafka-clients has no schema " + resource);
            }
            return MessageGenerator.JSON_SERDE.readValue(in, MessageSpec.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Class<?> ourClass(MessageSpec spec) {
        return load(OUR_PACKAGE + "." + spec.dataClassName());
    }

    static Class<?> kafkaClass(MessageSpec spec) {
        return load(KAFKA_PACKAGE + "." + spec.dataClassName());
    }

    private static MessageSpec parse(Path file) {
        try {
            return MessageGenerator.JSON_SERDE.readValue(file.toFile(), MessageSpec.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + file, e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("no generated class " + name, e);
        }
    }
}
