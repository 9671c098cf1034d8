package io.fastleader.clients.consumer;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Decoding settings shared by every partition of a consumer.
 *
 * @param keys       {@code key.deserializer}
 * @param values     {@code value.deserializer}
 * @param isolation  {@code isolation.level}: under {@code read_committed} records of aborted transactions are dropped
 * @param checkCrcs  {@code check.crcs}: verify each batch's CRC before reading it
 */
record RecordDecoding<K, V>(Deserializer<K> keys, Deserializer<V> values, IsolationLevel isolation,
                            boolean checkCrcs) {
}
