package io.fastleader.clients;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A test of kafka-clients API or behaviour that 3.7, the oldest release fastleader runs beside,
 * lacks (4.x defaults, {@code ConsumerRecords.nextOffsets()}, the detailed
 * {@code RecordDeserializationException}, the compression level keys): it runs beside the release
 * the library is built with, and is left out where clients/shaded runs the unit tests beside 3.7.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(NeedsKafkaClientsNewerThan37.TAG)
public @interface NeedsKafkaClientsNewerThan37 {

    /** The JUnit tag, for {@code excludedGroups}. */
    String TAG = "kafka-clients-newer-than-3.7";
}
