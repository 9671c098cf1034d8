package io.fastleader.clients.producer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;

/**
 * kafka-clients 3.x's {@code Partitioner.onNewBatch(topic, cluster, prevPartition)}: before 4.0,
 * {@code KafkaProducer} tells an application's partitioner when the partition it chose would start
 * a new batch, then asks it for the partition again. The sticky partitioners of those releases
 * ({@code DefaultPartitioner}, {@code UniformStickyPartitioner}) move on only when told. 4.0 took
 * the method out of the interface, and this out of the producer; beside 4.x nothing is told.
 */
final class PartitionerNewBatch {

    /** Null beside kafka-clients 4.0 and later. */
    private static final MethodHandle ON_NEW_BATCH = onNewBatchHandle();

    private PartitionerNewBatch() {
    }

    /** Whether this kafka-clients release tells a partitioner of new batches. */
    static boolean told() {
        return ON_NEW_BATCH != null;
    }

    /** Tells {@code partitioner} that the record it put in {@code previousPartition} of {@code topic} would start a new batch there. */
    static void tell(Partitioner partitioner, String topic, Cluster cluster, int previousPartition) {
        try {
            ON_NEW_BATCH.invoke(partitioner, topic, cluster, previousPartition);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new KafkaException("The partitioner's onNewBatch failed", e);
        }
    }

    private static MethodHandle onNewBatchHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Partitioner.class, "onNewBatch",
                    MethodType.methodType(void.class, String.class, Cluster.class, int.class));
        } catch (NoSuchMethodException | IllegalAccessException fromKafkaClients40) {
            return null;
        }
    }
}
