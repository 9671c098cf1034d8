package io.fastleader.examples.streams;

import java.util.Map;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * Kafka Streams' client supplier, handing a {@code KafkaStreams} instance fastleader's clients where
 * the default supplier hands it {@code KafkaProducer}s and {@code KafkaConsumer}s, so that a
 * partition leader moving (a rolling restart, a reassignment) stalls processing as little as it
 * stalls a plain fastleader application:
 *
 * <ul>
 *   <li>the producer, which writes to sink, changelog and repartition topics: {@link FastLeaderProducer};</li>
 *   <li>the main consumer, which reads the source topics as a member of the application's group,
 *       the restore consumer, which reads changelogs back into state stores, and the global
 *       consumer, which fills {@code GlobalKTable}s: {@link FastLeaderConsumer}s;</li>
 *   <li>the admin client, which creates the internal topics: kafka-clients' own {@link Admin}, as
 *       fastleader has none.</li>
 * </ul>
 *
 * <pre>
 * KafkaStreams streams = new KafkaStreams(topology, props, new FastLeaderClientSupplier());
 * </pre>
 *
 * <p>Every client gets the configuration Streams builds for it, byte-array serdes, and no changes.
 * The main consumer joins the group with the classic group protocol and Streams' own assignor,
 * both of which Streams sets in that configuration.
 *
 * <p>{@code processing.guarantee=exactly_once_v2} works as with the default supplier: Streams sets
 * {@code transactional.id} on the producer, commits each task's output and its input offsets in one
 * transaction (with the main consumer's group metadata, so a zombie instance is fenced), and reads
 * with {@code isolation.level=read_committed}. With {@code group.protocol=streams} (KIP-1071) Streams builds its main consumer itself
 * and does not ask a supplier for it: only the producer, restore and global consumers are then
 * fastleader's.
 */
public class FastLeaderClientSupplier implements KafkaClientSupplier {

    /** A supplier of fastleader's producer and consumers, and kafka-clients' admin client. */
    public FastLeaderClientSupplier() {
    }

    /** kafka-clients' {@link Admin}: fastleader has no admin client. */
    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    /**
     * {@inheritDoc} A {@link FastLeaderProducer}: a transactional one under
     * {@code processing.guarantee=exactly_once_v2}, where Streams sets {@code transactional.id}.
     */
    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return new FastLeaderProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** {@inheritDoc} A {@link FastLeaderConsumer}. */
    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return new FastLeaderConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** {@inheritDoc} A {@link FastLeaderConsumer}. */
    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return new FastLeaderConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** {@inheritDoc} A {@link FastLeaderConsumer}. */
    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return new FastLeaderConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
