package io.fastleader.it.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import io.fastleader.it.parity.Flavour;
import io.fastleader.it.transactions.CopyPipeline;

/**
 * A Kafka Streams application under {@code exactly_once_v2} that copies a topic to another, each
 * record to {@link CopyPipeline#copy its copy} (value, and the partition and offset it was read
 * at), on the flavour's producer and consumers (Admin is kafka-clients' for both).
 */
final class StreamsCopy {

    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    private final String applicationId;
    private final String input;
    private final KafkaStreams streams;
    private final Path stateDir;
    private final Progress progress = new Progress();
    private final Set<String> threadFailures = ConcurrentHashMap.newKeySet();
    private final AtomicLong threadsReplaced = new AtomicLong();

    StreamsCopy(String applicationId, Flavour flavour, Map<String, Object> clientConfig, String input, String output) {
        this.applicationId = applicationId;
        this.input = input;
        try {
            this.stateDir = Files.createTempDirectory("soak-streams-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // A transaction a second rather than exactly_once_v2's ten: two cores carry the whole soak.
        config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1_000);
        config.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input).processValues(Copier::new).to(output);
        streams = new KafkaStreams(builder.build(), new StreamsConfig(config), new FlavourClientSupplier(flavour));
        streams.setUncaughtExceptionHandler(exception -> {
            threadFailures.add(exception.toString());
            threadsReplaced.incrementAndGet();
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    }

    String applicationId() {
        return applicationId;
    }

    String input() {
        return input;
    }

    Progress progress() {
        return progress;
    }

    void start() {
        progress.begin(System.currentTimeMillis());
        streams.start();
    }

    /** Closes the application, timed against its timeout. */
    void close(Closes closes) {
        closes.close(applicationId, CLOSE_TIMEOUT, timeout -> {
            if (!streams.close(timeout)) {
                throw new IllegalStateException("Kafka Streams did not close within " + timeout);
            }
        });
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stream threads that died and were replaced, with what killed them. */
    void report(Findings findings) {
        findings.figure(applicationId, "stream threads replaced", threadsReplaced.get() == 0 ? "0" : threadsReplaced + " " + threadFailures);
    }

    /** Each record to its copy, stepping the progress. */
    private final class Copier implements FixedKeyProcessor<String, String, String> {
        private FixedKeyProcessorContext<String, String> context;

        @Override
        public void init(FixedKeyProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, String> record) {
            RecordMetadata from = context.recordMetadata().orElseThrow();
            String copy = CopyPipeline.copy(new ConsumerRecord<>(from.topic(), from.partition(), from.offset(), record.key(), record.value()));
            context.forward(record.withValue(copy));
            progress.step(System.currentTimeMillis());
        }
    }

    /** Streams' clients of one flavour, with byte-array serdes as Streams asks; Admin is always kafka-clients'. */
    private record FlavourClientSupplier(Flavour flavour) implements KafkaClientSupplier {
        @Override
        public Admin getAdmin(Map<String, Object> config) {
            return Admin.create(config);
        }

        @Override
        public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            return flavour.producer(config, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
            return flavour.consumer(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }

        @Override
        public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
            return getConsumer(config);
        }

        @Override
        public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
            return getConsumer(config);
        }
    }
}
