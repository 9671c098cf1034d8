package io.fastleader.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.network.KafkaClientsRange;
import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * fastleader end to end, as an application uses it: the producer and consumer are built where
 * {@code KafkaProducer} and {@code KafkaConsumer} were, with the same {@link Properties}, and used
 * through kafka-clients' {@link Producer} and {@link Consumer} interfaces. It writes records to a
 * topic, reads them back from the beginning, and prints the counts of the leader-hint metrics that
 * show which path leader discovery took.
 *
 * <pre>
 * java -cp ... io.fastleader.examples.QuickStart localhost:9092 [topic] [records]
 * </pre>
 */
public final class QuickStart {

    private static final Duration CONSUME_TIMEOUT = Duration.ofSeconds(30);

    private QuickStart() {
    }

    /** Arguments: bootstrap servers, then optionally the topic (default {@code fastleader-quickstart}) and the record count (100). */
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 3) {
            System.err.println("usage: QuickStart <bootstrap.servers> [topic] [records]");
            System.exit(2);
        }
        String topic = args.length > 1 ? args[1] : "fastleader-quickstart";
        int records = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        Outcome outcome = run(args[0], topic, records, System.out);
        if (outcome.consumed() != outcome.produced()) {
            System.exit(1);
        }
    }

    /** What a run wrote and read back, and the leader-hint counts of its two clients. */
    public record Outcome(int produced, int consumed, Map<String, Double> producerHints, Map<String, Double> consumerHints) {
    }

    /**
     * Creates {@code topic} (three partitions) unless it exists, writes {@code records} string
     * records with {@code acks=all}, reads them back, and prints what happened to {@code out}.
     */
    public static Outcome run(String bootstrapServers, String topic, int records, PrintStream out)
            throws ExecutionException, InterruptedException {
        out.printf("fastleader beside kafka-clients %s%n", KafkaClientsRange.onClasspath());
        createTopic(bootstrapServers, topic);

        Properties producerConfig = new Properties();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        Map<String, Double> producerHints;
        // The swap: new KafkaProducer<>(producerConfig) becomes
        try (Producer<String, String> producer = new FastLeaderProducer<>(producerConfig)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)));
            }
            for (Future<RecordMetadata> acknowledgement : sent) {
                acknowledgement.get();
            }
            producerHints = leaderHintCounts(producer.metrics());
        }
        out.printf("produced %d records to %s%n", records, topic);

        Properties consumerConfig = new Properties();
        consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        consumerConfig.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        consumerConfig.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        int consumed = 0;
        Map<String, Double> consumerHints;
        // The swap: new KafkaConsumer<>(consumerConfig) becomes
        try (Consumer<String, String> consumer = new FastLeaderConsumer<>(consumerConfig)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(info.topic(), info.partition()))
                .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + CONSUME_TIMEOUT.toNanos();
            while (consumed < records && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> ignored : consumer.poll(Duration.ofMillis(500))) {
                    consumed++;
                }
            }
            consumerHints = leaderHintCounts(consumer.metrics());
        }
        out.printf("consumed %d of %d records%n", consumed, records);
        out.printf("producer leader hints: %s%n", producerHints);
        out.printf("consumer leader hints: %s%n", consumerHints);
        return new Outcome(records, consumed, producerHints, consumerHints);
    }

    private static void createTopic(String bootstrapServers, String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(Set.of(new NewTopic(topic, Optional.of(3), Optional.empty()))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /**
     * The counts in fastleader's {@value MetadataMetrics#GROUP} group: hints accepted, hints
     * rejected by reason, and Metadata refreshes by cause, named {@code name} or {@code name{tag=value}}.
     */
    public static Map<String, Double> leaderHintCounts(Map<MetricName, ? extends Metric> metrics) {
        Map<String, Double> counts = new TreeMap<>();
        metrics.forEach((name, metric) -> {
            if (name.group().equals(MetadataMetrics.GROUP)) {
                Map<String, String> tags = new TreeMap<>(name.tags());
                tags.remove("client-id");
                counts.put(tags.isEmpty() ? name.name() : name.name() + tags, (Double) metric.metricValue());
            }
        });
        return counts;
    }
}
