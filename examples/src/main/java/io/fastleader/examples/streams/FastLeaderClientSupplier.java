package io.fastleader.examples.streams;

import java.util.Map;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.StreamsConfig;

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
 * <p>Not supported: {@code processing.guarantee=exactly_once_v2}, which needs a transactional
 * producer; FastLeaderProducer has no transactions yet. Streams asks this supplier for its producer
 * while {@code new KafkaStreams(...)} runs, and the supplier refuses there with a
 * {@link ConfigException} naming {@code processing.guarantee}; use {@code at_least_once}, Streams'
 * default. With {@code group.protocol=streams} (KIP-1071) Streams builds its main consumer itself
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
     * {@inheritDoc} A {@link FastLeaderProducer}.
     *
     * @throws ConfigException when Streams asks for a transactional producer: {@code processing.guarantee=exactly_once_v2}
     */
    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        Object transactionalId = config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        if (transactionalId != null) {
            // Streams sets transactional.id only under exactly-once; say so in its terms, not the producer's.
            throw new ConfigException(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2,
                    "FastLeaderClientSupplier gives Kafka Streams a FastLeaderProducer, which does not support transactions yet "
                            + "(Streams asked for transactional.id " + transactionalId + "); use "
                            + StreamsConfig.AT_LEAST_ONCE);
        }
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
