package io.fastleader.clients.consumer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Builds what {@code poll} returns with the kafka-clients on the classpath: with each partition's
 * next offset ({@code ConsumerRecords.nextOffsets()}, 4.0+), which 4.x applications commit, or
 * without them on 3.x, whose {@code ConsumerRecords} has no place for them. Chosen once.
 */
final class ConsumerRecordsFactory {

    /** The factory for the kafka-clients on the classpath. */
    static final ConsumerRecordsFactory ON_CLASSPATH = new ConsumerRecordsFactory(constructorWithNextOffsets());

    /** {@code ConsumerRecords(Map, Map)}, empty before kafka-clients 4.0. */
    private final Optional<MethodHandle> withNextOffsets;

    /** @param withNextOffsets {@code ConsumerRecords(Map, Map)}; empty builds records as kafka-clients 3.x must */
    ConsumerRecordsFactory(Optional<MethodHandle> withNextOffsets) {
        this.withNextOffsets = withNextOffsets;
    }

    static Optional<MethodHandle> constructorWithNextOffsets() {
        try {
            return Optional.of(MethodHandles.publicLookup().findConstructor(ConsumerRecords.class,
                    MethodType.methodType(void.class, Map.class, Map.class)));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return Optional.empty();
        }
    }

    /** {@code records}, and {@code nextOffsets} where kafka-clients keeps them. */
    @SuppressWarnings("unchecked")
    <K, V> ConsumerRecords<K, V> records(Map<TopicPartition, List<ConsumerRecord<K, V>>> records,
                                         Map<TopicPartition, OffsetAndMetadata> nextOffsets) {
        if (withNextOffsets.isEmpty()) {
            return new ConsumerRecords<>(records);
        }
        try {
            return (ConsumerRecords<K, V>) withNextOffsets.get().invoke(records, nextOffsets);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            // The constructor declares no checked exception.
            throw new IllegalStateException(e);
        }
    }
}
