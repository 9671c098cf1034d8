package io.fastleader.examples.streams;

import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The counting application the Streams tests run (page views counted per user) and how they read
 * what it counted.
 */
final class PageViewCounts {

    /** The state store of the counts; its changelog topic is {@code <application id>-page-views-per-user-changelog}. */
    static final String STORE = "page-views-per-user";

    private PageViewCounts() {
    }

    /** Where the application {@code applicationId} writes each new count. */
    static String output(String applicationId) {
        return applicationId + "-output";
    }

    /** The changelog topic Streams creates for the application's state store. */
    static String changelog(String applicationId) {
        return applicationId + "-" + STORE + "-changelog";
    }

    /** Page views counted per user, in a state store backed by a changelog topic; each new count goes to {@code output}. */
    static void countingTopology(StreamsBuilder builder, String input, String output) {
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count(Materialized.as(STORE))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    }

    /** The configuration of the application {@code applicationId} on {@code cluster}, at {@code at_least_once}. */
    static Properties streamsProperties(KafkaTestCluster cluster, String applicationId, Path stateDir) {
        Properties properties = new Properties();
        properties.putAll(cluster.clientConfig());
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // Every count is written and committed at once instead of after the cache fills or 30 s pass.
        properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        /*
         * KafkaStreams.close() keeps its main consumer in the group (no LeaveGroup); a restarted
         * instance's rebalance then waits for the old member's session to time out: 6 s, the
         * broker's least, instead of 45.
         */
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        properties.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        return properties;
    }

    /**
     * Reads the {@link #output} of {@code applicationId} from its start until every user's last
     * count reaches the {@code expected} one, and then on to the end the output has at that
     * moment, so that a count past the expected one (a page view counted twice) is seen too.
     * Fails at once if a stream thread of an instance died, and after {@code within} with what it
     * read.
     *
     * @return each user's last count
     */
    static Map<String, Long> lastCounts(KafkaTestCluster cluster, String applicationId, Map<String, Long> expected,
                                        Duration within, CountingInstance... instances) {
        Map<String, Long> counts = new TreeMap<>();
        try (Consumer<String, Long> reader = new KafkaConsumer<>(cluster.clientConfig(), new StringDeserializer(), new LongDeserializer())) {
            List<TopicPartition> partitions = reader.partitionsFor(output(applicationId)).stream()
                .map(partition -> new TopicPartition(partition.topic(), partition.partition()))
                .toList();
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            long deadline = System.nanoTime() + within.toNanos();
            // Empty until every expected count is reached; then the output's end offsets at that moment.
            Map<TopicPartition, Long> end = new HashMap<>();
            while (end.isEmpty() || !partitions.stream().allMatch(partition -> reader.position(partition) >= end.get(partition))) {
                for (CountingInstance instance : instances) {
                    instance.failIfDied();
                }
                if (System.nanoTime() - deadline > 0) {
                    fail("not every page view counted within %s: last counts %s of %s, instances %s",
                            within, counts, expected, List.of(instances));
                }
                for (ConsumerRecord<String, Long> count : reader.poll(Duration.ofMillis(200))) {
                    counts.put(count.key(), count.value());
                }
                if (end.isEmpty() && expected.entrySet().stream().allMatch(user -> counts.getOrDefault(user.getKey(), 0L) >= user.getValue())) {
                    end.putAll(reader.endOffsets(partitions));
                }
            }
        }
        return counts;
    }
}
