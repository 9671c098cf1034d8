package io.fastleader.it.parity;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.common.ClusterResource;
import org.apache.kafka.common.ClusterResourceListener;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/** A string serializer and deserializer that writes down every cluster id its client tells it. */
final class ClusterIdListener implements Serializer<String>, Deserializer<String>, ClusterResourceListener {

    private final List<String> told = new CopyOnWriteArrayList<>();

    @Override
    public void onUpdate(ClusterResource cluster) {
        told.add(cluster.clusterId());
    }

    /** The cluster ids told so far, in order. */
    List<String> told() {
        return List.copyOf(told);
    }

    @Override
    public byte[] serialize(String topic, String data) {
        return data == null ? null : data.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(String topic, byte[] data) {
        return data == null ? null : new String(data, StandardCharsets.UTF_8);
    }

    // Serializer and Deserializer both have these as default methods: one of each is needed here.
    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
    }

    @Override
    public void close() {
    }
}
