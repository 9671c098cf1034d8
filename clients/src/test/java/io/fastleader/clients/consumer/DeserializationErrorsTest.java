package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Optional;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;

@NeedsKafkaClientsNewerThan37
class DeserializationErrorsTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 0);
    private static final IllegalArgumentException CAUSE = new IllegalArgumentException("not a string");

    @Test
    void testTheErrorCarriesTheRecordWhereKafkaClientsHasTheDetailedConstructor() {
        RecordDeserializationException error = error(DeserializationErrors.ON_CLASSPATH);

        assertThat(error.origin()).isEqualTo(RecordDeserializationException.DeserializationExceptionOrigin.VALUE);
        assertThat(error.valueBuffer()).isEqualTo(ByteBuffer.wrap(new byte[] {2}));
        assertThat(error.timestamp()).isEqualTo(1_000);
        assertThat(error.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(error.offset()).isEqualTo(7);
        assertThat(error).hasMessage("bad value").hasCause(CAUSE);
    }

    @Test
    void testTheErrorCarriesPartitionAndOffsetWhereKafkaClientsHasOnlyTheShortConstructor() {
        RecordDeserializationException error = error(new DeserializationErrors(Optional.empty()));

        assertThat(error.topicPartition()).isEqualTo(PARTITION);
        assertThat(error.offset()).isEqualTo(7);
        assertThat(error.origin()).as("not set by the constructor kafka-clients 3.7 has").isNull();
        assertThat(error).hasMessage("bad value").hasCause(CAUSE);
    }

    private static RecordDeserializationException error(DeserializationErrors errors) {
        return errors.error(DeserializationErrors.Origin.VALUE, PARTITION, 7, 1_000, TimestampType.CREATE_TIME,
                ByteBuffer.wrap(new byte[] {1}), ByteBuffer.wrap(new byte[] {2}), new RecordHeaders(), "bad value", CAUSE);
    }
}
