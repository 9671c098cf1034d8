package io.fastleader.benchmarks.leadermove;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.DataFormatException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.HdrHistogram.Histogram;

import io.fastleader.benchmarks.common.Latency;

/**
 * What one variant's driver reported.
 *
 * @param variant               which
 * @param sent                  records handed to the producer
 * @param acked                 records acknowledged
 * @param consumed              distinct records consumed
 * @param duplicates            records consumed more than once
 * @param lost                  records acknowledged and never consumed
 * @param errors                failed sends and consumer errors
 * @param firstError            the first of them
 * @param produce               send-to-acknowledgement latency
 * @param endToEnd              send-to-poll latency
 * @param produceMaxBySecond    each wall-clock second's worst produce latency, in ms
 * @param endToEndMaxBySecond   each wall-clock second's worst end-to-end latency, in ms
 * @param metrics               the client's request, retry and hint counts
 * @param cpuCores              the driver JVM's CPU time over the measured phase (after the warm-up), in cores
 * @param slowBatches           fastleader only: where its slowest measured batches waited, one log line each, slowest first
 */
record VariantResult(Variant variant, long sent, long acked, long consumed, long duplicates, long lost, long errors,
                     String firstError, Latency produce, Latency endToEnd, Map<Long, Double> produceMaxBySecond,
                     Map<Long, Double> endToEndMaxBySecond, Map<String, Double> metrics, double cpuCores, List<String> slowBatches) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static VariantResult parse(Variant variant, String json) throws Exception {
        JsonNode node = JSON.readTree(json);
        Map<String, Double> metrics = new TreeMap<>();
        node.get("metrics").fields().forEachRemaining(e -> metrics.put(e.getKey(), e.getValue().asDouble()));
        List<String> slowBatches = new ArrayList<>();
        node.get("slowBatches").forEach(line -> slowBatches.add(line.asText()));
        return new VariantResult(variant, node.get("sent").asLong(), node.get("acked").asLong(), node.get("consumed").asLong(),
            node.get("duplicates").asLong(), node.get("lost").asLong(), node.get("errors").asLong(), node.get("firstError").asText(),
            Latency.of(histogram(node.get("produceHistogram").asText())), Latency.of(histogram(node.get("endToEndHistogram").asText())),
            millisBySecond(node.get("produceMaxMicrosBySecond")), millisBySecond(node.get("endToEndMaxMicrosBySecond")), metrics,
            node.get("measuredCpuSeconds").asDouble() / Math.max(1e-9, node.get("measuredSeconds").asDouble()), slowBatches);
    }

    private static Map<Long, Double> millisBySecond(JsonNode microsBySecond) {
        Map<Long, Double> millis = new TreeMap<>();
        microsBySecond.fields().forEachRemaining(e -> millis.put(Long.parseLong(e.getKey()), e.getValue().asLong() / 1000.0));
        return millis;
    }

    private static Histogram histogram(String base64) throws DataFormatException {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
    }
}
