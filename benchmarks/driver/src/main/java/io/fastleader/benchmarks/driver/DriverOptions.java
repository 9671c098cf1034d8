package io.fastleader.benchmarks.driver;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What the coordinator tells a {@link ClientDriver}, as {@code --name value} pairs.
 *
 * @param label         the variant's name, also the key of its records
 * @param connection    {@code bootstrap.servers} and security settings, from the properties file {@code --connection}
 * @param topic         the topic all variants share
 * @param partitions    its partition count
 * @param rate          records per second
 * @param recordSize    bytes per record value
 * @param acks          the producer's {@code acks}: all (with idempotence) or 1 (without)
 * @param producerClass a {@code Producer} with a {@code (Map, Serializer, Serializer)} constructor
 * @param consumerClass a {@code Consumer} with a {@code (Map, Deserializer, Deserializer)} constructor
 * @param clientConfig  settings for both clients, from {@code --client-config k=v,k=v}
 * @param requestsFrom  where the per-API request counts come from, {@code --requests-from metrics|log}
 * @param recordsFile   where every measured record's partition, send and acknowledgement times go
 *                      ({@link RecordTimes}), from {@code --records-file}; null for nowhere
 */
record DriverOptions(String label, Map<String, Object> connection, String topic, int partitions, int rate, int recordSize,
                     String acks, String producerClass, String consumerClass, Map<String, Object> clientConfig,
                     SentRequests.Source requestsFrom, Path recordsFile) {

    static DriverOptions parse(String[] args) throws IOException {
        DriverArguments given = DriverArguments.of(args);
        String recordsFile = given.optional("--records-file");
        return new DriverOptions(given.required("--label"), connection(Path.of(given.required("--connection"))),
            given.required("--topic"), given.number("--partitions"), given.number("--rate"), given.number("--record-size"),
            given.required("--acks"), given.required("--producer-class"), given.required("--consumer-class"), given.clientConfig(),
            SentRequests.Source.valueOf(given.required("--requests-from").toUpperCase(Locale.ROOT)),
            recordsFile == null ? null : Path.of(recordsFile));
    }

    private static Map<String, Object> connection(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, Object> connection = new HashMap<>();
        properties.stringPropertyNames().forEach(key -> connection.put(key, properties.getProperty(key)));
        return connection;
    }

}
