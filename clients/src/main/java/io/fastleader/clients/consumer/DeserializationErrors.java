package io.fastleader.clients.consumer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.Optional;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.TimestampType;

/**
 * Builds the {@link RecordDeserializationException} of the kafka-clients on the classpath: with the
 * record (which part failed, its bytes, headers and timestamp: kafka-clients 3.8+), or with its
 * partition and offset only, the constructor every release has. Chosen once.
 */
final class DeserializationErrors {

    /** Which part of a record failed, as kafka-clients 3.8+'s {@code DeserializationExceptionOrigin} names it. */
    enum Origin { KEY, VALUE }

    /** The factory for the kafka-clients on the classpath. */
    static final DeserializationErrors ON_CLASSPATH = new DeserializationErrors(detailedConstructor());

    /**
     * The ten-argument constructor (3.8+) with its {@code DeserializationExceptionOrigin}'s KEY and
     * VALUE: the class is looked up by name, so nothing here needs it when it is absent.
     */
    record Detailed(MethodHandle constructor, Object keyOrigin, Object valueOrigin) {
    }

    private final Optional<Detailed> detailed;

    /** @param detailed empty builds the exception as kafka-clients 3.7 must */
    DeserializationErrors(Optional<Detailed> detailed) {
        this.detailed = detailed;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Optional<Detailed> detailedConstructor() {
        try {
            Class<? extends Enum> origin = (Class<? extends Enum>) Class.forName(
                    RecordDeserializationException.class.getName() + "$DeserializationExceptionOrigin", false,
                    RecordDeserializationException.class.getClassLoader());
            MethodHandle constructor = MethodHandles.publicLookup().findConstructor(RecordDeserializationException.class,
                    MethodType.methodType(void.class, origin, TopicPartition.class, long.class, long.class, TimestampType.class,
                            ByteBuffer.class, ByteBuffer.class, Headers.class, String.class, Throwable.class));
            return Optional.of(new Detailed(constructor, Enum.valueOf(origin, Origin.KEY.name()), Enum.valueOf(origin, Origin.VALUE.name())));
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            return Optional.empty();
        }
    }

    /** The exception for the record at {@code offset} whose {@code origin} the deserializer refused with {@code cause}. */
    RecordDeserializationException error(Origin origin, TopicPartition partition, long offset, long timestamp,
                                         TimestampType timestampType, ByteBuffer key, ByteBuffer value, Headers headers,
                                         String message, Throwable cause) {
        if (detailed.isEmpty()) {
            return new RecordDeserializationException(partition, offset, message, cause);
        }
        Detailed with = detailed.get();
        try {
            return (RecordDeserializationException) with.constructor().invoke(origin == Origin.KEY ? with.keyOrigin() : with.valueOrigin(),
                    partition, offset, timestamp, timestampType, key, value, headers, message, cause);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            // The constructor declares no checked exception.
            throw new IllegalStateException(e);
        }
    }
}
